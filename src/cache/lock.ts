// Single flight across processes: the first cold caller creates <key>.lock with O_EXCL and fetches;
// the others poll until the entry appears or the lock goes. A lock whose owner died (SIGKILL while
// fetching or writing) is recovered: it is older than any fetch may take, its mtime is in the
// future, or, when it was written on this very host and pid namespace, its pid is gone. A live
// holder's lock is taken over too, once it outlasts the waiter's patience (acquire: its fetch hangs).
// Two waiters never both break one lock: the breaker renames it away and checks it moved that very file.
import { join } from 'node:path';
import { readPrivateFile, type CacheFs } from './store.js';

export interface LockDeps {
  fs: CacheFs;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  pid: number;
  /** true when a process with this pid exists on this host. */
  alive: (pid: number) => boolean;
  /**
   * This host and pid namespace (boot id + namespace inode): a pid only means something to a
   * process that shares them, not across containers sharing a cache volume.
   */
  host?: () => string;
  uid?: number;
  /** A name part no other process will pick. */
  unique: () => string;
}

interface Lock {
  release: () => void;
}

/** `tookOver`: the lock was a live holder's that kept it past our patience (its fetch hangs). */
export type LockOutcome = { kind: 'acquired'; lock: Lock; tookOver: boolean } | { kind: 'ready' } | { kind: 'timeout' };

export interface LockOptions {
  waitUntil: number;
  staleAfterMs: number;
  patienceMs: number;
  ready: () => boolean;
}

/** doctor's view of a key's lock. */
export type LockView = { kind: 'none' } | { kind: 'held'; pid: string; holder: 'alive' | 'gone' | 'elsewhere' } | { kind: 'untrusted'; why: string };

const POLL_MS = 25;

export function lockPath(dir: string, key: string): string {
  return join(dir, `${key}.lock`);
}

/**
 * Takes the lock, or waits until `ready()` says the entry another process was fetching is there.
 * Single flight holds while the holder lives: a live holder's lock is taken over only once it is
 * older than `patienceMs` and we waited that long (its fetch hangs), and then by one waiter
 * (breakLock): the others see the new holder's young lock and wait on. A dead holder's lock, or one older than `staleAfterMs`, is
 * taken over at once, again by one. Gives up at `waitUntil` (the waiter's own deadline).
 */
export async function acquire(
  dir: string,
  key: string,
  options: LockOptions,
  deps: LockDeps,
): Promise<LockOutcome> {
  const path = lockPath(dir, key);
  const started = deps.now();
  let tookOver = false;
  for (;;) {
    const lock = tryCreate(path, deps);
    if (lock) return { kind: 'acquired', lock, tookOver };
    if (options.ready()) return { kind: 'ready' };
    const judged = judge(path, options.staleAfterMs, deps);
    if (judged === 'gone') continue;
    // A live holder is given our patience twice over: we wait that long ourselves (a late arrival on a
    // busy machine does not judge a holder by the time it had before us), and its lock is that old.
    const patient = deps.now() - started >= options.patienceMs && deps.now() - (judged ? judged.mtimeMs : 0) >= options.patienceMs;
    if (judged && (judged.stale || patient)) {
      if (!judged.stale) tookOver = true;
      // One that cannot be moved (a read-only mount, an immutable file) would be judged again at
      // once, for ever: we go without it, as past a lock we cannot judge.
      if (!breakLock(path, judged, deps)) return { kind: 'timeout' };
      continue;
    }
    // A lock we cannot judge (not ours: planted) is never broken: past our patience we go without it.
    const end = judged ? options.waitUntil : Math.min(options.waitUntil, started + options.patienceMs);
    if (deps.now() + POLL_MS >= end) return { kind: 'timeout' };
    await deps.sleep(POLL_MS);
  }
}

function tryCreate(path: string, deps: LockDeps): Lock | undefined {
  let fd: number;
  try {
    fd = deps.fs.openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  const content = `${deps.pid} ${deps.host?.() ?? ''}\n`;
  let ino: number;
  try {
    // A full file system (ENOSPC) creates the file and refuses its content: a lock nobody can
    // judge would make every caller wait on it. It is removed, and the call goes on without it.
    const written = deps.fs.writeSync(fd, content);
    if (written !== Buffer.byteLength(content)) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    ino = deps.fs.fstatSync(fd).ino;
  } catch (error) {
    try {
      deps.fs.unlinkSync(path);
    } catch {
      // Already recovered by a waiter.
    }
    throw error;
  } finally {
    deps.fs.closeSync(fd);
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      try {
        // Only our own lock: a waiter may have taken it over (our fetch hung) and hold its own now.
        if (deps.fs.lstatSync(path).ino !== ino || readPrivateFile(deps.fs, path, deps.uid, 256) !== content) return;
        deps.fs.unlinkSync(path);
      } catch {
        // Already recovered by another process as stale.
      }
    },
  };
}

interface Judged {
  ino: number;
  mtimeMs: number;
  text: string;
}

/**
 * The lock as judged (its inode, time and content) and whether it is stale; 'gone' once released;
 * undefined when it is not ours (planted: past our patience we fetch without it).
 */
function judge(path: string, staleAfterMs: number, deps: LockDeps): (Judged & { stale: boolean }) | 'gone' | undefined {
  let judged: Judged;
  try {
    const { ino, mtimeMs } = deps.fs.lstatSync(path);
    judged = { ino, mtimeMs, text: readPrivateFile(deps.fs, path, deps.uid, 256) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
  return { ...judged, stale: isStale(judged, staleAfterMs, deps) };
}

function isStale(judged: Judged, staleAfterMs: number, deps: LockDeps): boolean {
  const { mtimeMs: mtime, text } = judged;
  const age = deps.now() - mtime;
  // No holder lives longer than a fetch; a future mtime is a clock jump or a planted file.
  if (age > staleAfterMs || age < -5_000) return true;
  const [pidText, host] = text.trim().split(' ');
  const owner = Number.parseInt(pidText ?? '', 10);
  // An empty pid means the owner died between creating the file and writing to it; give it a moment.
  if (!Number.isInteger(owner) || owner <= 0) return age > 1000;
  // A pid from another host or container says nothing here: only the age decides then.
  const here = deps.host?.();
  if (!here || host !== here) return false;
  // Our own pid is not us (we failed to create the lock just now): a dead holder whose pid we reuse.
  return owner === deps.pid || !deps.alive(owner);
}

/**
 * Removes the lock judged stale (or kept past patience); false when it cannot be moved. Renamed away first: of two waiters that judged the same lock,
 * only the one whose rename moved that very file (inode, time and content: an inode number is
 * reused at once) removes it; one that moved a fresh lock (taken in between) puts it back.
 */
function breakLock(path: string, judged: Judged, deps: LockDeps): boolean {
  const aside = `${path}.${deps.unique()}.broken`;
  try {
    deps.fs.renameSync(path, aside);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'; // Another waiter moved it first; else it cannot be moved.
  }
  let same = false;
  try {
    const moved = deps.fs.lstatSync(aside);
    same = moved.ino === judged.ino && moved.mtimeMs === judged.mtimeMs && readPrivateFile(deps.fs, aside, deps.uid, 256) === judged.text;
  } catch {
    same = false;
  }
  if (!same) {
    try {
      deps.fs.linkSync(aside, path);
    } catch {
      // A newer lock is in place already: the one we moved is its holder's no more.
    }
  }
  try {
    deps.fs.unlinkSync(aside);
  } catch {
    // Nothing to clean up.
  }
  return true;
}

/** doctor's look at a key's lock: whose it is and whether its holder lives, as isStale() would judge. */
export function readLock(
  dir: string,
  key: string,
  deps: Pick<LockDeps, 'fs' | 'uid' | 'host' | 'alive'>,
): LockView {
  let text: string;
  try {
    text = readPrivateFile(deps.fs, lockPath(dir, key), deps.uid, 256);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { kind: 'none' } : { kind: 'untrusted', why: code ?? (error instanceof Error ? error.message : 'unreadable') };
  }
  const [pid, host] = text.trim().split(' ');
  const owner = Number.parseInt(pid ?? '', 10);
  const here = deps.host?.();
  const local = Number.isInteger(owner) && owner > 0 && here !== undefined && here !== '' && host === here;
  return { kind: 'held', pid: pid ?? '?', holder: !local ? 'elsewhere' : deps.alive(owner) ? 'alive' : 'gone' };
}
