// The cache directory: the part of node:fs the cache uses, and the trust rules of the directory
// and of every directory on the way to it (SPEC "Cache": the cache trusts nothing by name). store.ts
// reads and writes the files in it.
import { dirname, isAbsolute, join } from 'node:path';

interface Stat {
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  mtimeMs: number;
  ino: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** The subset of node:fs the cache uses; main.ts passes the real one. */
export interface CacheFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string, options: { mode: number; flag: string }): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  linkSync(existing: string, path: string): void;
  mkdirSync(path: string, options: { recursive?: boolean; mode: number }): unknown;
  statSync(path: string): Stat;
  lstatSync(path: string): Stat;
  fstatSync(fd: number): Stat;
  realpathSync(path: string): string;
  readlinkSync(path: string): string;
  readdirSync(path: string): string[];
  openSync(path: string, flags: string | number, mode?: number): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  closeSync(fd: number): void;
  writeSync(fd: number, data: string, position?: number): number;
  /** kubeconfig --merge as root: the user's kubeconfig stays the user's. */
  chownSync(path: string, uid: number, gid: number): void;
  constants: { O_RDONLY: number; O_RDWR: number; O_NOFOLLOW: number; O_NONBLOCK: number };
}

/**
 * Creates the directory (mode 0700) when it is missing, then checks it can be trusted (see
 * untrusted()); throws with the reason when not. Nothing is created under a directory that cannot
 * be trusted, and nothing is chmodded or emptied: what the plugin did not create is not its to change.
 */
export function ensureDir(fs: CacheFs, dir: string, uid: number | undefined): void {
  if (uid !== undefined) {
    const above = untrustedPath(fs, dirname(absolute(fs, dir)), uid);
    if (above) throw new Error(above);
  }
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw causeOf(fs, dir, error);
  }
  const reason = untrusted(fs, dir, uid);
  if (reason) throw new Error(reason);
}

/**
 * The error that happened. A recursive mkdir that fails for another reason than it knows (EROFS on a
 * read-only mount) looks at the path and says ENOENT: it is not there. The first missing directory,
 * made alone, says why. Bounded by the path's depth.
 */
function causeOf(fs: CacheFs, dir: string, error: unknown): unknown {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error;
  let missing = absolute(fs, dir);
  for (let parent = dirname(missing); parent !== missing; missing = parent, parent = dirname(missing)) {
    try {
      fs.lstatSync(parent);
    } catch {
      continue;
    }
    try {
      fs.mkdirSync(missing, { mode: 0o700 });
    } catch (cause) {
      return cause;
    }
    break;
  }
  return error;
}

/** The fast path's read-only check: a directory that cannot be trusted is not read. */
export function privateDir(fs: CacheFs, dir: string, uid: number | undefined): boolean {
  try {
    return untrusted(fs, dir, uid) === undefined;
  } catch {
    return false;
  }
}

/**
 * Why `dir` cannot hold our credentials, or undefined when it can: it must be a real directory (not
 * a symbolic link) of ours, mode 0700 (unless `anyMode`: `cache clear` removes our files from a
 * directory whatever its mode), and nothing on the way to it may let another user swap it or what
 * is in it (untrustedPath()).
 */
export function untrusted(
  fs: CacheFs,
  dir: string,
  uid: number | undefined,
  { anyMode = false } = {},
): string | undefined {
  const stat = fs.lstatSync(dir);
  if (stat.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (uid === undefined) return undefined;
  if (stat.uid !== uid) return `${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  if (!anyMode && (stat.mode & 0o077) !== 0)
    return `${dir} has mode ${(stat.mode & 0o777).toString(8)}; the cache needs 700`;
  return untrustedPath(fs, dirname(absolute(fs, dir)), uid);
}

function absolute(fs: CacheFs, path: string): string {
  // A relative name is looked up from the working directory itself, whatever path led there.
  return isAbsolute(path) ? path : join(fs.realpathSync('.'), path);
}

const MAX_LINKS = 40;

/**
 * Why the way to `path` (an absolute path, itself included) could let another user swap what lies
 * below it, or undefined. Walked one name at a time from the root, following symbolic links by hand,
 * so that the check sees every directory a name is looked up in, not only the ones realpath ends in:
 * each must be root's or ours and not writable by others (a root-owned sticky directory such as /tmp
 * aside), and each link on the way root's or ours (in /tmp anyone can replace a link of their own).
 * The walk ends at the first name that does not exist: what mkdir makes below is ours.
 */
export function untrustedPath(fs: CacheFs, path: string, uid: number): string | undefined {
  const names = path.split('/').filter((name) => name !== '' && name !== '.');
  let at = '/';
  let problem = directoryProblem(fs.lstatSync(at), at, uid);
  let links = 0;
  while (problem === undefined && names.length > 0) {
    const name = names.shift()!;
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, name);
    let stat: Stat;
    try {
      stat = fs.lstatSync(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    if (stat.isSymbolicLink()) {
      if (stat.uid !== 0 && stat.uid !== uid) return `${next} above it is a symbolic link of uid ${stat.uid}`;
      if (++links > MAX_LINKS) return `${next} above it: too many symbolic links`;
      const target = fs.readlinkSync(next);
      if (target.startsWith('/')) at = '/';
      names.unshift(...target.split('/').filter((part) => part !== '' && part !== '.'));
      continue;
    }
    // Not a directory: the caller's own lookup fails (ENOTDIR) and says so.
    if (!stat.isDirectory()) return undefined;
    problem = directoryProblem(stat, next, uid);
    at = next;
  }
  return problem;
}

function directoryProblem(stat: Stat, path: string, uid: number): string | undefined {
  const sticky = (stat.mode & 0o1000) !== 0;
  const othersWrite = (stat.mode & 0o022) !== 0;
  if (stat.uid !== 0 && stat.uid !== uid) return `${path} above it belongs to uid ${stat.uid}`;
  if (othersWrite && !(stat.uid === 0 && sticky)) return `${path} above it is writable by others`;
  return undefined;
}

/** $XDG_CACHE_HOME/webapi-credential, else ~/.kube/cache/webapi-credential. */
export function defaultCacheDir(env: Record<string, string | undefined>, homedir: string): string {
  const xdg = env['XDG_CACHE_HOME'];
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg && xdg.startsWith('/')) return join(xdg, 'webapi-credential');
  return join(homedir, '.kube', 'cache', 'webapi-credential');
}
