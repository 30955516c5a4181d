// A call through the cache (index.ts's through() and inspect()): the keys, the ref, single flight and
// failure memory. Run on a miss or by doctor; a cached credential only parses it (index.ts imports
// it statically, and says why).
import type { CredentialStatus } from '../credential/exec-credential.js';
import { cached, keepRefresh, openCache, type CacheDeps, type Fetch, type Fetched } from './cache.js';
import { underLock } from './lock-taking.js';
import { reporter, type CacheEvent, type CacheSlot } from './events.js';
import type { CacheCall, CacheView, Reads } from './inputs.js';
import { entryKey, inputsKey, refKey } from './key.js';
import { fileStorage } from './file-storage.js';
import type { LockDeps } from './lock.js';
import { dependencyDigest } from './ref.js';
import type { Storage } from './storage.js';

export async function throughCache(call: CacheCall, fetch: Fetch, deps: CacheDeps): Promise<CredentialStatus> {
  const report = reporter(deps.trace, call.observe);
  const storage = fileStorage(call.dir, deps);
  const secret = openCache(storage, call.dir, deps, report);
  const keys = secret ? keysOf(secret, call, storage, report) : undefined;
  if (!secret || !keys) return (await fetch()).status;
  const { dir } = call;
  const { ref, inputs, key, used, base } = keys;
  report({ kind: 'keyed', slot: { dir, key } });
  // Whether this call asked the token API (its steps ran), and what it got.
  let asked = false;
  let fetched: Fetched | undefined;
  const fetchOnce: Fetch = async (refresh, asking) => {
    asked = true;
    fetched = await fetch(refresh, asking);
    return fetched;
  };
  const enter = () => {
    try {
      // Lets the next call find this entry (a credential or a failure) without parsing and rendering
      // (ref.ts), with what this call read: after a fetch, what the steps' answers made the templates
      // read this time (not added to the last ref's: a path an answer names anew each time would grow
      // the list, and the files each call hashes, without end); after a hit, what the key was made of,
      // with the place it was made for.
      const place = asked ? baseOf(call) : base;
      storage.writeRef(ref, {
        inputs,
        ...(asked ? call.readSoFar() : used),
        insecure: call.insecure,
        ...(place !== undefined ? { base: place } : {}),
      });
    } catch (error) {
      report({
        kind: 'note',
        text: `cannot store the ref (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      });
    }
  };
  const timing = {
    deadline: call.deadline,
    timeoutMs: call.timeoutMs,
    ...(call.holdMs !== undefined ? { holdMs: call.holdMs } : {}),
  };
  if (call.fresh) {
    // A new login, under the key's lock as a login holds it: never beside another terminal's login,
    // nor a refresh that would store its own answer over this one. The refresh token the entry
    // held is replaced by the one it gives (or none).
    return underLock(storage, key, timing, deps, report, 'login', async () => {
      const { status, expiresAt, refreshToken } = await fetchOnce();
      if (!status.expirationTimestamp) {
        // No credential to store, but its refresh token is: the entry's next fetch refreshes with it.
        keepRefresh(
          storage,
          key,
          refreshToken !== undefined ? { token: refreshToken, at: deps.now() } : undefined,
          report,
        );
        return status;
      }
      try {
        storage.writeCredential(key, status, {
          ...(expiresAt !== undefined ? { expiresAt } : {}),
          ...(refreshToken !== undefined ? { refresh: { token: refreshToken, at: deps.now() } } : {}),
        });
        enter();
        report({ kind: 'stored', text: 'stored' });
      } catch (error) {
        report({
          kind: 'note',
          text: `cannot store the entry (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
        });
      }
      return status;
    });
  }
  const failures = { ttlMs: call.failureTtlMs, redact: call.redact };
  const status = await cached(storage, key, timing, fetchOnce, deps, failures, enter, call.observe);
  if (fetched) storeUnderLearnedKey(secret, call, inputs, used, fetched, storage, report);
  return status;
}

/** The slot of a call's entry, without creating the directory or its key: undefined when the cache holds none (logout). */
export function slotOf(call: CacheCall, deps: CacheDeps): CacheSlot | undefined {
  const storage = fileStorage(call.dir, deps);
  const secret = storage.secret();
  const keys = secret ? keysOf(secret, call, storage, reporter(deps.trace, call.observe)) : undefined;
  return keys ? { dir: call.dir, key: keys.key } : undefined;
}

export function inspectSlot(slot: CacheSlot, deps: LockDeps): CacheView {
  const storage = fileStorage(slot.dir, deps);
  const entry = storage.read(slot.key, deps.now());
  return {
    // Never the token itself: that one is held, and since when.
    ...(entry.refresh ? { refresh: { at: entry.refresh.at } } : {}),
    entry: entry.hit
      ? { kind: 'credential', expirationTimestamp: entry.status.expirationTimestamp! }
      : entry.failure
        ? { kind: 'failure', exitCode: entry.failure.exitCode, at: entry.failure.at, until: entry.failure.until }
        : { kind: 'none', reason: entry.reason },
    lock: storage.readLock(slot.key),
  };
}

/**
 * Keyed by the inputs and the values the templates read, never by the rendered request: a jwt(),
 * now(), uuid() or a step's answer would make every call's key a new one. Undefined when the inputs
 * cannot be keyed: client-go passes the cluster entry's extension as the kubeconfig has it, and one
 * nested past the stack would crash the hashing (RangeError). The cache is then off for this call.
 */
function keysOf(
  secret: Uint8Array,
  call: CacheCall,
  storage: Storage,
  report: (event: CacheEvent) => void,
): { ref: string; inputs: string; key: string; used: Reads; base: string | undefined } | undefined {
  if (call.envNamedBySecret) {
    // The name is a secret: a ref would hold it in clear, and a key without it would serve a credential that variable no longer gives.
    report({ kind: 'off', text: 'off for this call: a template reads env by a name that a secret gives (env[env.X])' });
    return undefined;
  }
  if (call.fileNamedBySecret) {
    // The same for a file path a secret chose.
    report({ kind: 'off', text: 'off for this call: a template reads a file whose path a secret chose' });
    return undefined;
  }
  try {
    const ref = refKey(secret, call);
    const inputs = inputsKey(secret, {
      version: call.version,
      document: call.document,
      vars: call.vars,
      cluster: call.cluster,
    });
    // What a step's answer made the templates read last time (file(steps.x.path)) is known only from
    // the ref that run wrote: keyed by it too, a rotated file misses (SPEC "Cache").
    const known = storage.readRef(ref);
    // Keyed by where relative paths resolve once this call names one, or the ref's run read one: a path
    // a step answers is read only after the steps, so only the ref knows it is relative. The ref is
    // joined only where it was written: another place's files are not ours.
    const base = baseOf(call) ?? (known?.base !== undefined ? call.base : undefined);
    const used = known?.inputs === inputs && known.base === base ? union(call.dependencies, known) : call.dependencies;
    const key = entryKey(secret, inputs, dependencyDigest(call.env, used.env, used.files, call.readFile, base));
    return { ref, inputs, key, used, base };
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    report({
      kind: 'off',
      text: 'off for this call: the cluster info of KUBERNETES_EXEC_INFO is nested too deeply to hash',
    });
    return undefined;
  }
}

/**
 * The next call keys on what the ref now records, which includes what this call's steps made the
 * templates read (file(steps.x.path)): a key this call could not know before its steps ran. The
 * credential is stored under that key too, so the first repeat is a hit, not a second fetch.
 */
function storeUnderLearnedKey(
  secret: Uint8Array,
  call: CacheCall,
  inputs: string,
  used: Reads,
  { status, expiresAt }: Fetched,
  storage: Storage,
  report: (event: CacheEvent) => void,
): void {
  if (!status.expirationTimestamp) return;
  const learned = call.readSoFar();
  if (learned.env.join('\0') === used.env.join('\0') && learned.files.join('\0') === used.files.join('\0')) return;
  try {
    const key = entryKey(
      secret,
      inputs,
      dependencyDigest(call.env, learned.env, learned.files, call.readFile, baseOf(call)),
    );
    // Never backwards (as cache.ts store()): a caller that knew this key may have stored a newer
    // credential under it; judged right before the rename.
    storage.writeCredential(key, status, {
      ...(expiresAt !== undefined ? { expiresAt } : {}),
      keep: storage.holdsLonger(key, status),
    });
  } catch (error) {
    report({
      kind: 'note',
      text: `cannot store the entry under what the steps made the templates read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    });
  }
}

/** Where the call's relative paths resolved from, when it has any: in its key and its ref. */
function baseOf(call: CacheCall): string | undefined {
  return call.readsRelative() ? call.base : undefined;
}

function union(a: Reads, b: Reads): Reads {
  return { env: [...new Set([...a.env, ...b.env])].sort(), files: [...new Set([...a.files, ...b.files])].sort() };
}
