// The cache's storage as a directory of files (storage.ts's one backend): entries and refs of mode
// 0600 written atomically (store.ts, ref.ts, files.ts) in a directory of mode 0700 that is trusted by
// nothing but what it is (dir.ts), and a lock file per key (lock.ts).
import { privateDir, ensureDir } from './dir.js';
import { clearDir } from './files.js';
import { acquire, liveHolder, readLock, type LockDeps } from './lock.js';
import { readRef, writeRef } from './ref.js';
import type { Storage } from './storage.js';
import { holdsLonger, readEntry, removeEntry, replaceRefresh, writeEntry, writeFailure } from './store.js';
import { ensureSecret, readSecret } from './hmac-key.js';

export function fileStorage(dir: string, deps: LockDeps): Storage {
  const { fs, uid } = deps;
  return {
    open: (random) => {
      ensureDir(fs, dir, uid);
      return ensureSecret(fs, dir, uid, random, deps.unique());
    },
    secret: () => (privateDir(fs, dir, uid) ? readSecret(fs, dir, uid) : undefined),
    read: (key, now) => readEntry(fs, dir, key, now, uid),
    writeCredential: (key, status, { expiresAt, refresh, keep }) =>
      writeEntry(fs, dir, key, status, deps.unique(), deps.now(), expiresAt, refresh, keep),
    writeFailure: (key, failure, { stale, refresh, keep }) =>
      writeFailure(fs, dir, key, failure, deps.unique(), deps.now(), stale, refresh, keep),
    replaceRefresh: (key, refresh, from) => replaceRefresh(fs, dir, key, refresh, deps.unique(), uid, from),
    remove: (key) => removeEntry(fs, dir, key),
    holdsLonger: (key, status) => holdsLonger(fs, dir, key, status, deps.now, uid),
    readRef: (ref) => readRef(fs, dir, ref, uid),
    writeRef: (ref, value) => writeRef(fs, dir, ref, value, deps.unique()),
    lock: (key, options) => acquire(dir, key, options, deps),
    holder: (key) => liveHolder(dir, key, deps),
    readLock: (key) => readLock(dir, key, deps),
    clear: () => clearDir(fs, dir, uid),
  };
}
