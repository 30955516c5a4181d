// The file a path a person gave (a kubeconfig, a kuberc) names, found as the kernel finds it but one
// name at a time, so that every symbolic link on the way is seen, not only the first: each must be
// the user's or root's, at most MAX_LINKS of them, as on the way to the cache directory (cache/dir.ts).
// Anyone may plant a link in /tmp or a directory they can write; written through, it would have us
// replace another file of the user's (made 0600, its text lost) while the report named the kubeconfig.
import { dirname, join, resolve } from 'node:path';

const MAX_LINKS = 40;

interface LinkFs {
  lstatSync(path: string): { uid: number; isSymbolicLink(): boolean };
  readlinkSync(path: string): string;
  realpathSync(path: string): string;
}

/** The file `path` names (every link followed), or the link that may not be followed and why. */
export type Followed = { file: string } | { refused: string };

/**
 * Follows the links of `path` (absolute) for the user `uid`. The walk ends at the first name that
 * does not exist: the file is created there. Where there are no uids (Windows), the system's own
 * resolution. A lookup that fails otherwise throws, for the caller's "cannot read".
 */
export function followOwnLinks(fs: LinkFs, path: string, uid: number | undefined): Followed {
  if (uid === undefined) {
    try {
      return { file: fs.realpathSync(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file: path };
      throw error;
    }
  }
  const names = resolve(path)
    .split('/')
    .filter((name) => name !== '' && name !== '.');
  let at = '/';
  let links = 0;
  while (names.length > 0) {
    const name = names.shift()!;
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, name);
    let stat: { uid: number; isSymbolicLink(): boolean };
    try {
      stat = fs.lstatSync(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file: join(next, ...names) };
      throw error;
    }
    if (!stat.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (stat.uid !== uid && stat.uid !== 0) {
      return {
        refused:
          next === path
            ? `${path} is a symbolic link owned by uid ${stat.uid}, not by you`
            : `${path} leads through ${next}, a symbolic link owned by uid ${stat.uid}, not by you`,
      };
    }
    if (++links > MAX_LINKS) return { refused: `${path} leads through more than ${MAX_LINKS} symbolic links` };
    const target = fs.readlinkSync(next);
    if (target.startsWith('/')) at = '/';
    names.unshift(...target.split('/').filter((part) => part !== '' && part !== '.'));
  }
  return { file: at };
}
