// `logout`: one config's entry read for its refresh token, the token handed to the caller (to revoke
// it), then the entry removed (credential, refresh token, remembered failure), as the cache's own
// operation under the key's lock: a refresh in another process either ends before (its rotated
// token is the one read) or starts after (it finds nothing to refresh), never stores its answer back
// over the logout. The caller never sees a key or a file name.
import type { CacheDeps } from './cache.js';
import { underLock } from './lock-taking.js';
import { slotOf } from './call.js';
import { reporter } from './events.js';
import { fileStorage } from './file-storage.js';
import type { CacheCall } from './inputs.js';

/**
 * Under the call's lock (taken as a fetch takes it, waiting on a live holder within its deadline and
 * our own), `revoke` is given the refresh token the entry holds, if any, then the entry is removed,
 * whatever it holds. Only the file of our key in our trusted directory: slotOf() found the key with
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
    if (token !== undefined) await revoke(token);
    return { removed: storage.remove(slot.key), token: token !== undefined };
  });
}
