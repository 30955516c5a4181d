// What the cache is told of a call and what it tells doctor back: the types of its face (index.ts).
import type { CacheEvent } from './events.js';
import type { RefInputs } from './key.js';

/** The env names and files a credential's templates read. */
export interface Reads {
  env: string[];
  files: string[];
}

/**
 * What the cache needs to know of a call, raw (before any parsing): all the fast path has. The ref's
 * key is made of its RefInputs.
 */
export interface RawInputs extends RefInputs {
  dir: string;
  /**
   * Where a relative path resolves from: the config file's directory (or none) and the current
   * directory. Not in the ref's name; a ref whose files were relative holds it, and is used only from there.
   */
  base: string;
  env: Record<string, string | undefined>;
  readFile: (path: string) => string;
}

/** A full call: the raw inputs plus what parsing and rendering learned. */
export interface CacheCall extends RawInputs {
  /** The config as parsed: a reformatted file finds the same entry. */
  document: unknown;
  /** What the templates read when the config was rendered. */
  dependencies: Reads;
  /** The same plus what they read since (the steps' answers can name more). */
  readSoFar: () => Reads;
  /** A template reads env by a name a secret gives: the ref would hold it, so nothing is cached. */
  envNamedBySecret: boolean;
  /** A template reads a file whose path a secret chose: the ref would name it, so nothing is cached. */
  fileNamedBySecret?: boolean;
  /** tls.insecureSkipVerify: the fast path warns on every hit too. */
  insecure: boolean;
  /** Whether a template read or names a file by a relative path (so far): its ref then holds `base`. */
  readsRelative: () => boolean;
  /** `login`: fetch now whatever the entry holds, and store what came (a person asked for a new login). */
  fresh?: boolean;
  deadline: number;
  timeoutMs: number;
  /**
   * How long a fetch may rightly hold the key's lock (an interactive login waits on a person, up to
   * its bound): a waiter never takes a live holder's lock over before, so that it does not prompt too.
   */
  holdMs?: number;
  /** How failures are remembered: cache.failureTTL (0: not at all) and the call's redactor. */
  failureTtlMs: number;
  /** `framed`: a message of the plugin's frame (CredentialError.framed), checked for the secrets read only. */
  redact: (text: string, framed: boolean) => string;
  observe?: (event: CacheEvent) => void;
}

/** doctor's view of one call's entry and lock, read as the cache reads them (nothing it would not trust). */
export interface CacheView {
  /** The entry holds a login's refresh token, kept first at `at` (ms since epoch); never the token. */
  refresh?: { at: number };
  entry:
    | { kind: 'credential'; expirationTimestamp: string }
    | { kind: 'failure'; exitCode: 3 | 4; at: number; until: number }
    | { kind: 'none'; reason: string };
  lock:
    | { kind: 'none' }
    | { kind: 'held'; pid: string; holder: 'alive' | 'gone' | 'elsewhere' }
    /** A lock file the cache would not trust (another owner, mode, a link): `why` is its code or reason. */
    | { kind: 'untrusted'; why: string };
}
