// The use cases behind `kubeconfig` and `argocd-secret`: validate the config exactly as the plugin
// will run it (prepare, with the cluster info client-go would send), then print the manifest.
// Secret values are never printed: the env names the templates read are listed, not their values.
import { resolve } from 'node:path';
import { readProblem, UsageError } from '../errors.js';
import { parseConfigText, selectSource } from '../config/load.js';
import { V1, V1BETA1 } from '../credential/exec-credential.js';
import type { Deps, RequestFlags } from '../use-case/deps.js';
import { prepare } from '../use-case/prepare.js';
import { buildArgoCdClusterSecret, buildKubeconfig, defaultName, type ExecPlugin } from './manifests.js';

/** How this very binary is started: [node, script] for the bin script, [binary] for the single executable. */
export interface Invocation {
  command: string[];
  cwd: string;
}

interface ManifestFlags extends RequestFlags {
  server: string;
  name?: string;
  caFile?: string;
  /** Put the config in the manifest (cluster extension / execProviderConfig.config) with provideClusterInfo. */
  embedConfig?: boolean;
}

export interface KubeconfigFlags extends ManifestFlags {
  cache?: boolean;
}

export interface ArgoCdSecretFlags extends ManifestFlags {
  namespace: string;
  command: string;
}

interface Checked {
  server: string;
  apiVersion: string;
  caData?: string;
  source: { kind: 'file'; path: string } | { kind: 'text'; text: string };
  document: unknown;
  /** Env names the templates read that are set now: the plugin needs them at run time too. */
  envNames: string[];
  setArgs: string[];
}

/** Prints the kubeconfig; returns notes for stderr. */
export async function kubeconfig(flags: KubeconfigFlags, invocation: Invocation, deps: Deps): Promise<string[]> {
  const checked = await check(flags, V1, deps);
  const [command, ...lead] = invocation.command;
  // An embedded config reaches the plugin through the cluster entry: the user entry must ask for it.
  const configArgs = flags.embedConfig
    ? ['--config-from-cluster']
    : checked.source.kind === 'file'
      ? ['--config', resolve(invocation.cwd, checked.source.path)]
      : ['--config-inline', checked.source.text];
  const plugin: ExecPlugin = {
    command: command!,
    args: [...lead, ...configArgs, ...checked.setArgs, ...(flags.cache ? ['--cache'] : [])],
    apiVersion: checked.apiVersion,
    ...(flags.embedConfig ? { embeddedConfig: checked.document } : {}),
  };
  const manifest = buildKubeconfig({
    name: flags.name ?? defaultName(checked.server),
    server: checked.server,
    ...(checked.caData !== undefined ? { caData: checked.caData } : {}),
    plugin,
  });
  deps.stdout(await toYaml(manifest));
  return checked.envNames.length === 0
    ? []
    : [`note: kubectl must pass ${names(checked.envNames)} to the plugin: export ${checked.envNames.length === 1 ? 'it' : 'them'} where kubectl runs, or add users[].user.exec.env entries`];
}

/** Prints the Argo CD cluster secret; returns notes for stderr. */
export async function argoCdSecret(flags: ArgoCdSecretFlags, deps: Deps): Promise<string[]> {
  // file() and tls.*File name files of the Argo CD containers (a projected token, a mounted CA):
  // one that is not here is no error, only a note.
  const elsewhere: string[] = [];
  const checked = await check(flags, V1BETA1, deps, elsewhere);
  const YAML = (await import('yaml')).default;
  // The Argo CD containers do not have the local file: the config travels in the secret.
  const configArgs = flags.embedConfig ? ['--config-from-cluster'] : ['--config-inline', YAML.stringify(checked.document, { collectionStyle: 'flow', lineWidth: 0 }).trim()];
  const manifest = buildArgoCdClusterSecret({
    name: flags.name ?? defaultName(checked.server),
    server: checked.server,
    namespace: flags.namespace,
    ...(checked.caData !== undefined ? { caData: checked.caData } : {}),
    plugin: {
      command: flags.command,
      args: [...configArgs, ...checked.setArgs],
      apiVersion: checked.apiVersion,
      ...(flags.embedConfig ? { embeddedConfig: checked.document } : {}),
    },
    env: Object.fromEntries(checked.envNames.map((name) => [name, `<${name}>`])),
  });
  deps.stdout(await toYaml(manifest));
  const notes: string[] = [];
  if (checked.envNames.length > 0) {
    const one = checked.envNames.length === 1;
    notes.push(`note: replace the placeholder${one ? '' : 's'} of ${names(checked.envNames)} in execProviderConfig.env with the real value${one ? '' : 's'}; this command never prints secrets`);
  }
  if (elsewhere.length > 0) notes.push(`note: ${names([...new Set(elsewhere)])} must exist in the Argo CD containers (not found here)`);
  return notes;
}

// Stands in for a file of the Argo CD containers; passes the PEM check of tls.*File.
const ELSEWHERE = '-----BEGIN CERTIFICATE-----\nZWxzZXdoZXJl\n-----END CERTIFICATE-----\n';

/** Validates and renders as the plugin will; with `elsewhere`, missing files are collected there instead of failing. */
async function check(flags: ManifestFlags, defaultApiVersion: string, deps: Deps, elsewhere?: string[]): Promise<Checked> {
  const server = serverUrl(flags.server);
  const apiVersion = flags.apiVersion ?? defaultApiVersion;
  if (apiVersion !== V1 && apiVersion !== V1BETA1) {
    throw new UsageError('API_VERSION', `--api-version ${JSON.stringify(apiVersion)} is not supported; use ${V1} or ${V1BETA1}`);
  }
  const caData = flags.caFile === undefined ? undefined : readCa(flags.caFile, deps);
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
      throw new UsageError('CONFIG_UNREADABLE', `cannot read config ${selected.path}: ${readProblem(error)}`, { cause: error });
    }
  }
  const document = await parseConfigText(text, selected.origin);
  // Validate and render as the plugin will run: with spec.cluster only when the manifest sends it.
  const cluster = { server, ...(caData !== undefined ? { 'certificate-authority-data': caData } : {}), config: document };
  const execInfo = flags.embedConfig ? JSON.stringify({ apiVersion, kind: 'ExecCredential', spec: { interactive: false, cluster } }) : undefined;
  const readFile = (path: string) => {
    try {
      return deps.readFile(path);
    } catch (error) {
      if (!elsewhere || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      elsewhere.push(path);
      return ELSEWHERE;
    }
  };
  const prepared = await prepare({ ...flags, apiVersion }, { ...deps, readFile, env: { ...deps.env, KUBERNETES_EXEC_INFO: execInfo } });
  const envNames = prepared.dependencies.env.filter((name) => name !== 'KUBERNETES_EXEC_INFO' && deps.env[name] !== undefined);
  const setArgs = (flags.set ?? []).flatMap((pair) => ['--set', pair]);
  return { server, apiVersion, ...(caData !== undefined ? { caData } : {}), source, document, envNames, setArgs };
}

function serverUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:') throw new UsageError('SERVER_INVALID', `--server ${JSON.stringify(text)}: expected the https:// URL of the Kubernetes API server`);
  return text;
}

function readCa(path: string, deps: Deps): string {
  let pem: string;
  try {
    pem = deps.readFile(path);
  } catch (error) {
    throw new UsageError('CA_FILE', `--ca-file ${path}: cannot read it: ${readProblem(error)}`, { cause: error });
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError('CA_FILE', `--ca-file ${path}: expected PEM certificates`);
  return Buffer.from(pem, 'utf8').toString('base64');
}

function names(list: string[]): string {
  return list.length === 1 ? list[0]! : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

async function toYaml(document: unknown): Promise<string> {
  const YAML = (await import('yaml')).default;
  return YAML.stringify(document, { lineWidth: 0 });
}
