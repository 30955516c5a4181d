// The cache directory's files as files: written whole or not at all (a temp file renamed), swept of
// what no call uses any more, and cleared. What an entry, a ref or the key holds is store.ts's.
import { join } from 'node:path';
import { untrusted, type CacheFs } from './dir.js';

/** The random key of the cache's keyed hashes (HMAC-SHA256), 0600 beside the entries (store.ts reads and makes it). */
export const SECRET_FILE = 'hmac-key';

/** A temp file older than this belongs to a writer that died (no fetch lives this long). */
const DEAD_TEMP_MS = 10 * 60_000;
/**
 * An entry or ref no call has written for this long is swept away. Both are written at every fetch
 * of their inputs; what is left is a rotated secret's, a deleted config's, a cluster's long gone. At
 * worst a credential living longer than this is fetched once more, or a person whose login's refresh
 * token went unused for a month logs in again. Locks are lock.ts's to recover, never the sweep's.
 */
const IDLE_MS = 30 * 24 * 3_600_000;
/** The sweep runs at most this often; between, a write costs one stat, not a listing. */
const SWEEP_EVERY_MS = 10 * 60_000;
/** Its time is the last sweep's (its mtime); its content says nothing. */
const SWEPT_FILE = 'swept';
/**
 * At most this many names are judged by one sweep (a stat each), so that a directory of many
 * entries in use costs a write a bounded time; each sweep takes the next window of the listing.
 */
const SWEEP_MAX = 2_000;

/**
 * Readers see the old file or the new one, never a part: temp file (0600, same dir), then rename.
 * `keep` is asked last, right before the rename: true keeps the file in place (a newer credential
 * another process stored while we wrote without the lock) and drops ours; then false is returned.
 * Without a lock the window cannot be closed (no rename compares what it replaces), only cut to
 * that check and the rename: nothing slow (a write, a fetch) lies between what was judged and the
 * rename any more.
 */
export function writeAtomic(
  fs: CacheFs,
  dir: string,
  name: string,
  content: unknown,
  unique: string,
  now?: number,
  keep?: () => boolean,
): boolean {
  const temp = join(dir, `${name.split('.')[0]}.${unique}.tmp`);
  let kept = false;
  try {
    fs.writeFileSync(temp, JSON.stringify(content) + '\n', { mode: 0o600, flag: 'wx' });
    kept = keep?.() ?? false;
    if (kept) fs.unlinkSync(temp);
    else fs.renameSync(temp, join(dir, name));
  } catch (error) {
    try {
      fs.unlinkSync(temp);
    } catch {
      // Nothing to clean up.
    }
    throw error;
  }
  if (kept) return false;
  // After the rename: a lock holder's waiters have their credential before any sweep.
  if (now !== undefined) sweep(fs, dir, now, unique, name);
  return true;
}

/**
 * Keeps the directory the size of what is in use (SPEC: bounded work): temp files of writers that
 * died (and lock files a killed lock breaker set aside), entries and refs idle for IDLE_MS. Every
 * write would otherwise list a directory that only grows (100,000 files: 0.4 s a write), so it runs
 * when the stamp is older than SWEEP_EVERY_MS, or from the future (a clock set back must not stop
 * it), or cannot be read or written (then at every write, as before the stamp: never not at all).
 * It judges at most SWEEP_MAX names: a directory of 100,000 entries in use is swept over 50 sweeps.
 */
function sweep(fs: CacheFs, dir: string, now: number, unique: string, written: string): void {
  try {
    const stamp = fs.lstatSync(join(dir, SWEPT_FILE));
    const age = now - stamp.mtimeMs;
    if (stamp.isFile() && age >= 0 && age < SWEEP_EVERY_MS) return;
  } catch {
    // No stamp yet: sweep.
  }
  try {
    writeAtomic(fs, dir, SWEPT_FILE, { sweptAt: new Date(now).toISOString() }, unique);
  } catch {
    // Swept all the same.
  }
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  const from = names.length > SWEEP_MAX ? (Math.floor(now / SWEEP_EVERY_MS) * SWEEP_MAX) % names.length : 0;
  for (let k = 0; k < Math.min(names.length, SWEEP_MAX); k++) {
    const name = names[(from + k) % names.length]!;
    const dead = /^([0-9a-f]{64}|hmac-key|swept)\..+\.tmp$|^[0-9a-f]{64}\.lock\..+\.broken$/.test(name);
    // Not the file just written, whatever the clocks say (a file system whose clock is not ours).
    if (name === written || (!dead && !/^[0-9a-f]{64}\.(json|ref)$/.test(name))) continue;
    try {
      const stat = fs.lstatSync(join(dir, name));
      const age = now - stat.mtimeMs;
      if (!stat.isFile()) continue;
      // Nobody writes to a dead writer's name again: removed by name.
      if (dead && age > DEAD_TEMP_MS) fs.unlinkSync(join(dir, name));
      else if (!dead && (age > IDLE_MS || age < -IDLE_MS)) removeIdle(fs, dir, name, stat, unique);
    } catch {
      // Gone already, or kept.
    }
  }
}

/**
 * Removes an idle entry or ref, unless a writer renamed a new one into its name after we judged it:
 * an unlink by name would remove the new one (a credential just stored). So it is moved aside first,
 * and what was moved is checked to be what was judged; a new one goes back (link: never over one
 * newer still). Readers meanwhile miss, as if it had been removed.
 */
function removeIdle(
  fs: CacheFs,
  dir: string,
  name: string,
  judged: { ino: number; mtimeMs: number },
  unique: string,
): void {
  const path = join(dir, name);
  // Named as a temp file: should we die here, the next sweep removes it.
  const aside = join(dir, `${name.split('.')[0]}.${unique}-swept.tmp`);
  fs.renameSync(path, aside);
  try {
    const moved = fs.lstatSync(aside);
    if (moved.ino !== judged.ino || moved.mtimeMs !== judged.mtimeMs) fs.linkSync(aside, path);
  } catch {
    // A newer one is in its place already (EEXIST): the one set aside goes.
  } finally {
    fs.unlinkSync(aside);
  }
}

/**
 * Removes every entry, ref, lock and temp file (and the key); returns how many credentials went.
 * Only from a directory that untrusted() accepts (whatever its mode): a symbolic link planted in its
 * place, or a directory someone else could swap, would make the names point at another user's files.
 */
export function clearDir(fs: CacheFs, dir: string, uid: number | undefined): number {
  let reason: string | undefined;
  try {
    reason = untrusted(fs, dir, uid, { anyMode: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  if (reason) throw new Error(`${reason}; nothing was removed`);
  const names = fs.readdirSync(dir);
  let removed = 0;
  for (const name of names) {
    if (
      !/^[0-9a-f]{64}(\.json|\.ref|\.lock|\..+\.tmp|\.lock\..+\.broken)$/.test(name) &&
      name !== SECRET_FILE &&
      name !== SWEPT_FILE &&
      !/^(hmac-key|swept)\..+\.tmp$/.test(name)
    )
      continue;
    try {
      fs.unlinkSync(join(dir, name));
    } catch (error) {
      // Gone since the listing: a writer renamed its temp file, a holder released its lock. The
      // stamp is only a time: one that is not a file (made by hand) is no reason to fail.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || name === SWEPT_FILE) continue;
      throw error;
    }
    if (name.endsWith('.json')) removed++;
  }
  return removed;
}
