// The context names shell completion offers for --context: read from the kubeconfigs kubectl reads
// ($KUBECONFIG's files, else ~/.kube/config, or the --kubeconfig given), with the bounded reader and
// the merge's bounded parse. A completion script hands these words to its shell (bash's compgen -W
// expands what it is given), and a kubeconfig may be anyone's: only names of plain characters are
// offered, never one that a shell could read as code. Quiet: an unreadable file offers nothing.
import { delimiter, join, resolve } from 'node:path';
import type { Deps } from '../use-case/deps.js';
import { contextNames } from './merge.js';
import { KUBECONFIG_MAX_BYTES } from './read.js';

/** Characters a completion word may hold: none a shell expands, quotes or splits on. */
const SAFE_NAME = /^[A-Za-z0-9._:@/+=,%~-]{1,253}$/;
/** More would be no help in a completion list. */
const MAX_NAMES = 1000;
const MAX_FILES = 16;

export async function kubeconfigContexts(kubeconfig: string | undefined, cwd: string, deps: Deps): Promise<string[]> {
  const listed = (deps.env['KUBECONFIG'] ?? '').split(delimiter).filter((path) => path !== '');
  const files =
    kubeconfig !== undefined
      ? [kubeconfig]
      : listed.length > 0
        ? listed.slice(0, MAX_FILES)
        : [join(deps.cache.homedir, '.kube', 'config')];
  const YAML = (await import('yaml')).default;
  const names = new Set<string>();
  for (const file of files) {
    let text: string;
    try {
      text = deps.readFile(resolve(cwd, file), KUBECONFIG_MAX_BYTES);
    } catch {
      continue;
    }
    for (const name of contextNames(YAML, text)) if (SAFE_NAME.test(name) && names.size < MAX_NAMES) names.add(name);
  }
  return [...names];
}
