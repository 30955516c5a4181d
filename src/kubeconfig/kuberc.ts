// `kubeconfig --merge --kuberc`: the plugin allowed in kubectl's kuberc. From kubectl 1.35 a kuberc
// (kubectl.config.k8s.io/v1beta1 Preference) may set `credentialPluginPolicy: Allowlist`, and then
// kubectl runs only the exec plugins of `credentialPluginAllowlist`: entries whose `name` (1.35; 1.36
// also reads it, deprecated) or `command` (1.36) resolves by PATH lookup to the same path as the
// kubeconfig's command. So the entry is the absolute path that lookup finds. Other policies are left
// as the user set them: AllowAll (or none, the default) runs the plugin already, and turning DenyAll,
// or no policy, into an allowlist would stop every other plugin they use.
// The file rules of the kubeconfig merge: a bounded read, the Document API (comments and order kept),
// a temporary file renamed over it, through links only of the user's (links.ts).
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { readProblem, UsageError } from '../errors.js';
import { MAX_YAML_TOKENS, tooManyYamlTokens } from '../config/load.js';
import type { Deps } from '../use-case/deps.js';
import { followOwnLinks } from './links.js';
import { emptyDocument, notValidYaml } from './read.js';
import { replaceFile } from './replace-file.js';

type YamlModule = typeof import('yaml');

/** The kuberc kubectl reads: $KUBERC, else ~/.kube/kuberc. */
export function kubercPath(deps: Deps, cwd: string): string {
  const given = deps.env['KUBERC'];
  return given ? resolve(cwd, given) : join(deps.cache.homedir, '.kube', 'kuberc');
}

/**
 * The absolute path kubectl's lookup (Go's exec.LookPath) finds for `command`: a path with a
 * separator as it is (made absolute), else the first executable regular file of that name on PATH
 * (with PATHEXT's extensions where it is set: Windows).
 */
export function lookPath(command: string, deps: Deps, cwd: string): string | undefined {
  if (command.includes('/') || command.includes('\\')) return resolve(cwd, command);
  const extensions = [
    '',
    ...(deps.env['PATHEXT'] ?? '')
      .split(';')
      .filter((ext) => ext !== '')
      .map((ext) => ext.toLowerCase()),
  ];
  for (const dir of (deps.env['PATH'] ?? '').split(delimiter)) {
    // An empty PATH element is the working directory, which kubectl's lookup refuses.
    if (!dir || !isAbsolute(dir)) continue;
    for (const ext of extensions) {
      try {
        const stat = deps.cache.fs.statSync(join(dir, command + ext));
        if (stat.isFile() && (ext !== '' || (stat.mode & 0o111) !== 0)) return join(dir, command + ext);
      } catch {
        // Not there: the next one.
      }
    }
  }
  return undefined;
}

export type KubercOutcome = 'added' | 'present' | 'not-allowlist';

/** The kuberc text `existing` (undefined: no file) with `path` allowed; `policy` is what the file sets. */
export function allowInKuberc(
  YAML: YamlModule,
  existing: string | undefined,
  path: string,
  where: string,
): { text: string | undefined; outcome: KubercOutcome; policy: string } {
  if (existing === undefined || existing.trim() === '') return { text: existing, outcome: 'not-allowlist', policy: '' };
  if (tooManyYamlTokens(YAML, existing))
    throw new UsageError(
      'KUBERC_TOO_LARGE',
      `${where} is too large to change: more than ${MAX_YAML_TOKENS} YAML tokens`,
    );
  const doc = YAML.parseDocument(existing, { keepSourceTokens: false });
  if (doc.errors.length > 0) throw notValidYaml('KUBERC_INVALID', where, doc, 'fix it, or leave out --kuberc');
  if (emptyDocument(YAML, doc)) return { text: existing, outcome: 'not-allowlist', policy: '' };
  if (!YAML.isMap(doc.contents))
    throw new UsageError('KUBERC_INVALID', `${where} is not a kuberc (not a mapping); fix it, or leave out --kuberc`);
  const policy = doc.get('credentialPluginPolicy');
  if (policy !== 'Allowlist')
    return { text: existing, outcome: 'not-allowlist', policy: typeof policy === 'string' ? policy : '' };
  let list = doc.get('credentialPluginAllowlist', true);
  if (list === undefined || list === null || (YAML.isScalar(list) && list.value === null)) {
    doc.set('credentialPluginAllowlist', doc.createNode([]));
    list = doc.get('credentialPluginAllowlist', true);
  }
  if (!YAML.isSeq(list))
    throw new UsageError(
      'KUBERC_INVALID',
      `${where}: credentialPluginAllowlist is not a list; fix it, or leave out --kuberc`,
    );
  const entries = list.items.filter((item) => YAML.isMap(item));
  // An entry is a match when every field it sets matches: one that names this path alone is ours.
  const ours = (item: import('yaml').YAMLMap) => {
    const fields = ['name', 'command']
      .map((field) => item.get(field))
      .filter((value) => value !== undefined && value !== '');
    return fields.length > 0 && fields.every((value) => value === path);
  };
  if (entries.some(ours)) return { text: existing, outcome: 'present', policy };
  // The spelling the file uses already; else `name`, which both 1.35 and 1.36 read.
  const field =
    entries.some((item) => item.has('command')) && !entries.some((item) => item.has('name')) ? 'command' : 'name';
  list.add(doc.createNode({ [field]: path }));
  const indentSeq = !/^[A-Za-z-]+:[ \t]*\n-[ \t]/m.test(existing);
  return { text: doc.toString({ indentSeq, lineWidth: 0 }), outcome: 'added', policy };
}

/**
 * Reads and checks the kuberc for the plugin `command` (every failure is here, before the kubeconfig
 * is written); the function it returns writes it, and returns the note for stderr.
 */
export async function planKuberc(command: string, cwd: string, deps: Deps): Promise<() => string> {
  // KUBERC=off is kubectl's switch for no kuberc at all (not a file named off in the working directory).
  if (deps.env['KUBERC'] === 'off')
    return () => 'unchanged: KUBERC=off: kubectl reads no kuberc, so it runs every plugin, no allowlist needed';
  const where = kubercPath(deps, cwd);
  const path = lookPath(command, deps, cwd);
  if (path === undefined)
    throw new UsageError(
      'KUBERC_COMMAND_NOT_FOUND',
      `--kuberc: ${command} is not on the PATH, so kubectl's allowlist cannot name it; install it, or give --command <absolute path>`,
    );
  const YAML = (await import('yaml')).default;
  const fs = deps.cache.fs;
  let target = where;
  let existing: string | undefined;
  let owner: { uid: number; gid: number } | undefined;
  try {
    const followed = followOwnLinks(fs, where, deps.cache.uid);
    if ('refused' in followed)
      throw new UsageError('KUBERC_UNTRUSTED', `${followed.refused}; refusing to write through it`);
    target = followed.file;
    existing = deps.readFile(target);
    owner = fs.statSync(target);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError('KUBERC_UNREADABLE', `cannot read ${where}: ${readProblem(error)}`, { cause: error });
  }
  const { text, outcome, policy } = allowInKuberc(YAML, existing, path, where);
  if (outcome === 'not-allowlist') {
    if (existing === undefined)
      return () => `unchanged: ${where} does not exist: kubectl runs every plugin, no allowlist needed`;
    if (policy === 'DenyAll')
      return () =>
        `note: ${where} sets credentialPluginPolicy: DenyAll, so kubectl runs no plugin; left as it is (to allow this one: credentialPluginPolicy: Allowlist and the entry name: ${path})`;
    return () =>
      `unchanged: ${where} sets credentialPluginPolicy: ${policy || '(none)'}: kubectl runs every plugin, no allowlist needed`;
  }
  if (outcome === 'present') return () => `unchanged: ${where} allows ${path} already`;
  return () => {
    // Read again at the moment of writing (read, change and rename with no await between): another
    // merge may have added its entry since the plan read the file, and would be lost otherwise.
    let current: string | undefined;
    try {
      current = deps.readFile(target);
    } catch {
      current = undefined;
    }
    const fresh = current === existing ? { text, outcome } : allowInKuberc(YAML, current, path, where);
    if (fresh.outcome === 'present') return `unchanged: ${where} allows ${path} already`;
    if (fresh.outcome === 'not-allowlist')
      return `unchanged: ${where} no longer sets credentialPluginPolicy: Allowlist`;
    try {
      replaceFile(target, fresh.text!, owner, deps);
    } catch (error) {
      throw new UsageError('KUBERC_UNWRITABLE', `cannot write ${where}: ${readProblem(error)}`, { cause: error });
    }
    return `wrote ${path} to credentialPluginAllowlist in ${target === where ? where : `${target} (${where} is a link to it)`}`;
  };
}
