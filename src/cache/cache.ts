// The cache as get-token sees it: look up, else fetch once for everybody, then store. Best effort
// throughout: a cache problem is a trace line and a fetch, never a failed command.
import type { CredentialStatus } from '../credential/exec-credential.js';
import { acquire, type LockDeps } from './lock.js';
import { ensureDir, ensureSecret, readEntry, writeEntry, type CacheFs } from './store.js';

export { defaultCacheDir } from './store.js';

export interface CacheDeps extends LockDeps {
  fs: CacheFs;
  trace: (line: string) => void;
  /** A name part no other process will pick for its temp file. */
  unique: () => string;
  /** This process's uid (undefined where there is none): the cache directory must be its own. */
  uid?: number;
  /** 32 random bytes, for the key of the keyed hashes. */
  randomBytes: () => Uint8Array;
}

/**
 * Makes the directory ready and returns the key of its keyed hashes, or undefined (with a trace)
 * when the directory cannot be trusted or used: then the call fetches without the cache.
 */
export function openCache(dir: string, deps: CacheDeps): Uint8Array | undefined {
  try {
    ensureDir(deps.fs, dir, deps.uid);
    return ensureSecret(deps.fs, dir, deps.uid, deps.randomBytes, deps.unique());
  } catch (error) {
    deps.trace(`cache: off for this call: ${error instanceof Error && !(error as NodeJS.ErrnoException).code ? error.message : `directory ${dir} is unusable (${errorCode(error)})`}`);
    return undefined;
  }
}

/** Longest a caller waits for another process's fetch before fetching itself. */
const MAX_WAIT_MS = 10_000;


export async function cached(
  dir: string,
  key: string,
  timing: { deadline: number; timeoutMs: number },
  fetch: () => Promise<CredentialStatus>,
  deps: CacheDeps,
): Promise<CredentialStatus> {
  const { fs, trace } = deps;
  const store = (status: CredentialStatus) => {
    if (!status.expirationTimestamp) {
      trace('cache: not storing a credential without a known expiry (set expiresIn, expiryPath or expiresInPath)');
      return;
    }
    try {
      writeEntry(fs, dir, key, status, deps.unique(), deps.now());
      trace('cache: stored');
    } catch (error) {
      trace(`cache: cannot store the entry (${errorCode(error)})`);
    }
  };

  const first = readEntry(fs, dir, key, deps.now(), deps.uid);
  if (first.hit) {
    trace('cache: hit');
    return first.status;
  }
  trace(`cache: miss (${first.reason})`);

  let outcome: Awaited<ReturnType<typeof acquire>> | { kind: 'unlockable' };
  try {
    outcome = await acquire(
      dir,
      key,
      {
        waitUntil: deps.now() + Math.min(MAX_WAIT_MS, (timing.deadline - deps.now()) / 2),
        // No holder lives longer than its own deadline; ours is the best guess we have of theirs.
        staleAfterMs: Math.max(timing.timeoutMs, 30_000) + 5_000,
        ready: () => readEntry(fs, dir, key, deps.now(), deps.uid).hit,
      },
      deps,
    );
  } catch (error) {
    trace(`cache: cannot lock (${errorCode(error)}); fetching without the lock`);
    outcome = { kind: 'unlockable' };
  }

  if (outcome.kind === 'timeout' || outcome.kind === 'unlockable') {
    if (outcome.kind === 'timeout') trace('cache: another process holds the lock too long; fetching without it');
    const status = await fetch();
    store(status);
    return status;
  }
  try {
    // Whoever held the lock before us may have stored the entry in the meantime.
    const again = readEntry(fs, dir, key, deps.now(), deps.uid);
    if (again.hit) {
      trace('cache: hit after waiting for another process');
      return again.status;
    }
    const status = await fetch();
    store(status);
    return status;
  } finally {
    if (outcome.kind === 'acquired') outcome.lock.release();
  }
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
