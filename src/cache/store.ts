// Versioned credential entries on disk, Pinniped's execcredcache in spirit: best effort, so every
// problem (missing, corrupt, truncated, foreign version, expired, unreadable) is a miss with a
// reason, never an exception, and a write that fails is only reported.
import { join } from 'node:path';
import type { CredentialStatus } from '../exec-credential.js';
import { CACHE_FORMAT } from './key.js';

/** The subset of node:fs the cache uses; main.ts passes the real one. */
export interface CacheFs {
  readFileSync(path: string, encoding: 'utf8'): string;
  writeFileSync(path: string, data: string, options: { mode: number; flag: string }): void;
  renameSync(from: string, to: string): void;
  unlinkSync(path: string): void;
  mkdirSync(path: string, options: { recursive: true; mode: number }): unknown;
  chmodSync(path: string, mode: number): void;
  statSync(path: string): { mode: number; mtimeMs: number; uid: number; isDirectory(): boolean };
  readdirSync(path: string): string[];
  openSync(path: string, flags: string, mode: number): number;
  closeSync(fd: number): void;
  writeSync(fd: number, data: string): number;
}

interface Entry {
  apiVersion: string;
  kind: 'CachedCredential';
  key: string;
  status: CredentialStatus;
}

export type Lookup = { hit: true; status: CredentialStatus } | { hit: false; reason: string };

export function entryPath(dir: string, key: string): string {
  return join(dir, `${key}.json`);
}

export function readEntry(fs: CacheFs, dir: string, key: string, now: number): Lookup {
  let text: string;
  try {
    text = fs.readFileSync(entryPath(dir, key), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { hit: false, reason: code === 'ENOENT' ? 'no entry' : `entry unreadable (${code ?? 'error'})` };
  }
  let entry: Partial<Entry>;
  try {
    entry = JSON.parse(text) as Partial<Entry>;
  } catch {
    return { hit: false, reason: 'entry is corrupt or truncated' };
  }
  if (typeof entry !== 'object' || entry === null || entry.apiVersion !== CACHE_FORMAT || entry.kind !== 'CachedCredential') {
    return { hit: false, reason: 'entry has another format version' };
  }
  if (entry.key !== key) return { hit: false, reason: 'entry belongs to another key' };
  const status = entry.status;
  if (!isUsable(status)) return { hit: false, reason: 'entry holds no usable credential' };
  const expires = Date.parse(status.expirationTimestamp!);
  // Served only strictly before the reported (already early) expiry, like client-go itself.
  if (!(now < expires)) return { hit: false, reason: `entry expired at ${status.expirationTimestamp}` };
  return { hit: true, status };
}

function isUsable(status: unknown): status is CredentialStatus {
  if (typeof status !== 'object' || status === null) return false;
  const s = status as Record<string, unknown>;
  const str = (v: unknown) => typeof v === 'string' && v.length > 0;
  const hasToken = str(s['token']);
  const hasPair = str(s['clientCertificateData']) && str(s['clientKeyData']);
  return (hasToken || hasPair) && str(s['expirationTimestamp']) && Number.isFinite(Date.parse(s['expirationTimestamp'] as string));
}

export function writeEntry(fs: CacheFs, dir: string, key: string, status: CredentialStatus, unique: string): void {
  const entry: Entry = { apiVersion: CACHE_FORMAT, kind: 'CachedCredential', key, status };
  writeAtomic(fs, dir, `${key}.json`, entry, unique);
}

/** Readers see the old file or the new one, never a part: temp file (0600, same dir), then rename. */
export function writeAtomic(fs: CacheFs, dir: string, name: string, content: unknown, unique: string): void {
  const temp = join(dir, `${name.split('.')[0]}.${unique}.tmp`);
  try {
    fs.writeFileSync(temp, JSON.stringify(content) + '\n', { mode: 0o600, flag: 'wx' });
    fs.renameSync(temp, join(dir, name));
  } catch (error) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Nothing to clean up.
    }
    throw error;
  }
}

/** Creates the directory with mode 0700, and tightens one that we own but others can read. */
/** Returns true when the directory was open to others: then nothing in it can be trusted. */
export function ensureDir(fs: CacheFs, dir: string, uid: number | undefined): boolean {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = fs.statSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  // Whoever owns the directory can put a credential of their choosing in it: only ours will do
  // (a --cache-dir under /tmp made by another user, say). Root can chmod anyone's directory, which
  // is why this is checked and not left to the chmod below.
  if (uid !== undefined && stat.uid !== uid) throw new Error(`${dir} belongs to uid ${stat.uid}, not to this user (uid ${uid})`);
  if ((stat.mode & 0o077) === 0) return false;
  fs.chmodSync(dir, 0o700);
  return true;
}

/** The fast path's read-only version of ensureDir: a directory that is not ours alone is not read. */
export function privateDir(fs: CacheFs, dir: string, uid: number | undefined): boolean {
  try {
    const stat = fs.statSync(dir);
    return stat.isDirectory() && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** Removes every entry, lock and temp file; returns how many files went. */
export function clearDir(fs: CacheFs, dir: string): number {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  let removed = 0;
  for (const name of names) {
    if (!/^[0-9a-f]{64}(\.json|\.ref|\.lock|\..+\.tmp)$/.test(name)) continue;
    fs.unlinkSync(join(dir, name));
    removed++;
  }
  return removed;
}

export function defaultCacheDir(env: Record<string, string | undefined>, homedir: string): string {
  const xdg = env['XDG_CACHE_HOME'];
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg && xdg.startsWith('/')) return join(xdg, 'webapi-credential');
  return join(homedir, '.kube', 'cache', 'webapi-credential');
}
