// Single flight across processes: the first cold caller creates <key>.lock with O_EXCL and fetches;
// the others poll until the entry appears or the lock goes. The holder writes into the lock its pid,
// its host, its own deadline and whether it is a login's (which waits on a person): a fetch's lock is
// rewritten in place as a login's, with the login's deadline, when its holder starts asking a person
// (until then an interactive call is a fetch like any other). A lock is taken
// over (by one waiter: the breaker renames it away and checks it moved that very file) when its
// holder died (a pid of this host and pid namespace that is gone), or once the deadline it wrote has
// passed, or, for a lock that names no deadline, once it is older than any fetch may take. A live
// holder within its deadline is never taken over: a waiter whose own deadline ends first gives up
// (SPEC "Cache"). A login's lock is never taken over while its holder lives.
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
  /**
   * Rewrites our lock, the same file, as a login's with `deadline` (right before a person is asked);
   * false when it is ours no more (taken over) or cannot be rewritten in place.
   */
  toLogin: (deadline: number) => boolean;
}

/** Who holds a lock, as it says: `since` its file's time (ms), `deadline` the one it wrote (ms), if any. */
export interface Holder {
  pid: number | undefined;
  since: number;
  deadline: number | undefined;
  login: boolean;
}

/**
 * `tookOver`: the lock was a live holder's whose deadline had passed. `busy`: a live holder holds it
 * and `onHolder` said not to wait. `timeout`: given up, with the live holder waited for, if any.
 */
export type LockOutcome =
  | { kind: 'acquired'; lock: Lock; tookOver: boolean }
  | { kind: 'ready' }
  | { kind: 'busy'; holder: Holder }
  | { kind: 'timeout'; holder?: Holder };

export interface LockOptions {
  /** Our own deadline (ms): written into our lock, and by default how long we wait on a live holder. */
  deadline: number;
  /** Our lock is a login's: it may wait on a person, and is never taken over while we live. */
  login?: boolean;
  /** A lock that names no deadline (an older version's) is taken over past this age. */
  staleAfterMs: number;
  /** How long a lock we cannot judge (not ours: planted) is waited on before we go without it. */
  patienceMs: number;
  /** Whether the entry another process was fetching is there. */
  ready: () => boolean;
  /** Asked at each look at a live holder: until when to wait on it (ms), or 'leave' to return 'busy' at once. */
  onHolder?: (holder: Holder) => number | 'leave';
}

/** doctor's view of a key's lock. */
export type LockView =
  | { kind: 'none' }
  | { kind: 'held'; pid: string; holder: 'alive' | 'gone' | 'elsewhere' }
  | { kind: 'untrusted'; why: string };

const POLL_MS = 25;
/** A holder past its deadline is given this long to release (its report, its last write). */
const GRACE_MS = 1_000;
/** No holder's deadline lies further than this from its lock's time (a login's bound, 15 min, and some). */
const MAX_HOLD_MS = 16 * 60_000;

export function lockPath(dir: string, key: string): string {
  return join(dir, `${key}.lock`);
}

/**
 * Takes the lock, or waits until `ready()` says the entry another process was fetching is there.
 * A live holder is waited on until our deadline (or what onHolder says), never taken over before its
 * own deadline passed; a dead holder's lock is taken over at once, by one waiter. A lock we cannot
 * judge is waited on for `patienceMs`, then we go without it.
 */
export async function acquire(dir: string, key: string, options: LockOptions, deps: LockDeps): Promise<LockOutcome> {
  const path = lockPath(dir, key);
  const started = deps.now();
  for (;;) {
    const lock = tryCreate(path, options, deps);
    if (lock) return { kind: 'acquired', lock, tookOver: false };
    if (options.ready()) return { kind: 'ready' };
    const judged = judge(path, options.staleAfterMs, deps);
    if (judged === 'gone') continue;
    if (judged && judged.stale) {
      // One that cannot be moved (a read-only mount, an immutable file) would be judged again at
      // once, for ever: we go without it, as past a lock we cannot judge.
      if (!breakLock(path, judged, deps)) return { kind: 'timeout' };
      const lock = tryCreate(path, options, deps);
      if (lock) return { kind: 'acquired', lock, tookOver: judged.stale === 'expired' };
      continue;
    }
    let end: number;
    if (judged) {
      const until = options.onHolder?.(judged.holder) ?? options.deadline;
      if (until === 'leave') return { kind: 'busy', holder: judged.holder };
      end = until;
    } else end = Math.min(options.deadline, started + options.patienceMs);
    if (deps.now() + POLL_MS >= end) return judged ? { kind: 'timeout', holder: judged.holder } : { kind: 'timeout' };
    await deps.sleep(POLL_MS);
  }
}

function tryCreate(path: string, options: Pick<LockOptions, 'deadline' | 'login'>, deps: LockDeps): Lock | undefined {
  let fd: number;
  try {
    fd = deps.fs.openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
  const line = (deadline: number, login: boolean) =>
    `${deps.pid} ${deps.host?.() ?? ''} ${Math.round(deadline)} ${login ? 'login' : 'fetch'}\n`;
  let content = line(options.deadline, options.login === true);
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
    toLogin: (deadline) => {
      const next = line(deadline, true);
      // In place, over as many bytes: a waiter never reads a shorter or a truncated lock.
      if (released || Buffer.byteLength(next) !== Buffer.byteLength(content)) return false;
      let fd: number;
      try {
        fd = deps.fs.openSync(
          path,
          deps.fs.constants.O_RDWR | deps.fs.constants.O_NOFOLLOW | deps.fs.constants.O_NONBLOCK,
        );
      } catch {
        return false;
      }
      try {
        // Only our own lock: a waiter may have taken it over (past our deadline) and hold its own now.
        const mine = Buffer.from(content);
        const found = new Uint8Array(mine.length + 1);
        if (
          deps.fs.fstatSync(fd).ino !== ino ||
          deps.fs.readSync(fd, found, 0, found.length, 0) !== mine.length ||
          !mine.equals(found.subarray(0, mine.length))
        )
          return false;
        if (deps.fs.writeSync(fd, next, 0) !== Buffer.byteLength(next)) return false;
        content = next;
        return true;
      } catch {
        return false;
      } finally {
        deps.fs.closeSync(fd);
      }
    },
  };
}

interface Judged {
  ino: number;
  mtimeMs: number;
  text: string;
}

/** What a lock says: `pid host deadline kind`, the last two absent in an older version's. */
function parseLock(text: string, since: number): Holder & { host: string | undefined } {
  const [pidText, host, deadlineText, kind] = text.trim().split(' ');
  const pid = Number.parseInt(pidText ?? '', 10);
  const deadline = /^\d{1,16}$/.test(deadlineText ?? '') ? Number(deadlineText) : undefined;
  return {
    pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
    host,
    since,
    deadline: deadline === undefined ? undefined : Math.min(deadline, since + MAX_HOLD_MS),
    login: kind === 'login',
  };
}

/**
 * The lock as judged (its inode, time, content and holder) and whether, and why, it is stale; 'gone'
 * once released; undefined when it is not ours (planted: past our patience we fetch without it).
 */
function judge(
  path: string,
  staleAfterMs: number,
  deps: LockDeps,
): (Judged & { holder: Holder; stale: false | 'dead' | 'expired' }) | 'gone' | undefined {
  let judged: Judged;
  try {
    const { ino, mtimeMs } = deps.fs.lstatSync(path);
    judged = { ino, mtimeMs, text: readPrivateFile(deps.fs, path, deps.uid, 256) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
  const { host, ...holder } = parseLock(judged.text, judged.mtimeMs);
  return { ...judged, holder, stale: staleness(holder, host, staleAfterMs, deps) };
}

function staleness(
  holder: Holder,
  host: string | undefined,
  staleAfterMs: number,
  deps: LockDeps,
): false | 'dead' | 'expired' {
  const now = deps.now();
  const age = now - holder.since;
  // An empty pid means the owner died between creating the file and writing to it; give it a moment.
  if (holder.pid === undefined) return Math.abs(age) > 1000 ? 'dead' : false;
  // A pid from another host or container says nothing here: only the deadline (or age) decides then.
  const here = deps.host?.();
  const local = here !== undefined && here !== '' && host === here;
  // Our own pid is not us (we failed to create the lock just now): a dead holder whose pid we reuse.
  if (local && (holder.pid === deps.pid || !deps.alive(holder.pid))) return 'dead';
  // A login waits on a person: a second process would prompt too.
  if (local && holder.login) return false;
  // A lock stamped in our future: a clock jump, or a planted file. Another host's is judged dead past
  // 5 s; this host's only past any holder's bound, after its pid: the stamp is the file server's clock
  // (NFS), which may run ahead of ours while the holder lives (test/cache/lock-clocks.test.ts).
  if (age < (local ? -MAX_HOLD_MS : -5_000)) return 'dead';
  if (holder.deadline !== undefined) return now > holder.deadline + GRACE_MS ? 'expired' : false;
  // An older version's lock, with no deadline: no holder lives longer than a fetch.
  return age > staleAfterMs ? 'expired' : false;
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
    same =
      moved.ino === judged.ino &&
      moved.mtimeMs === judged.mtimeMs &&
      readPrivateFile(deps.fs, aside, deps.uid, 256) === judged.text;
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

/**
 * The holder of a key's lock when a waiter would wait on it (alive, within the deadline it wrote),
 * else undefined: no lock, a stale one, one not ours, or an older version's with no deadline.
 */
export function liveHolder(dir: string, key: string, deps: LockDeps): Holder | undefined {
  // The age rule is for locks with no deadline, which are never returned: any value does.
  const judged = judge(lockPath(dir, key), 0, deps);
  return judged && judged !== 'gone' && !judged.stale && judged.holder.deadline !== undefined
    ? judged.holder
    : undefined;
}

/** doctor's look at a key's lock: whose it is and whether its holder lives, as isStale() would judge. */
export function readLock(dir: string, key: string, deps: Pick<LockDeps, 'fs' | 'uid' | 'host' | 'alive'>): LockView {
  let text: string;
  try {
    text = readPrivateFile(deps.fs, lockPath(dir, key), deps.uid, 256);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? { kind: 'none' }
      : { kind: 'untrusted', why: code ?? (error instanceof Error ? error.message : 'unreadable') };
  }
  const { pid, host } = parseLock(text, 0);
  const here = deps.host?.();
  const local = pid !== undefined && here !== undefined && here !== '' && host === here;
  return {
    kind: 'held',
    pid: pid === undefined ? '?' : String(pid),
    holder: !local ? 'elsewhere' : deps.alive(pid) ? 'alive' : 'gone',
  };
}
