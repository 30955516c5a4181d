// The cache as get-token sees it: look up, else fetch once for everybody, then store. Best effort
// throughout: a cache problem is a trace line and a fetch, never a failed command.
import type { CredentialStatus } from '../credential/exec-credential.js';
import { RequestError, UsageError } from '../errors.js';
import type { LockDeps, LockOutcome } from './lock.js';
import { errorCode, lockOptions, type Timing } from './lock-taking.js';
import {
  failureToRemember,
  isDeadline,
  isOutage,
  recalled,
  rememberedMessage,
  shownMessage,
  throughOutage,
  whileRefreshing,
} from './failure.js';
import type { CacheFs, HeldRefresh, Lookup, Replacing, Stale } from './store.js';
import type { Storage } from './storage.js';
import { reporter, type CacheEvent } from './events.js';
import { keptRefreshToken } from './kept-refresh.js';

export interface CacheDeps extends LockDeps {
  fs: CacheFs;
  /**
   * The cache's lines are the plugin's frame (framed: fixed words, times, pids, codes, the cache's
   * own paths), or a failure's message redacted as it would be shown (FailureMemory.redact).
   */
  trace: (line: string, framed?: boolean) => void;
  /** A name part no other process will pick for its temp file. */
  unique: () => string;
  /** This process's uid (undefined where there is none): the cache directory must be its own. */
  uid?: number;
  /** 32 random bytes, for the key of the keyed hashes. */
  randomBytes: () => Uint8Array;
  /** A line for people on stderr (served through an outage); the trace when absent. */
  warn?: (line: string, framed?: boolean) => void;
}

/** What a fetch gives the cache: the credential and its real expiry (ms; the reported one is earlier). */
export interface Fetched {
  status: CredentialStatus;
  expiresAt: number | undefined;
  /** A login's refresh token: kept in the entry, handed to the next fetch of the key (a secret). */
  refreshToken?: string;
}

/**
 * The refresh token the key's entry holds, handed to a fetch: it may use it without a person, and
 * drops it when the token endpoint refused it (the entry then no longer holds it, whatever follows).
 */
export interface Refresh {
  token: string;
  drop: () => void;
}

/**
 * A fetch of the credential, given the refresh token the entry holds, if any, and `asking`, to call
 * right before a person is asked (a login's prompt): the key's lock then says a login holds it.
 */
export type Fetch = (refresh?: Refresh, asking?: () => void) => Promise<Fetched>;

/**
 * Makes the directory ready and returns the key of its keyed hashes, or undefined (with a trace)
 * when the directory cannot be trusted or used: then the call fetches without the cache.
 */
export function openCache(
  storage: Storage,
  dir: string,
  deps: CacheDeps,
  report: (event: CacheEvent) => void,
): Uint8Array | undefined {
  try {
    return storage.open(deps.randomBytes);
  } catch (error) {
    report({
      kind: 'off',
      text: `off for this call: ${error instanceof Error && !(error as NodeJS.ErrnoException).code ? error.message : `directory ${dir} is unusable (${errorCode(error)})`}`,
    });
    return undefined;
  }
}

/** How the call's failures are remembered (cache/failure.ts): what to keep of one, 0 ms for nothing. */
export interface FailureMemory {
  ttlMs: number;
  /** The call's redaction of a message; `framed`: the plugin's frame (CredentialError.framed), checked for the secrets read. */
  redact: (text: string, framed: boolean) => string;
}

/**
 * The credential for `key`: a hit, else one fetch for every concurrent caller, stored. A failure of
 * that fetch is remembered and served the same way (thrown as its error). `entered` is told whenever
 * the key has an entry (found or stored), so that the caller can write the ref the fast path finds it by.
 */
export async function cached(
  storage: Storage,
  key: string,
  timing: Timing,
  fetch: Fetch,
  deps: CacheDeps,
  failures: FailureMemory = { ttlMs: 0, redact: (text) => text },
  entered: () => void = () => {},
  observe?: (event: CacheEvent) => void,
): Promise<CredentialStatus> {
  const report = reporter(deps.trace, observe);
  /** The refresh token as kept: its first time kept stays while the server sends the same one. */
  const keptRefresh = (token: string | undefined, held: HeldRefresh | undefined): HeldRefresh | undefined =>
    token === undefined ? undefined : { token, at: held?.token === token ? held.at : deps.now() };
  // The refresh token the entry holds as this call last knew it: what a write of another one replaces
  // (never backwards: one another process stored meanwhile stays).
  let inEntry: string | undefined;
  const store = ({ status, expiresAt, refreshToken }: Fetched, held: HeldRefresh | undefined) => {
    if (!status.expirationTimestamp) {
      report({
        kind: 'note',
        text: 'not storing a credential without a known expiry (set expiresIn, expiryPath or expiresInPath)',
      });
      // The refresh token it rotated is kept all the same: the one just used may be single-use.
      const refresh = keptRefresh(refreshToken, held);
      if (refresh) keepRefresh(storage, key, refresh, report, { held: inEntry });
      return;
    }
    try {
      // Never backwards: a credential another process stored meanwhile that lives longer stays.
      // Judged right before the rename (writeAtomic): our fetch and our write are behind us then.
      const refresh = keptRefresh(refreshToken, held);
      if (
        !storage.writeCredential(key, status, {
          ...(expiresAt !== undefined ? { expiresAt } : {}),
          ...(refresh ? { refresh } : {}),
          keep: storage.holdsLonger(key, status),
        })
      ) {
        report({ kind: 'note', text: 'kept the newer credential another process stored meanwhile' });
        entered();
        return;
      }
      report({ kind: 'stored', text: refreshToken !== undefined ? 'stored, with a refresh token' : 'stored' });
      entered();
    } catch (error) {
      report({ kind: 'note', text: `cannot store the entry (${errorCode(error)})` });
    }
  };
  /** A credential in its margin window, served through an outage: a note on stderr, and an event. */
  const servedThrough = (stale: Stale, message: string): CredentialStatus => {
    const { status, note } = throughOutage(stale, message, deps.now());
    (deps.warn ?? deps.trace)(note, true);
    report({
      kind: 'outage',
      expiresAt: stale.expiresAt,
      text: `served through an outage until ${status.expirationTimestamp}`,
    });
    entered();
    return status;
  };
  const fetchAndStore = async (asking?: () => void): Promise<CredentialStatus> => {
    let fetched: Fetched;
    // The refresh token the entry holds (an expired credential's, a failure's), until it is refused.
    let held = storage.read(key, deps.now()).refresh;
    inEntry = held?.token;
    const drop = () => {
      const refused: Replacing = { held: inEntry, refused: true };
      held = undefined;
      inEntry = undefined;
      try {
        // Its credential goes with it: served in its margin window (while another refreshes, or
        // through an outage), it would paper over a refusal, and the grant may have been revoked.
        storage.replaceRefresh(key, undefined, refused);
        report({
          kind: 'note',
          text: 'dropped the refresh token the token endpoint refused, and the credential of its grant',
        });
      } catch (error) {
        report({ kind: 'note', text: `cannot drop the refused refresh token (${errorCode(error)})` });
      }
    };
    try {
      fetched = await fetch(held ? { token: held.token, drop } : undefined, asking);
    } catch (error) {
      // A refresh token in the answer that failed (rotated, no credential in it): kept at once.
      const rotated = keptRefreshToken(error);
      if (rotated !== undefined) held = keptRefresh(rotated, held);
      // Never backwards: while this fetch failed, another process may have stored a credential.
      // It is served, and the failure neither remembered nor written over it. Asked again right
      // before the failure's rename (writeAtomic), for one stored while we wrote.
      const current = storage.read(key, deps.now());
      const storedMeanwhile = () => {
        report({ kind: 'hit', waited: true, text: 'hit: another process stored a credential while this fetch failed' });
        entered();
      };
      if (current.hit) {
        storedMeanwhile();
        return current.status;
      }
      const found = failureToRemember(error, failures.ttlMs, deps.now(), failures.redact);
      if (!found && isDeadline(error))
        report({ kind: 'note', text: "not remembering a failure of this call's own --timeout" });
      // An outage in the margin window: the credential is kept beside the failure, and served.
      const stale = isOutage(error) ? current.stale : undefined;
      // Remembered at most until the credential served through it really expires (the last whole
      // second before, as store.ts serves it): then one caller asks again, and nobody is told of a
      // failure while a credential exists; a failure of that request is remembered in full.
      const failure =
        found && stale ? { ...found, until: Math.min(found.until, Math.floor(stale.expiresAt / 1000) * 1000) } : found;
      if (failure) {
        let appeared: CredentialStatus | undefined;
        const credentialStored = () => {
          const now = storage.read(key, deps.now());
          appeared = now.hit ? now.status : undefined;
          return appeared !== undefined;
        };
        try {
          // The refresh token outlives an outage or a refusal of something else: the next fetch tries it.
          if (
            !storage.writeFailure(key, failure, {
              ...(stale ? { stale } : {}),
              ...(held ? { refresh: held } : {}),
              keep: credentialStored,
            }) &&
            appeared
          ) {
            storedMeanwhile();
            return appeared;
          }
          const forMs = failure.until - failure.at;
          report({ kind: 'remembered', forMs, text: `failure remembered for ${Math.round(forMs / 1000)}s` });
          entered();
        } catch (writeError) {
          report({ kind: 'note', text: `cannot remember the failure (${errorCode(writeError)})` });
        }
      } else if (rotated !== undefined && held) keepRefresh(storage, key, held, report, { held: inEntry });
      if (stale) return servedThrough(stale, shownMessage(error, failures));
      throw error;
    }
    store(fetched, held);
    return fetched.status;
  };
  /** A hit is returned, a remembered failure thrown; undefined for a miss. */
  const serve = (lookup: Lookup, waited: boolean): CredentialStatus | undefined => {
    const how = waited ? ' after waiting for another process' : '';
    if (lookup.hit) {
      report({ kind: 'hit', waited, text: `hit${how}` });
      entered();
      return lookup.status;
    }
    if (lookup.failure && lookup.stale)
      return servedThrough(lookup.stale, rememberedMessage(lookup.failure, deps.now()));
    if (lookup.failure) {
      const until = lookup.failure.until;
      report({
        kind: 'recalled',
        until,
        waited,
        text: `failure remembered until ${new Date(until).toISOString()}${how}`,
      });
      entered();
      throw recalled(lookup.failure, deps.now());
    }
    return undefined;
  };

  const first = storage.read(key, deps.now());
  const served = serve(first, false);
  if (served) return served;
  if (!first.hit) report({ kind: 'miss', reason: first.reason, text: `miss (${first.reason})` });
  // A credential in its margin window with nothing remembered beside it: while another process
  // refreshes it, it is served at once (stale-while-revalidate); only the lock holder waits on the API.
  // Read again once a holder is found: it may have dropped it meanwhile (a refused refresh token's).
  let servable = !first.hit && !first.failure ? first.stale : undefined;

  let outcome: LockOutcome | { kind: 'unlockable' };
  try {
    // A fetch's lock, with the call's deadline, also for an interactive call: one that only refreshes
    // is taken over past it like any fetch's (a kubectl stopped with Ctrl-Z blocks nobody). It is a
    // login's only once a person is asked (`asking` below).
    // Another process's fetch ends in an entry either way: a credential or a failure remembered.
    const ready = () => {
      const lookup = storage.read(key, deps.now());
      return lookup.hit || lookup.failure !== undefined;
    };
    outcome = await storage.lock(
      key,
      lockOptions(timing, deps, ready, {
        leave: () => {
          if (!servable) return false;
          const now = storage.read(key, deps.now());
          servable = !now.hit && !now.failure ? now.stale : undefined;
          return servable !== undefined;
        },
        report,
      }),
    );
  } catch (error) {
    report({ kind: 'note', text: `cannot lock (${errorCode(error)}); fetching without the lock` });
    outcome = { kind: 'unlockable' };
  }

  if (outcome.kind === 'busy' && servable) {
    const { status, text } = whileRefreshing(servable, outcome.holder.pid, deps.now());
    report({ kind: 'hit', waited: false, text });
    entered();
    return status;
  }
  if (outcome.kind === 'timeout' && outcome.holder) {
    const { holder } = outcome;
    // Whatever the holder got may have landed while we gave up.
    const late = serve(storage.read(key, deps.now()), true);
    if (late) return late;
    if (holder.login && timing.holdMs === undefined) {
      throw new UsageError(
        'LOGIN_IN_PROGRESS',
        `a login is in progress in another terminal (pid ${holder.pid ?? '?'}): finish it there, then run again`,
        { framed: true },
      );
    }
    // Our deadline, not the API's state: never remembered (failure.ts isDeadline). The holder lives
    // and its deadline is later than ours: it may still succeed, and we cannot do better.
    const who = holder.pid !== undefined ? `process ${holder.pid}` : 'another process';
    const error = new RequestError(
      'DEADLINE',
      `no credential within --timeout ${timing.timeoutMs / 1000}s: ${who} was still fetching it`,
      { framed: true },
    );
    const current = storage.read(key, deps.now());
    if (!current.hit && current.stale) return servedThrough(current.stale, shownMessage(error, failures));
    throw error;
  }
  if (outcome.kind === 'timeout' || outcome.kind === 'unlockable' || outcome.kind === 'busy') {
    if (outcome.kind !== 'unlockable')
      report({ kind: 'note', text: 'a lock that is not ours holds the key too long; fetching without it' });
    return fetchAndStore();
  }
  if (outcome.kind === 'acquired' && outcome.tookOver)
    report({ kind: 'note', text: 'took over the lock of a live process whose own deadline had passed' });
  const { holdMs } = timing;
  const lock = outcome.kind === 'acquired' ? outcome.lock : undefined;
  // A person is asked from now on: the lock says a login holds it, up to the login's bound, and
  // nobody takes it over while we live (a second process would prompt too).
  const asking = () => {
    if (holdMs === undefined || !lock || lock.toLogin(deps.now() + holdMs)) return;
    report({ kind: 'note', text: 'the lock was taken over before the login began; logging in without it' });
  };
  try {
    // Whoever held the lock before us may have stored the entry in the meantime.
    return serve(storage.read(key, deps.now()), true) ?? (await fetchAndStore(asking));
  } finally {
    if (outcome.kind === 'acquired') outcome.lock.release();
  }
}

/**
 * A refresh token written into the key's entry at once (SPEC: any 2xx answer's), the rest as it was;
 * undefined drops it. `from`: only in place of the one the caller held (storage.ts replaceRefresh).
 */
export function keepRefresh(
  storage: Storage,
  key: string,
  refresh: HeldRefresh | undefined,
  report: (event: CacheEvent) => void,
  from?: Replacing,
): void {
  try {
    storage.replaceRefresh(key, refresh, from);
  } catch (error) {
    report({ kind: 'note', text: `cannot keep the new refresh token (${errorCode(error)})` });
  }
}
