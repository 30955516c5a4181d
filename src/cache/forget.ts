// `logout`: one config's entry read for its refresh token and removed (credential, refresh token,
// remembered failure), then the token handed to the caller (to revoke it), as the cache's own
// operation under the key's lock: a refresh in another process either ends before (its rotated
// token is the one read) or starts after (it finds nothing to refresh), never stores its answer back
// over the logout. Removed before the revocation: the fast path reads without the lock, and would
// serve the credential being logged out for as long as the issuer takes to answer. The caller never
// sees a key or a file name.
import type { CacheDeps } from './cache.js';
import { underLock } from './lock-taking.js';
import { slotOf } from './call.js';
import { reporter } from './events.js';
import { fileStorage } from './file-storage.js';
import type { CacheCall } from './inputs.js';

/**
 * Under the call's lock (taken as a fetch takes it, waiting on a live holder within its deadline and
 * our own), the entry is removed, whatever it holds, then `revoke` is given the refresh token it held. Only the file of our key in our trusted directory: slotOf() found the key with
 * the directory's own secret, read through the same trust rules as every read. `removed`: there was
 * an entry; `token`: it held a refresh token.
 */
export async function forgetEntry(
  call: CacheCall,
  deps: CacheDeps,
  revoke: (token: string) => Promise<void>,
): Promise<{ removed: boolean; token: boolean }> {
  const slot = slotOf(call, deps);
  if (!slot) return { removed: false, token: false };
  const storage = fileStorage(slot.dir, deps);
  const timing = { deadline: call.deadline, timeoutMs: call.timeoutMs };
  return underLock(storage, slot.key, timing, deps, reporter(deps.trace, call.observe), 'logout', async () => {
    const token = storage.read(slot.key, deps.now()).refresh?.token;
    const removed = storage.remove(slot.key);
    if (token !== undefined) await revoke(token);
    return { removed, token: token !== undefined };
  });
}
