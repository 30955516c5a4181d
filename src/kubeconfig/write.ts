// The kubeconfig --merge writes, as a file: kubectl's lock taken, the file read under its bound, the
// merged text written atomically (replace-file.ts) with mode 0600, through links only of the user's (links.ts).
import { dirname } from 'node:path';
import { readProblem, UsageError } from '../errors.js';
import type { Deps } from '../use-case/deps.js';
import { followOwnLinks } from './links.js';
import { KUBECONFIG_MAX_BYTES } from './read.js';
import { replaceFile } from './replace-file.js';

/** How long a merge waits for another writer's lock: merges take well under a second each. */
const LOCK_PATIENCE_MS = 5000;

/**
 * Runs `write` holding kubectl's lock on the kubeconfig (client-go's `<file>.lock`, created
 * exclusively): two merges, or a merge and `kubectl config set-context`, started together would
 * otherwise each rename their own copy over the file and lose the other's entries. The lock is
 * created without following a link; one that stays (a writer that died) is named, not taken.
 */
export async function withKubeconfigLock<T>(path: string, deps: Deps, write: () => T): Promise<T> {
  const fs = deps.cache.fs;
  const lock = `${path}.lock`;
  for (let waited = 0; ; waited += 25) {
    try {
      fs.mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new UsageError('KUBECONFIG_UNWRITABLE', `cannot write ${path}: ${readProblem(error)}`, { cause: error });
      if (waited >= LOCK_PATIENCE_MS)
        throw new UsageError(
          'KUBECONFIG_LOCKED',
          `${lock} exists: kubectl or another webapi-credential is writing ${path}; remove ${lock} if none is`,
        );
      await deps.cache.sleep(25);
    }
  }
  try {
    return write();
  } finally {
    try {
      fs.unlinkSync(lock);
    } catch {
      // Gone already: nothing to release.
    }
  }
}

/**
 * Reads the kubeconfig at `path` (absent: undefined), writes what `merge` makes of it atomically
 * (a temporary file in the same directory, mode 0600, renamed over it). A symbolic link stays one:
 * the file it leads to is replaced, when every link on the way is the user's (links.ts). Returns the
 * file written (or that would have been: nothing is written when nothing changed), and its old mode
 * when that let others in.
 */
export function writeMerged(
  path: string,
  merge: (existing: string | undefined) => string,
  deps: Deps,
): { file: string; narrowedFrom?: number } {
  const fs = deps.cache.fs;
  let target = path;
  let existing: string | undefined;
  let owner: { uid: number; gid: number; mode: number } | undefined;
  try {
    const followed = followOwnLinks(fs, path, deps.cache.uid);
    if ('refused' in followed)
      throw new UsageError(
        'KUBECONFIG_UNTRUSTED',
        `${followed.refused}; refusing to write through it: choose another file with --merge <file>`,
      );
    target = followed.file;
    // The bounded reader: a kubeconfig is a regular file, of 2 MB for a thousand clusters with their CAs.
    existing = deps.readFile(target, KUBECONFIG_MAX_BYTES);
    owner = fs.statSync(target);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      throw new UsageError('KUBECONFIG_UNREADABLE', `cannot read ${path}: ${readProblem(error)}`, { cause: error });
  }
  const text = merge(existing);
  if (text === existing) return { file: target };
  try {
    fs.mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
    replaceFile(target, text, owner, deps);
  } catch (error) {
    throw new UsageError('KUBECONFIG_UNWRITABLE', `cannot write ${path}: ${readProblem(error)}`, { cause: error });
  }
  const mode = owner === undefined ? 0o600 : owner.mode & 0o777;
  return mode & 0o077 ? { file: target, narrowedFrom: mode } : { file: target };
}
