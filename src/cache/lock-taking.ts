// How a call takes its key's lock (lock.ts does the taking): a fetch's options, a login's, and a
// command (login, logout) run under it whatever the entry holds.
import { RequestError, UsageError } from '../errors.js';
import type { LockDeps, LockOptions, LockOutcome } from './lock.js';
import type { Storage } from './storage.js';
import type { CacheEvent } from './events.js';

/** What taking a lock needs of the cache's deps (cache.ts CacheDeps). */
type TakingDeps = LockDeps & {
  trace: (line: string, framed?: boolean) => void;
  warn?: (line: string, framed?: boolean) => void;
};

/** Longest a lock that is not ours (planted) is waited on, and at most half the caller's time. */
const MAX_PATIENCE_MS = 10_000;

export type Timing = { deadline: number; timeoutMs: number; holdMs?: number };

/**
 * How a call takes the key's lock. A fetch's (get-token's, also when interactive: one that only
 * refreshes is taken over past its deadline like any, so a kubectl stopped with Ctrl-Z blocks nobody;
 * `cached` makes it a login's once a person is asked) waits on a live holder until its own deadline.
 * `login` (the login command: it asks a person now): a login's lock from the start, held up to the
 * login's bound and never taken over while it lives. Either waits on another terminal's login up to
 * that login's bound when interactive. `leave`: asked at a live holder, true to return 'busy' at once
 * (a credential in its margin window is served). `report`: a wait on another process's fetch is noted.
 */
export function lockOptions(
  timing: Timing,
  deps: TakingDeps,
  ready: () => boolean,
  {
    leave,
    login = false,
    report,
  }: { leave?: () => boolean; login?: boolean; report?: (event: CacheEvent) => void } = {},
): LockOptions {
  let toldLogin = false;
  let toldFetch = false;
  return {
    deadline:
      login && timing.holdMs !== undefined ? Math.max(timing.deadline, deps.now() + timing.holdMs) : timing.deadline,
    ...(login ? { login: true } : {}),
    // A lock planted by someone else is waited on this long at most, then we go without it.
    patienceMs: Math.min(MAX_PATIENCE_MS, (timing.deadline - deps.now()) / 2),
    // A lock of an older version names no deadline: no holder lives longer than its own, ours the best guess.
    staleAfterMs: Math.max(timing.timeoutMs, timing.holdMs ?? 0, 30_000) + 5_000,
    ready,
    onHolder: (holder) => {
      if (leave?.()) return 'leave';
      if (!holder.login) {
        if (report && !toldFetch) {
          toldFetch = true;
          report({
            kind: 'note',
            text: `waiting for process ${holder.pid ?? '?'}, which holds the lock${holder.deadline !== undefined ? ` until ${new Date(holder.deadline).toISOString()}` : ''}`,
          });
        }
        return timing.deadline;
      }
      if (!toldLogin) {
        toldLogin = true;
        const since = new Date(holder.since).toISOString().replace(/\.\d{3}Z$/, 'Z');
        (deps.warn ?? deps.trace)(
          `waiting for the login in another terminal (pid ${holder.pid ?? '?'}, since ${since})`,
          true,
        );
      }
      // Interactive, we wait as long as that login may (a person there is typing); else our own time.
      return timing.holdMs !== undefined
        ? Math.max(timing.deadline, holder.deadline ?? timing.deadline)
        : timing.deadline;
    },
  };
}

/**
 * Runs `work` holding the key's lock whatever the entry holds: `login` (a new login: a login's lock)
 * and `logout` (the refresh token read, revoked and removed: a fetch's), which a refresh in another
 * process must neither run beside nor undo. Without the lock where none can be had (a read-only
 * directory, a lock not ours past patience), as a fetch goes on then. A live holder that outlasts the
 * wait is an error naming it, and nothing is done. `command` names the caller.
 */
export async function underLock<T>(
  storage: Storage,
  key: string,
  timing: Timing,
  deps: TakingDeps,
  report: (event: CacheEvent) => void,
  command: string,
  work: () => Promise<T>,
): Promise<T> {
  let outcome: LockOutcome | { kind: 'unlockable' };
  try {
    outcome = await storage.lock(
      key,
      lockOptions(timing, deps, () => false, { login: timing.holdMs !== undefined, report }),
    );
  } catch (error) {
    report({ kind: 'note', text: `cannot lock (${errorCode(error)}); going on without the lock` });
    outcome = { kind: 'unlockable' };
  }
  if (outcome.kind === 'timeout' && outcome.holder) {
    const { pid, login } = outcome.holder;
    if (login)
      throw new UsageError(
        'LOGIN_IN_PROGRESS',
        `a login is in progress in another terminal (pid ${pid ?? '?'}): finish it there, then run again`,
        { framed: true },
      );
    const who = pid !== undefined ? `process ${pid}` : 'another process';
    throw new RequestError(
      'DEADLINE',
      `${command} waited --timeout ${timing.timeoutMs / 1000}s for ${who}, which was still fetching this config's credential: run ${command} again`,
      { framed: true },
    );
  }
  if (outcome.kind === 'timeout' || outcome.kind === 'busy')
    report({ kind: 'note', text: 'a lock that is not ours holds the key too long; going on without it' });
  if (outcome.kind === 'acquired' && outcome.tookOver)
    report({ kind: 'note', text: 'took over the lock of a live process whose own deadline had passed' });
  try {
    return await work();
  } finally {
    if (outcome.kind === 'acquired') outcome.lock.release();
  }
}

export function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
