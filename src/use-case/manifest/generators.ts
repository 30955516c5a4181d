// The use cases behind `kubeconfig` and `argocd-secret`: the config checked as the plugin will run
// it (manifest-input.ts), then the manifest and notes on what it needs where it runs. Secret values
// are never printed: the env names the templates read are listed, not their values.
import { delimiter, dirname, join, resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import { mergeKubeconfig, type Merged } from '../../kubeconfig/merge.js';
import { hostileName } from '../../kubeconfig/names.js';
import { withKubeconfigLock, writeMerged } from '../../kubeconfig/write.js';
import { stringify11 } from '../../kubeconfig/yaml11.js';
import { envPlaceholder } from '../../config/env-placeholder.js';
import { V1, V1BETA1 } from '../../credential/exec-credential.js';
import type { Deps } from '../deps.js';
import { check, inlineTlsFiles, type ManifestFlags } from './manifest-input.js';
import {
  ARGOCD_CACHE_DIR,
  ARGOCD_CACHE_MOUNT,
  buildArgoCdClusterSecret,
  buildKubeconfig,
  defaultName,
  INSTALLED_NAME,
  kubeconfigEntries,
  type ExecPlugin,
} from './manifests.js';

export interface KubeconfigFlags extends ManifestFlags {
  /** Adds --cache to the exec entry (a person's kubectl runs the plugin on every command). */
  cache: boolean;
  /** --merge: into this file, or (true) the first of $KUBECONFIG, else ~/.kube/config. */
  merge?: string | true;
  /** --use: with merge, set current-context. */
  use?: boolean;
  /** --kuberc: with merge, allow the plugin in kubectl's kuberc (kubeconfig/kuberc.ts). */
  kuberc?: boolean;
  /** The exec entry's command: the installed name by default, so kubectl's installHint works. */
  command?: string;
}

export interface ArgoCdSecretFlags extends ManifestFlags {
  namespace: string;
  command: string;
  /** --cache and --cache-dir on the memory-backed emptyDir of examples/argocd. */
  cache?: boolean;
}

/** Prints the kubeconfig; returns notes for stderr. */
export async function kubeconfig(flags: KubeconfigFlags, cwd: string, deps: Deps): Promise<string[]> {
  refuseHostileName(flags.name, undefined);
  const checked = await check(flags, V1, deps);
  const command = flags.command ?? INSTALLED_NAME;
  const notes: string[] = [...checked.notes];
  // An embedded config reaches the plugin through the cluster entry: the user entry must ask for it.
  const configArgs = flags.embedConfig
    ? ['--config-from-cluster']
    : checked.source.kind === 'file'
      ? ['--config', resolve(cwd, checked.source.path)]
      : ['--config-inline', checked.source.text];
  let embedded: unknown;
  let inlinedPaths = new Set<string>();
  if (flags.embedConfig) {
    const inlined = inlineTlsFiles(checked, deps);
    embedded = inlined.document;
    inlinedPaths = new Set(inlined.paths);
    for (const note of inlined.notes) notes.push(note);
  }
  // A config that travels in the kubeconfig (embedded, or --config-inline) has no directory of its
  // own: its relative paths mean the one kubectl runs in. The TLS files of an embedded one are data now.
  if (flags.embedConfig || checked.source.kind === 'text') {
    const relative = checked.relativeFiles.filter((path) => !inlinedPaths.has(path));
    if (relative.length > 0)
      notes.push(
        relativeNote(
          relative,
          `in ${flags.embedConfig ? 'an embedded' : 'an inline'} config`,
          'the directory kubectl runs in',
        ),
      );
  }
  const plugin: ExecPlugin = {
    command,
    args: [...configArgs, ...checked.setArgs, ...(flags.cache ? ['--cache'] : [])],
    apiVersion: checked.apiVersion,
    ...(embedded !== undefined ? { embeddedConfig: embedded } : {}),
    ...(hasLogin(checked.document) ? { login: true } : {}),
  };
  const name = flags.name ?? entryName(checked.server);
  refuseHostileName(name, checked.server);
  const input = {
    name,
    server: checked.server,
    ...(checked.caData !== undefined ? { caData: checked.caData } : {}),
    plugin,
  };
  // --kuberc: the kuberc read and checked before the kubeconfig is written (kubeconfig/kuberc.ts).
  const allowInKuberc = flags.kuberc
    ? await (await import('../../kubeconfig/kuberc.js')).planKuberc(command, cwd, deps)
    : undefined;
  if (flags.merge !== undefined) {
    const path = mergeTarget(flags.merge, cwd, deps);
    const entries = kubeconfigEntries(input);
    const YAML = (await import('yaml')).default;
    let merged: Merged | undefined;
    const written = await withKubeconfigLock(path, deps, () =>
      writeMerged(
        path,
        (existing) => (merged = mergeKubeconfig(YAML, existing, entries, flags.use === true, path)).text,
        deps,
      ),
    );
    const next = flags.use
      ? `current-context is ${name}`
      : `kubectl --context ${name} uses them (or --use makes it current)`;
    const what = `cluster, user and context ${name}`;
    const outcome = merged!.outcome;
    // The file written, which a link may have led to: the report names it.
    const file = written.file === path ? path : `${written.file} (${path} is a link to it)`;
    notes.push(
      outcome === 'added'
        ? `added ${what} to ${file}; ${next}`
        : outcome === 'updated'
          ? `updated ${what} in ${file}${merged!.replacedServer !== undefined ? ` (its server was ${merged!.replacedServer}, now ${checked.server})` : ''}; ${next}`
          : `unchanged: ${what} in ${file}; ${next}`,
    );
    // Never silently: the rest of the file kept its bytes unless this note says otherwise.
    if (merged!.rewritten !== undefined)
      notes.push(
        `note: ${written.file} was rewritten whole, not edited in place (${merged!.rewritten}): its formatting and comment spacing may have changed`,
      );
    if (written.narrowedFrom !== undefined) {
      notes.push(
        `note: ${written.file} was mode ${octal(written.narrowedFrom)}, readable or writable by others: it is 0600 now, as a file holding credentials should be`,
      );
    }
    if (allowInKuberc) notes.push(allowInKuberc());
  } else deps.stdout(await toYaml(buildKubeconfig(input)));
  // Without the cache nothing keeps the login's credential: kubectl would prompt the person on every call.
  if (plugin.login && !flags.cache)
    notes.push(
      'note: this config logs a person in and --no-cache keeps nothing: every kubectl call would ask to log in again; leave out --no-cache',
    );
  if (checked.envNames.length > 0) {
    notes.unshift(
      `note: kubectl must pass ${names(checked.envNames)} to the plugin: export ${checked.envNames.length === 1 ? 'it' : 'them'} where kubectl runs, or add users[].user.exec.env entries`,
    );
  }
  return notes;
}

/** A config with login (SPEC "Interactive login"): its kubeconfig lets the plugin prompt. */
function hasLogin(document: unknown): boolean {
  return (document as { webAPIProviderConfig?: { login?: unknown } } | null)?.webAPIProviderConfig?.login !== undefined;
}

/** A name kubectl would not read or show as itself is a usage error (kubeconfig/names.ts); `server` when it was taken from there. */
function refuseHostileName(name: string | undefined, server: string | undefined): void {
  const why = name === undefined ? undefined : hostileName(name);
  if (why === undefined) return;
  throw new UsageError(
    'NAME_INVALID',
    server === undefined
      ? `--name ${why}: choose a name without control, format or line-break characters`
      : `the name taken from --server ${why}: give one with --name`,
  );
}

/** A kubeconfig entry's default name: the server's host, with its port unless 443, so that two clusters on one host never share one. */
function entryName(server: string): string {
  return new URL(server).host;
}

/** The kubeconfig --merge writes: the file given, else the first path of $KUBECONFIG, else ~/.kube/config (as kubectl reads). */
function mergeTarget(merge: string | true, cwd: string, deps: Deps): string {
  if (merge !== true) return resolve(cwd, merge);
  const first = (deps.env['KUBECONFIG'] ?? '').split(delimiter).find((path) => path !== '');
  return first !== undefined ? resolve(cwd, first) : join(deps.cache.homedir, '.kube', 'config');
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, '0')}`;
}

/** Prints the Argo CD cluster secret; returns notes for stderr. */
export async function argoCdSecret(flags: ArgoCdSecretFlags, deps: Deps): Promise<string[]> {
  // file() and tls.*File name files of the Argo CD containers (a projected token, a mounted CA):
  // one that is not here is no error, only a note.
  const elsewhere: string[] = [];
  const checked = await check(flags, V1BETA1, deps, elsewhere);
  // Argo CD runs the plugin with nobody to answer a prompt (SPEC "Never under Argo CD"): every call
  // of a login config would end in exit 2, so the secret is not written at all.
  if (hasLogin(checked.document)) {
    throw new UsageError(
      'ARGOCD_LOGIN',
      'argocd-secret: this config has login (a person at a terminal logs in); Argo CD runs the plugin with nobody to answer, so it could never get a credential: use a config whose token API needs no person',
    );
  }
  // The config travels in the secret, never a path on this machine: TLS files go in as data.
  const inlined = inlineTlsFiles(checked, deps, elsewhere);
  // One line of JSON: a reviewer reads it as it is, without flow YAML or escapes three layers deep.
  const configArgs = flags.embedConfig
    ? ['--config-from-cluster']
    : ['--config-inline', JSON.stringify(inlined.document)];
  const manifest = buildArgoCdClusterSecret({
    name: flags.name ?? defaultName(checked.server),
    server: checked.server,
    namespace: flags.namespace,
    ...(checked.caData !== undefined ? { caData: checked.caData } : {}),
    plugin: {
      command: flags.command,
      args: [...configArgs, ...checked.setArgs, ...(flags.cache ? ['--cache', '--cache-dir', ARGOCD_CACHE_DIR] : [])],
      apiVersion: checked.apiVersion,
      ...(flags.embedConfig ? { embeddedConfig: inlined.document } : {}),
    },
    env: Object.fromEntries(checked.envNames.map((name) => [name, envPlaceholder(name)])),
  });
  deps.stdout(await toYaml(manifest));
  const notes: string[] = [...checked.notes];
  if (checked.envNames.length > 0) {
    const one = checked.envNames.length === 1;
    notes.push(
      `note: replace the placeholder${one ? '' : 's'} of ${names(checked.envNames)} in execProviderConfig.env with the real value${one ? '' : 's'}; this command never prints secrets`,
    );
  }
  for (const note of inlined.notes) notes.push(note);
  // Argo CD verifies the cluster against its system roots when the secret has no caData: a private CA's cluster fails every sync.
  if (checked.caData === undefined)
    notes.push(
      "note: no --ca-file: Argo CD will trust only its system roots for the cluster's certificate (a cluster with a private CA needs --ca-file)",
    );
  if (flags.cache) {
    notes.push(
      `note: --cache-dir ${ARGOCD_CACHE_DIR} must be on a memory-backed emptyDir (medium: Memory) mounted at ${ARGOCD_CACHE_MOUNT} in argocd-application-controller and argocd-server, as examples/argocd does; elsewhere the cache is off`,
    );
  }
  // What file() reads (and a TLS file not found here) is read in the Argo CD containers; a relative
  // path there means their working directory, not this config's.
  const base = checked.source.kind === 'file' ? dirname(checked.source.path) : undefined;
  // Sets, not lists: a config of 20 000 steps with TLS files made a scan per path quadratic.
  const inlinedPaths = new Set(inlined.paths);
  const relative = checked.relativeFiles.filter((path) => !inlinedPaths.has(path));
  const notInPod = new Set([
    ...inlined.resolved,
    ...relative.map((path) => (base !== undefined ? join(base, path) : path)),
  ]);
  const inPod = [...new Set([...checked.files, ...elsewhere])].filter((path) => !notInPod.has(path));
  if (inPod.length > 0) {
    const notFound = new Set(elsewhere);
    const missing = inPod.filter((path) => notFound.has(path));
    notes.push(
      `note: ${names(inPod)} must exist in the Argo CD containers${missing.length === inPod.length ? ' (not found here)' : missing.length > 0 ? ` (${names(missing)} not found here)` : ''}`,
    );
  }
  if (relative.length > 0) notes.push(relativeNote(relative, 'in the Argo CD containers', 'their working directory'));
  return notes;
}

/** A relative path means another directory where the manifest runs the plugin than here. */
function relativeNote(relative: string[], where: string, against: string): string {
  const one = relative.length === 1;
  return `note: ${names(relative)} ${one ? 'is a relative path' : 'are relative paths'}: ${where} ${one ? 'it resolves' : 'they resolve'} against ${against}; use an absolute path`;
}

function names(list: string[]): string {
  return list.length === 1 ? list[0]! : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`;
}

/** The manifest as YAML that kubectl's YAML 1.1 reads the same: a name such as `on` is quoted (kubeconfig/yaml11.ts). */
async function toYaml(document: unknown): Promise<string> {
  const YAML = (await import('yaml')).default;
  return stringify11(YAML, document, { lineWidth: 0 });
}
