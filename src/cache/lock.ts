// Single flight across processes: the first cold caller creates <key>.lock with O_EXCL and fetches;
// the others poll until the entry appears or the lock goes. A lock whose owner died (SIGKILL while
// fetching or writing) is recovered: its pid is gone, or it is older than any fetch may take.
import { join } from 'node:path';
import type { CacheFs } from './store.js';

export interface LockDeps {
  fs: CacheFs;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  pid: number;
  /** true when a process with this pid exists on this host. */
  alive: (pid: number) => boolean;
}

export interface Lock {
  release: () => void;
}

export type LockOutcome = { kind: 'acquired'; lock: Lock } | { kind: 'ready' } | { kind: 'timeout' };

const POLL_MS = 25;

export function lockPath(dir: string, key: string): string {
  return join(dir, `${key}.lock`);
}

/**
 * Takes the lock, or waits until `ready()` says the entry another process was fetching is there.
 * Gives up at `waitUntil`; `staleAfterMs` bounds how long any holder may keep the lock.
 */
export async function acquire(
  dir: string,
  key: string,
  options: { waitUntil: number; staleAfterMs: number; ready: () => boolean },
  deps: LockDeps,
): Promise<LockOutcome> {
  const path = lockPath(dir, key);
  for (;;) {
    const lock = tryCreate(path, deps);
    if (lock) return { kind: 'acquired', lock };
    if (options.ready()) return { kind: 'ready' };
    if (isStale(path, options.staleAfterMs, deps)) {
      try {
        deps.fs.unlinkSync(path);
      } catch {
        // Another waiter removed it first.
      }
      continue;
    }
    if (deps.now() + POLL_MS >= options.waitUntil) return { kind: 'timeout' };
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
  try {
    deps.fs.writeSync(fd, `${deps.pid}\n`);
  } finally {
    deps.fs.closeSync(fd);
  }
  let released = false;
  return {
    release: () => {
      if (released) return;
      released = true;
      try {
        deps.fs.unlinkSync(path);
      } catch {
        // Already recovered by another process as stale.
      }
    },
  };
}

function isStale(path: string, staleAfterMs: number, deps: LockDeps): boolean {
  let mtime: number;
  let owner: number;
  try {
    mtime = deps.fs.statSync(path).mtimeMs;
    owner = Number.parseInt(deps.fs.readFileSync(path, 'utf8'), 10);
  } catch {
    return false; // Gone already, or unreadable: the next round decides.
  }
  if (deps.now() - mtime > staleAfterMs) return true;
  // An empty pid means the owner died between creating the file and writing to it; give it a moment.
  if (!Number.isInteger(owner) || owner <= 0) return deps.now() - mtime > 1000;
  // Our own pid is not us (we failed to create the lock just now): a dead holder whose pid we reuse,
  // as in a fresh container per call sharing the cache volume.
  return owner === deps.pid || !deps.alive(owner);
}
