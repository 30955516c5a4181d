// Versioned credential entries on disk, Pinniped's execcredcache in spirit: best effort, so every
// problem (missing, corrupt, truncated, foreign version, expired, unreadable) is a miss with a
// reason, never an exception, and a write that fails is only reported.
import { join } from 'node:path';
import type { CredentialStatus } from '../credential/exec-credential.js';
import { CACHE_FORMAT } from './key.js';
import { type CacheFs } from './dir.js';
import { writeAtomic } from './files.js';

export type { CacheFs } from './dir.js';

/** Largest cache file read: an entry holds one credential, a few kB. */
const MAX_FILE_BYTES = 256 * 1024;

/** A file of the cache that is not one we wrote: a miss, never a read of what someone planted. */
class UntrustedFile extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/**
 * Reads a cache file without trusting its name: opened without following a link and without
 * blocking (a FIFO cannot hang us), then used only if the descriptor is a regular file of ours,
 * mode 0600, one link, of bounded size. What was checked is what is read.
 */
export function readPrivateFile(fs: CacheFs, path: string, uid: number | undefined, maxBytes = MAX_FILE_BYTES): string {
  const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new UntrustedFile('not a regular file');
    if (uid !== undefined && stat.uid !== uid) throw new UntrustedFile(`owned by uid ${stat.uid}`);
    if ((stat.mode & 0o777) !== 0o600) throw new UntrustedFile(`mode ${(stat.mode & 0o777).toString(8)}, not 600`);
    if (stat.nlink !== 1) throw new UntrustedFile(`${stat.nlink} links`);
    if (stat.size > maxBytes) throw new UntrustedFile(`${stat.size} bytes`);
    const buffer = new Uint8Array(stat.size);
    let read = 0;
    while (read < stat.size) {
      const n = fs.readSync(fd, buffer, read, stat.size - read, read);
      if (n === 0) break;
      read += n;
    }
    return Buffer.from(buffer.subarray(0, read)).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * One key's file. A credential keeps its real expiry (`expiresAt`, ms) beside the one reported to
 * client-go (`status.expirationTimestamp`, expiryMargin early): between the two it is served through
 * an outage. An outage remembered in that window keeps the credential (`servedThrough`), not to lose
 * it to the failure. A login's refresh token (`refresh`) is kept in either kind, under the same
 * file rules: it outlives the credential it came with, and an outage or a remembered failure.
 */
interface Entry {
  apiVersion: string;
  kind: 'CachedCredential' | 'CachedFailure';
  key: string;
  status?: CredentialStatus;
  expiresAt?: number;
  failure?: RememberedFailure;
  servedThrough?: Stale;
  refresh?: HeldRefresh;
}

/** An interactive login's refresh token (a secret) and when it was first kept (ms since epoch). */
export interface HeldRefresh {
  token: string;
  at: number;
}

/** A refresh token is a few hundred bytes to a few kB (a JWT); anything longer was not written by us. */
const MAX_REFRESH_TOKEN = 16 * 1024;

/** A credential past its reported expiry and before its real one (`expiresAt`, ms). */
export interface Stale {
  status: CredentialStatus;
  expiresAt: number;
}

/**
 * A failure served again without a request (SPEC Cache): the exit code and the redacted one-line
 * message, never a secret; `at` when it happened, `until` when it is asked again (ms since epoch).
 */
export interface RememberedFailure {
  exitCode: 3 | 4;
  message: string;
  at: number;
  until: number;
  /** Unreachable, timed out, 5xx, 408 or 429: a credential in its margin window is served through it. */
  outage?: boolean;
}

/** Longest a failure is remembered (an outage's Retry-After is capped there): checked again on read. */
export const MAX_FAILURE_MS = 5 * 60_000;
/** A remembered message is one line; anything longer was not written by us. */
export const MAX_FAILURE_MESSAGE = 8 * 1024;

/** `refresh`: the entry's refresh token, whatever else it holds (an expired credential, a failure). */
export type Lookup =
  | { hit: true; status: CredentialStatus; refresh?: HeldRefresh }
  /** `stale`: a credential past its reported expiry, before its real one (kept beside an outage, too). */
  | { hit: false; reason: string; failure?: RememberedFailure; stale?: Stale; refresh?: HeldRefresh };

export function entryPath(dir: string, key: string): string {
  return join(dir, `${key}.json`);
}

export function readEntry(fs: CacheFs, dir: string, key: string, now: number, uid: number | undefined): Lookup {
  let text: string;
  try {
    text = readPrivateFile(fs, entryPath(dir, key), uid);
  } catch (error) {
    if (error instanceof UntrustedFile) return { hit: false, reason: `entry is not ours (${error.reason})` };
    const code = (error as NodeJS.ErrnoException).code;
    return {
      hit: false,
      reason:
        code === 'ENOENT'
          ? 'no entry'
          : code === 'ELOOP'
            ? 'entry is a symbolic link'
            : `entry unreadable (${code ?? 'error'})`,
    };
  }
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(text) as Partial<Entry>;
  } catch {
    return { hit: false, reason: 'entry is corrupt or truncated' };
  }
  if (
    typeof entry !== 'object' ||
    entry === null ||
    entry.apiVersion !== CACHE_FORMAT ||
    (entry.kind !== 'CachedCredential' && entry.kind !== 'CachedFailure')
  ) {
    return { hit: false, reason: 'entry has another format version' };
  }
  if (entry.key !== key) return { hit: false, reason: 'entry belongs to another key' };
  const refresh = refreshOf(entry.refresh, now);
  const held = refresh ? { refresh } : {};
  if (entry.kind === 'CachedFailure') {
    const recalled = recallFailure(entry.failure, now);
    const stale = staleOf(entry.servedThrough?.status, entry.servedThrough?.expiresAt, now);
    // Kept past the outage's memory too: an outage that outlasts it fails the next refresh again,
    // and the credential, before its real expiry, is served again (as from a credential entry).
    const outage = (entry.failure as Partial<RememberedFailure> | undefined)?.outage === true;
    return stale && !recalled.hit && outage ? { ...recalled, stale, ...held } : { ...recalled, ...held };
  }
  const status = entry.status;
  if (!isUsable(status)) return { hit: false, reason: 'entry holds no usable credential', ...held };
  const expires = Date.parse(status.expirationTimestamp!);
  // Served only strictly before the reported (already early) expiry, like client-go itself.
  if (!(now < expires)) {
    const stale = staleOf(status, entry.expiresAt, now);
    return {
      hit: false,
      reason: `entry expired at ${status.expirationTimestamp}`,
      ...(stale ? { stale } : {}),
      ...held,
    };
  }
  return { hit: true, status, ...held };
}

/** The refresh token an entry holds, or undefined for none or one we did not write (no string, too long, a time from the future). */
function refreshOf(refresh: unknown, now: number): HeldRefresh | undefined {
  if (typeof refresh !== 'object' || refresh === null) return undefined;
  const { token, at } = refresh as Partial<HeldRefresh>;
  if (
    typeof token !== 'string' ||
    token === '' ||
    token.length > MAX_REFRESH_TOKEN ||
    /[\u0000-\u001f\u007f]/.test(token)
  )
    return undefined;
  if (typeof at !== 'number' || !Number.isFinite(at) || at > now + 5_000) return undefined;
  return { token, at };
}

/** The credential as stale (past its reported expiry, before its real one), or undefined. */
function staleOf(status: unknown, expiresAt: unknown, now: number): Stale | undefined {
  if (!isUsable(status) || typeof expiresAt !== 'number' || !Number.isFinite(expiresAt)) return undefined;
  // The real expiry never comes before the reported one; one that does was not written by us.
  if (expiresAt < Date.parse(status.expirationTimestamp!)) return undefined;
  // Served in whole seconds rounded down (failure.ts throughOutage): with no whole second after now
  // and before the real expiry, what client-go got would already have expired.
  if (!(now < Math.floor(expiresAt / 1000) * 1000)) return undefined;
  return { status, expiresAt };
}

function isUsable(status: unknown): status is CredentialStatus {
  if (typeof status !== 'object' || status === null) return false;
  const s = status as Record<string, unknown>;
  const str = (v: unknown) => typeof v === 'string' && v.length > 0;
  const hasToken = str(s['token']);
  const hasPair = str(s['clientCertificateData']) && str(s['clientKeyData']);
  return (
    (hasToken || hasPair) &&
    str(s['expirationTimestamp']) &&
    Number.isFinite(Date.parse(s['expirationTimestamp'] as string))
  );
}

function recallFailure(failure: unknown, now: number): Lookup {
  const f = (typeof failure === 'object' && failure !== null ? failure : {}) as Partial<RememberedFailure>;
  const time = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  if (
    (f.exitCode !== 3 && f.exitCode !== 4) ||
    typeof f.message !== 'string' ||
    f.message.length > MAX_FAILURE_MESSAGE ||
    !time(f.at) ||
    !time(f.until)
  ) {
    return { hit: false, reason: 'entry holds no usable failure' };
  }
  // A failure from the future, or one kept longer than any is, means a clock jump: ask again.
  if (f.at > now + 5_000 || f.until - f.at > MAX_FAILURE_MS)
    return { hit: false, reason: 'remembered failure has an impossible time' };
  if (!(now < f.until))
    return { hit: false, reason: `remembered failure expired ${Math.round((now - f.until) / 1000)}s ago` };
  return {
    hit: false,
    reason: 'a failure is remembered',
    failure: {
      exitCode: f.exitCode,
      message: f.message,
      at: f.at,
      until: f.until,
      ...(f.outage === true ? { outage: true } : {}),
    },
  };
}

/**
 * Never backwards, as writeEntry's `keep`: whether the entry now holds a valid credential that lives
 * longer than `status`, which another process stored while this one fetched or wrote.
 */
export function holdsLonger(
  fs: CacheFs,
  dir: string,
  key: string,
  status: CredentialStatus,
  now: () => number,
  uid: number | undefined,
): () => boolean {
  return () => {
    const current = readEntry(fs, dir, key, now(), uid);
    return current.hit && Date.parse(current.status.expirationTimestamp!) > Date.parse(status.expirationTimestamp!);
  };
}

/**
 * `expiresAt`: the real expiry (ms), by default the reported one (no margin window to serve through).
 * `keep`: see writeAtomic; false when it kept the entry in place.
 */
export function writeEntry(
  fs: CacheFs,
  dir: string,
  key: string,
  status: CredentialStatus,
  unique: string,
  now?: number,
  expiresAt?: number,
  refresh?: HeldRefresh,
  keep?: () => boolean,
): boolean {
  const entry: Entry = {
    apiVersion: CACHE_FORMAT,
    kind: 'CachedCredential',
    key,
    status,
    expiresAt: expiresAt ?? Date.parse(status.expirationTimestamp!),
    ...(refresh ? { refresh } : {}),
  };
  return writeAtomic(fs, dir, `${key}.json`, entry, unique, now, keep);
}

/**
 * Remembers a failure under the entry's name: the next success replaces it, as it replaces an expired
 * credential. `keep`: see writeAtomic; false when it kept the entry in place.
 */
export function writeFailure(
  fs: CacheFs,
  dir: string,
  key: string,
  failure: RememberedFailure,
  unique: string,
  now?: number,
  servedThrough?: Stale,
  refresh?: HeldRefresh,
  keep?: () => boolean,
): boolean {
  const entry: Entry = {
    apiVersion: CACHE_FORMAT,
    kind: 'CachedFailure',
    key,
    failure,
    ...(servedThrough ? { servedThrough } : {}),
    ...(refresh ? { refresh } : {}),
  };
  return writeAtomic(fs, dir, `${key}.json`, entry, unique, now, keep);
}

/** Whose refresh token a write replaces (storage.ts replaceRefresh). */
export interface Replacing {
  /** The refresh token the caller read from the entry (undefined: none). */
  held: string | undefined;
  /** The issuer refused it (invalid_grant): the credential of that grant may have been revoked. */
  refused?: boolean;
}

/**
 * The entry with `refresh` as its refresh token, or without one, the rest as it was. An entry that
 * cannot be read as ours is left alone: it holds no refresh token readEntry would give. With no entry
 * yet (a login whose credential has no known expiry), the refresh token alone: readEntry reads it as
 * a miss that carries it. With `from`, never backwards: the entry is changed only while it holds the
 * refresh token the caller held, and is kept when another process replaced it between this read and
 * the rename. A refused one takes its credential along (in its margin window, or served through an
 * outage): a 4xx refusal is never papered over.
 */
export function replaceRefresh(
  fs: CacheFs,
  dir: string,
  key: string,
  refresh: HeldRefresh | undefined,
  unique: string,
  uid: number | undefined,
  from?: Replacing,
): void {
  const path = entryPath(dir, key);
  let text: string | undefined;
  let entry: Entry;
  try {
    text = readPrivateFile(fs, path, uid);
    entry = JSON.parse(text) as Entry;
  } catch (error) {
    if (refresh === undefined || (error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    entry = { apiVersion: CACHE_FORMAT, kind: 'CachedCredential', key };
  }
  if (typeof entry !== 'object' || entry === null || entry.apiVersion !== CACHE_FORMAT || entry.key !== key) return;
  const heldNow = typeof entry.refresh === 'object' && entry.refresh !== null ? entry.refresh.token : undefined;
  if (from && heldNow !== from.held) return;
  if (refresh === undefined && entry.refresh === undefined && !from?.refused) return;
  const { refresh: _replaced, ...rest } = entry;
  const { status: _status, expiresAt: _expiresAt, servedThrough: _servedThrough, ...withoutCredential } = rest;
  const next: Entry = from?.refused ? withoutCredential : rest;
  // Another process wrote the entry since it was read: its write is the newer one.
  const changed = () => {
    try {
      return readPrivateFile(fs, path, uid) !== text;
    } catch (error) {
      return text !== undefined || (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  };
  writeAtomic(
    fs,
    dir,
    `${key}.json`,
    refresh ? { ...next, refresh } : next,
    unique,
    undefined,
    from ? changed : undefined,
  );
}

/** Removes the entry of `key`, whatever it holds (logout); whether there was one. */
export function removeEntry(fs: CacheFs, dir: string, key: string): boolean {
  try {
    fs.unlinkSync(entryPath(dir, key));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
