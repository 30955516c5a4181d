// A refresh token that came in a 2xx answer from which no credential could be taken (SPEC
// "Interactive login"): the issuer may have rotated the old one away, so it is kept at once, though
// the fetch failed. The fetch marks its error with it; the cache, which alone writes entries, keeps it.
import { CACHE_FORMAT } from './key.js';
import { writeAtomic } from './files.js';
import { entryPath, readPrivateFile, type CacheFs, type HeldRefresh } from './store.js';

const KEPT = Symbol('refresh token to keep');

/** `error`, marked with the refresh token its answer held (not enumerable: never printed or serialised). */
export function keepingRefreshToken<E extends object>(error: E, token: string): E {
  Object.defineProperty(error, KEPT, { value: token, enumerable: false });
  return error;
}

/** The refresh token a failed fetch's error was marked with, if any. */
export function keptRefreshToken(error: unknown): string | undefined {
  const token = typeof error === 'object' && error !== null ? (error as { [KEPT]?: unknown })[KEPT] : undefined;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/**
 * The entry with `refresh` as its refresh token, the rest as it was: for a failure that is not
 * remembered (failureTTL 0, the call's own deadline), which writes no entry of its own. An entry
 * that cannot be read as ours is left alone.
 */
export function replaceRefresh(fs: CacheFs, dir: string, key: string, refresh: HeldRefresh, unique: string, uid: number | undefined): void {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(readPrivateFile(fs, entryPath(dir, key), uid)) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof entry !== 'object' || entry === null || entry['apiVersion'] !== CACHE_FORMAT || entry['key'] !== key) return;
  writeAtomic(fs, dir, `${key}.json`, { ...entry, refresh }, unique);
}
