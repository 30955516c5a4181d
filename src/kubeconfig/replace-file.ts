// A user's file (a kubeconfig, a kuberc) replaced as kubectl's readers expect: the whole new text or
// the old one, never half of either, and still the user's when root wrote it.
import { basename, dirname, join } from 'node:path';
import type { Deps } from '../use-case/deps.js';

/** The owner of the file being replaced (its stat), when there was one. */
export interface FileOwner {
  uid: number;
  gid: number;
}

/**
 * Writes `text` to a temporary file of mode 0600 beside `target` (created exclusively, so a planted
 * name is never written through) and renames it over `target`. Root (sudo keeping HOME) replacing a
 * user's file leaves it theirs, as kubectl's in-place write does. The temporary file never stays; the
 * error is the caller's to word.
 */
export function replaceFile(
  target: string,
  text: string,
  owner: FileOwner | undefined,
  deps: Pick<Deps, 'cache'>,
): void {
  const { fs } = deps.cache;
  const temporary = join(dirname(target), `.${basename(target)}.${deps.cache.unique()}.tmp`);
  try {
    fs.writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    if (owner !== undefined && deps.cache.uid === 0 && (owner.uid !== 0 || owner.gid !== 0))
      fs.chownSync(temporary, owner.uid, owner.gid);
    fs.renameSync(temporary, target);
  } catch (error) {
    try {
      fs.unlinkSync(temporary);
    } catch {
      // Not created, or renamed already.
    }
    throw error;
  }
}
