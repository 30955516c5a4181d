// Where the cache keeps what it keeps, as one object (issue 34: a seam). cache.ts, call.ts and
// index.ts see only this face; a directory of 0600 files (file-storage.ts) is the one backend today,
// and another (an OS keychain) would be one more file that returns a Storage. What an entry means
// (a hit, a stale credential, a remembered failure) is the same for every backend: store.ts's types.
import type { CredentialStatus } from '../credential/exec-credential.js';
import type { Holder, LockOptions, LockOutcome, LockView } from './lock.js';
import type { Ref } from './ref.js';
import type { HeldRefresh, Lookup, RememberedFailure, Replacing, Stale } from './store.js';

export interface Storage {
  /** Made ready for writes (the directory made and checked): the key of the keyed hashes; throws why not. */
  open(random: () => Uint8Array): Uint8Array;
  /** The key of the keyed hashes without making anything, or undefined (the fast path then misses). */
  secret(): Uint8Array | undefined;
  /** The entry of `key`; never throws: anything short of ours is a miss with a reason. */
  read(key: string, now: number): Lookup;
  /**
   * Stores a credential; `expiresAt` its real expiry (ms). `keep` is asked right before the entry is
   * replaced: true keeps the current one (never backwards), and false is returned.
   */
  writeCredential(
    key: string,
    status: CredentialStatus,
    options: { expiresAt?: number; refresh?: HeldRefresh; keep?: () => boolean },
  ): boolean;
  /** Remembers a failure in the entry's place (`stale`: the credential served through it), as writeCredential's `keep`. */
  writeFailure(
    key: string,
    failure: RememberedFailure,
    options: { stale?: Stale; refresh?: HeldRefresh; keep?: () => boolean },
  ): boolean;
  /**
   * The entry with `refresh` as its refresh token, or without one (undefined), the rest as it was;
   * with `from`, only while it holds the one the caller held (a refused one's credential goes too).
   */
  replaceRefresh(key: string, refresh: HeldRefresh | undefined, from?: Replacing): void;
  /** Removes the entry of `key` (logout); whether there was one. */
  remove(key: string): boolean;
  /** Never backwards: whether the entry now holds a valid credential living longer than `status`. */
  holdsLonger(key: string, status: CredentialStatus): () => boolean;
  readRef(ref: string): Ref | undefined;
  writeRef(ref: string, value: Ref): void;
  /** Single flight: the key's lock, or word that the entry another process fetched is there. */
  lock(key: string, options: LockOptions): Promise<LockOutcome>;
  /** Who holds the key's lock and would be waited on (alive, within its deadline), or undefined. */
  holder(key: string): Holder | undefined;
  /** doctor's look at the key's lock. */
  readLock(key: string): LockView;
  /** cache clear: removes everything of ours; how many credentials went. */
  clear(): number;
}
