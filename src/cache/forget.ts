// `logout`: one config's entry read for its refresh token, then removed (credential, refresh token,
// remembered failure), as the cache's own operation: the caller never sees a key or a file name.
import type { CacheDeps } from './cache.js';
import { slotOf } from './call.js';
import { fileStorage } from './file-storage.js';
import type { CacheCall } from './inputs.js';

/** The refresh token the call's entry holds (a secret), if any. */
export function heldRefreshToken(call: CacheCall, deps: CacheDeps): string | undefined {
  const slot = slotOf(call, deps);
  return slot ? fileStorage(slot.dir, deps).read(slot.key, deps.now()).refresh?.token : undefined;
}

/**
 * Removes the call's entry, whatever it holds; whether there was one. Only the file of our key in
 * our trusted directory: slotOf() found the key with the directory's own secret, read through the
 * same trust rules as every read.
 */
export function forgetEntry(call: CacheCall, deps: CacheDeps): boolean {
  const slot = slotOf(call, deps);
  return slot ? fileStorage(slot.dir, deps).remove(slot.key) : false;
}
