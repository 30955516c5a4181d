// The cache's one face (STYLE 13): get-token, the fast path and doctor see these functions and types
// and nothing else of src/cache/ (.dependency-cruiser.cjs says so). Keys, refs, learned keys, locks,
// failure memory and the entry format stay behind it, so that a second caller never recomputes a key
// or parses a lock file, and a change of protocol changes no caller. What only a miss or doctor needs
// (the lock, single flight, failure memory) is in call.ts, imported statically all the same: a
// dynamic import made the hit load one more chunk file (esbuild splits what call.ts shares), while
// these few functions cost a hit only their preparse.
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { CacheDeps, Fetch, Fetched, Refresh } from './cache.js';
import { inspectSlot, throughCache } from './call.js';
import type { CacheEvent, CacheSlot } from './events.js';
import type { CacheCall, CacheView, RawInputs, Reads } from './inputs.js';
import { rememberedMessage, throughOutage, whileRefreshing } from './failure.js';
import { entryKey, refKey } from './key.js';
import { dependencyDigest } from './ref.js';
import { defaultCacheDir } from './dir.js';
import { fileStorage } from './file-storage.js';
import type { LockDeps } from './lock.js';

export { keepingRefreshToken } from './kept-refresh.js';
export { forgetEntry } from './forget.js';

export { defaultCacheDir };
export type { CacheDeps, CacheEvent, CacheSlot, CacheCall, CacheView, Fetch, Fetched, RawInputs, Reads, Refresh };

/**
 * The credential for `call`: a hit, else one fetch for every concurrent caller, stored (a failure
 * of it remembered and thrown). A cache that cannot be used is a trace line and a plain fetch. The
 * fetch is handed the refresh token the entry holds (a login's, kept from an earlier Fetched), even
 * when its credential expired or a failure is remembered beside it; it may drop it.
 */
export function through(call: CacheCall, fetch: Fetch, deps: CacheDeps): Promise<CredentialStatus> {
  return throughCache(call, fetch, deps);
}

/**
 * What the fast path gets: a credential (with the note for stderr when served through an outage, and
 * the --verbose line when served while another process refreshes it), a remembered failure as it is
 * said, or nothing (the full path decides).
 */
export type FastLookup =
  | { kind: 'hit'; status: CredentialStatus; insecure: boolean; note?: string; trace?: string }
  | { kind: 'failure'; exitCode: 3 | 4; message: string; insecure: boolean };

/**
 * The entry the raw inputs lead to, read without parsing the config (ref.ts), or undefined for
 * anything short of a sure answer. Never writes and never throws past a miss.
 */
export function lookupFast(raw: RawInputs, now: number, deps: Omit<LockDeps, 'now'>): FastLookup | undefined {
  const storage = fileStorage(raw.dir, { ...deps, now: () => now });
  const secret = storage.secret();
  if (!secret) return undefined;
  // A config whose templates never name `cluster` has its ref without the cluster info (so a fleet
  // of clusters shares it); one that does, with it. Which one is the config's to say, so try both.
  const refInputs = {
    version: raw.version,
    sourceKind: raw.sourceKind,
    configText: raw.configText,
    vars: raw.vars,
    cacheFlag: raw.cacheFlag,
  };
  const ref =
    storage.readRef(refKey(secret, { ...refInputs, cluster: undefined })) ??
    (raw.cluster ? storage.readRef(refKey(secret, { ...refInputs, cluster: raw.cluster })) : undefined);
  // Relative paths resolved from elsewhere name other files than `ref.files`: the full path decides.
  if (!ref || (ref.base !== undefined && ref.base !== raw.base)) return undefined;
  const key = entryKey(secret, ref.inputs, dependencyDigest(raw.env, ref.env, ref.files, raw.readFile, ref.base));
  const lookup = storage.read(key, now);
  if (lookup.hit) return { kind: 'hit', status: lookup.status, insecure: ref.insecure };
  if (lookup.failure && lookup.stale)
    return {
      kind: 'hit',
      ...throughOutage(lookup.stale, rememberedMessage(lookup.failure, now), now),
      insecure: ref.insecure,
    };
  if (lookup.failure)
    return {
      kind: 'failure',
      exitCode: lookup.failure.exitCode,
      message: rememberedMessage(lookup.failure, now),
      insecure: ref.insecure,
    };
  // In the margin window while another process refreshes it: served at once, as the full path would
  // (cache.ts), without loading it: a waiter costs a hit (stale-while-revalidate).
  const holder = lookup.stale ? storage.holder(key) : undefined;
  // Read again once the holder is found: what was read before it may be what the holder has since
  // dropped (an invalid_grant takes the credential with it), as the full path reads under the lock.
  const held = holder ? storage.read(key, now) : undefined;
  if (held?.hit) return { kind: 'hit', status: held.status, insecure: ref.insecure };
  if (holder && held?.stale && !held.failure) {
    const { status, text } = whileRefreshing(held.stale, holder.pid, now);
    return { kind: 'hit', status, insecure: ref.insecure, trace: text };
  }
  return undefined;
}

/** The entry and the lock of a call's slot (its `keyed` event), for doctor. */
export function inspect(slot: CacheSlot, deps: LockDeps): CacheView {
  return inspectSlot(slot, deps);
}

/** cache clear: removes every entry, ref, lock and temp file of ours in `dir`; how many credentials went. */
export function clear(dir: string, deps: LockDeps): number {
  return fileStorage(dir, deps).clear();
}
