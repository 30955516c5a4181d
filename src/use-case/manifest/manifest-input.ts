// What a generator embeds: the config checked exactly as the plugin will run it (prepare, with the
// cluster info client-go would send), never needing the secret values, and its TLS files as data.
import { dirname, isAbsolute, join } from 'node:path';
import { readProblem, UsageError } from '../../errors.js';
import { parseConfigText, selectSource } from '../../config/load.js';
import { V1, V1BETA1 } from '../../credential/exec-credential.js';
import type { Deps, RequestFlags } from '../deps.js';
import { prepare } from '../prepare.js';
import { certificatesOnly, OUTSIDE, readCertificateFile } from '../certificates.js';

export interface ManifestFlags extends RequestFlags {
  server: string;
  name?: string;
  caFile?: string;
  /** The token API's CA (not the cluster's): written into the config as tls.caData. */
  tokenCaFile?: string;
  /** Put the config in the manifest (cluster extension / execProviderConfig.config) with provideClusterInfo. */
  embedConfig?: boolean;
}

export interface Checked {
  server: string;
  apiVersion: string;
  caData?: string;
  /** What the generator must tell about --ca-file (blocks it did not copy). */
  notes: string[];
  source: { kind: 'file'; path: string } | { kind: 'text'; text: string };
  document: unknown;
  /** Env names the templates read that are set now or that a value needs: the plugin needs them at run time. */
  envNames: string[];
  setArgs: string[];
  /** The relative paths the config reads, as written. */
  relativeFiles: string[];
  /** The files the config reads (file(), tls.*File), resolved as the plugin would here. */
  files: string[];
}

const TLS_FILES = [
  ['caFile', 'caData'],
  ['certFile', 'certData'],
  ['keyFile', 'keyData'],
] as const;

interface Inlined {
  document: unknown;
  /** The tls.*File values inlined, as written, and as read. */
  paths: string[];
  resolved: string[];
  notes: string[];
}

/**
 * The document with every tls.caFile, certFile and keyFile (top level and steps) replaced by the
 * file's content as caData, certData and keyData: the manifest carries the config to a machine
 * that has no such file. A templated path, or one not found here (`elsewhere`), stays a path.
 */
export function inlineTlsFiles(checked: Checked, deps: Deps, elsewhere: string[] = []): Inlined {
  const document = structuredClone(checked.document) as { webAPIProviderConfig: Record<string, unknown> };
  const base = checked.source.kind === 'file' ? dirname(checked.source.path) : undefined;
  const result: Inlined = { document, paths: [], resolved: [], notes: [] };
  const missing = new Set(elsewhere);
  const provider = document.webAPIProviderConfig;
  const steps = Array.isArray(provider['steps']) ? (provider['steps'] as Array<Record<string, unknown>>) : [];
  for (const [request, root] of [
    [provider, 'webAPIProviderConfig'],
    ...steps.map((step, i) => [step, `webAPIProviderConfig.steps[${i}]`] as const),
  ] as const) {
    const tls = request['tls'];
    if (typeof tls !== 'object' || tls === null) continue;
    const fields = tls as Record<string, unknown>;
    // Written inline, a CA bundle or certificate goes into the manifest as well: certificates only.
    for (const data of ['caData', 'certData'] as const) {
      const value = fields[data];
      if (typeof value !== 'string' || value.includes('{{')) continue;
      const only = certificatesOnly(value);
      const note = droppedNote(`${root}.tls.${data}`, only.dropped);
      if (!note) continue;
      fields[data] = only.pem;
      result.notes.push(note);
    }
    for (const [file, data] of TLS_FILES) {
      const path = fields[file];
      if (typeof path !== 'string' || path.includes('{{')) continue;
      const resolvedPath = base !== undefined && !isAbsolute(path) ? join(base, path) : path;
      if (missing.has(resolvedPath)) continue;
      let content = deps.readFile(resolvedPath);
      // A CA bundle or a certificate file is copied with its certificates only: a private key
      // concatenated into one goes nowhere near a manifest (keyFile is the one place for a key).
      if (file !== 'keyFile') {
        const only = certificatesOnly(content);
        content = only.pem;
        const note = droppedNote(`${root}.tls.${file} ${path}`, only.dropped);
        if (note) result.notes.push(note);
      }
      // The same place in the mapping, under the data name.
      const entries = Object.entries(fields).map(([key, value]): [string, unknown] =>
        key === file ? [data, content] : [key, value],
      );
      for (const key of Object.keys(fields)) delete fields[key];
      Object.assign(fields, Object.fromEntries(entries));
      result.paths.push(path);
      result.resolved.push(resolvedPath);
      if (file === 'keyFile')
        result.notes.push(
          `note: ${root}.tls.keyFile ${path} is inlined as tls.keyData: the manifest holds its private key, keep it as secret as the file`,
        );
    }
  }
  return result;
}

// Stands in for a file of the Argo CD containers; passes the PEM check of tls.*File.
const ELSEWHERE = '-----BEGIN CERTIFICATE-----\nZWxzZXdoZXJl\n-----END CERTIFICATE-----\n';

/** Validates and renders as the plugin will; with `elsewhere`, missing files are collected there instead of failing. */
export async function check(
  flags: ManifestFlags,
  defaultApiVersion: string,
  deps: Deps,
  elsewhere?: string[],
): Promise<Checked> {
  const server = serverUrl(flags.server);
  const apiVersion = flags.apiVersion ?? defaultApiVersion;
  if (apiVersion !== V1 && apiVersion !== V1BETA1) {
    throw new UsageError(
      'API_VERSION',
      `--api-version ${JSON.stringify(apiVersion)} is not supported; use ${V1} or ${V1BETA1}`,
    );
  }
  const notes: string[] = [];
  const caData = flags.caFile === undefined ? undefined : readCa(flags.caFile, deps, notes);
  // Only the flags and the environment can name the config here: the manifest is what will carry it.
  const selected = selectSource(flags, deps.env, undefined);
  if (selected.kind === 'document') throw new Error('unreachable: no cluster info was given');
  let source: Checked['source'];
  let text: string;
  if (selected.kind === 'text') {
    source = { kind: 'text', text: selected.text };
    text = selected.text;
  } else {
    source = { kind: 'file', path: selected.path };
    try {
      text = deps.readFile(selected.path);
    } catch (error) {
      throw new UsageError('CONFIG_UNREADABLE', `cannot read config ${selected.path}: ${readProblem(error)}`, {
        cause: error,
      });
    }
  }
  const document = await parseConfigText(text, selected.origin);
  let runFlags: RequestFlags = flags;
  if (flags.tokenCaFile !== undefined) {
    // The CA goes into the config, which then travels as text (compact JSON): the file stays as it is.
    withTokenCa(document, readPem(flags.tokenCaFile, '--token-ca-file', deps, notes), flags.tokenCaFile);
    source = { kind: 'text', text: JSON.stringify(document) };
    const { config: _file, ...rest } = flags;
    runFlags = { ...rest, configInline: source.text };
  }
  // Validate and render as the plugin will run: with spec.cluster only when the manifest sends it.
  const cluster = {
    server,
    ...(caData !== undefined ? { 'certificate-authority-data': caData } : {}),
    config: document,
  };
  const execInfo = flags.embedConfig
    ? JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false, cluster } })
    : undefined;
  const readFile = (path: string) => {
    // A TLS path rendered from an unset env value names a file of the machine that will run the plugin.
    if (path.includes('[env.')) return ELSEWHERE;
    try {
      return deps.readFile(path);
    } catch (error) {
      // Only an absolute path can name a file of another machine: an empty one is wrong everywhere.
      if (!elsewhere || (error as NodeJS.ErrnoException).code !== 'ENOENT' || !isAbsolute(path)) throw error;
      elsewhere.push(path);
      return ELSEWHERE;
    }
  };
  // The shape and the templates are checked, never the secret values: an unset env value renders as
  // a placeholder, and its name is listed for the manifest's reader.
  const prepared = await prepare(
    { ...runFlags, apiVersion, unsetEnvAsPlaceholder: true, withholdDecided: true },
    { ...deps, readFile, env: { ...deps.env, KUBERNETES_EXEC_INFO: execInfo } },
  );
  const needed = new Set(prepared.envNeeded);
  const envNames = prepared.dependencies.env.filter(
    (name) => name !== 'KUBERNETES_EXEC_INFO' && (deps.env[name] !== undefined || needed.has(name)),
  );
  const setArgs = (flags.set ?? []).flatMap((pair) => ['--set', pair]);
  return {
    server,
    apiVersion,
    ...(caData !== undefined ? { caData } : {}),
    notes,
    source,
    document,
    envNames,
    setArgs,
    relativeFiles: prepared.relativeFiles,
    files: prepared.dependencies.files,
  };
}

function serverUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:')
    throw new UsageError(
      'SERVER_INVALID',
      `--server ${JSON.stringify(text)}: expected the https:// URL of the Kubernetes API server`,
    );
  return text;
}

function readCa(path: string, deps: Deps, notes: string[]): string {
  return Buffer.from(readPem(path, '--ca-file', deps, notes), 'utf8').toString('base64');
}

/** The certificates of a PEM file a flag names (a key or anything else in it is left out, with a note). */
function readPem(path: string, flag: string, deps: Deps, notes: string[]): string {
  const only = readCertificateFile(path, flag, deps);
  const note = droppedNote(`${flag} ${path}`, only.dropped);
  if (note) notes.push(note);
  return only.pem;
}

/** --token-ca-file: the token API's CA as the config's tls.caData; a config that names one already is refused, not overridden. */
function withTokenCa(document: unknown, pem: string, path: string): void {
  const provider = (document as { webAPIProviderConfig?: unknown } | null)?.webAPIProviderConfig;
  // Not a config at all: prepare() says what is wrong with it.
  if (typeof provider !== 'object' || provider === null || Array.isArray(provider)) return;
  const fields = provider as Record<string, unknown>;
  const tls = fields['tls'] === undefined ? {} : fields['tls'];
  if (typeof tls !== 'object' || tls === null || Array.isArray(tls)) return;
  const given = (['caFile', 'caData'] as const).find((key) => (tls as Record<string, unknown>)[key] !== undefined);
  if (given)
    throw new UsageError(
      'CA_FILE',
      `--token-ca-file ${path}: the config gives the token API's CA already (webAPIProviderConfig.tls.${given}); keep one of them`,
    );
  fields['tls'] = { ...tls, caData: pem };
}

/** The note on blocks a generator did not copy from `what` (a flag or a config field with its path). */
function droppedNote(what: string, dropped: string[]): string | undefined {
  if (dropped.length === 0) return undefined;
  const labels = [...new Set(dropped)];
  const blocks =
    labels.length === 1 && dropped.length === 1
      ? labels[0] === OUTSIDE
        ? OUTSIDE
        : `a ${labels[0]} block`
      : `${dropped.length} blocks that are no certificates (${labels.slice(0, 5).join(', ')})`;
  return `note: ${what} holds ${blocks} besides its certificates: it is not copied into the manifest, only the certificates are`;
}
