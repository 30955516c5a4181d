// The key of the cache's keyed hashes (key.ts): 32 random bytes, hex, in a 0600 file of the cache
// directory, made once by whichever process gets there first.
import { join } from 'node:path';
import type { CacheFs } from './dir.js';
import { SECRET_FILE } from './files.js';
import { readPrivateFile } from './store.js';

/** The key, or undefined when there is none of ours (the fast path then misses). */
export function readSecret(fs: CacheFs, dir: string, uid: number | undefined): Uint8Array | undefined {
  try {
    const text = readPrivateFile(fs, join(dir, SECRET_FILE), uid, 128).trim();
    return /^[0-9a-f]{64}$/.test(text) ? Buffer.from(text, 'hex') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key, created once from `random` when there is none: written whole to a temp file, then linked
 * to its name (which fails if another process got there first), so that no reader ever sees it half
 * written, and concurrent first callers all end up with the same key.
 */
export function ensureSecret(
  fs: CacheFs,
  dir: string,
  uid: number | undefined,
  random: () => Uint8Array,
  unique: string,
): Uint8Array {
  const existing = readSecret(fs, dir, uid);
  if (existing) return existing;
  const temp = join(dir, `${SECRET_FILE}.${unique}.tmp`);
  try {
    fs.writeFileSync(temp, Buffer.from(random()).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
    fs.linkSync(temp, join(dir, SECRET_FILE));
  } catch (error) {
    // Another process made it first; anything else is for the read below to judge.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Not made.
    }
  }
  const made = readSecret(fs, dir, uid);
  if (!made) throw new Error(`${join(dir, SECRET_FILE)} is not a key of ours`);
  return made;
}
