// The entry store on the real file system in a temp directory: every bad entry is a miss with a
// reason (never an exception), writes are atomic and 0600, the directory is 0700, clear removes
// only what the cache wrote. Plus the default directory.
import fs, { mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultCacheDir } from '../../src/cache/dir.js';
import { CACHE_FORMAT } from '../../src/cache/key.js';
import { ensureDir, privateDir, untrustedPath } from '../../src/cache/dir.js';
import { entryPath, readEntry, writeEntry, writeFailure } from '../../src/cache/store.js';
import { clearDir } from '../../src/cache/files.js';
import { throughOutage } from '../../src/cache/failure.js';
import type { CredentialStatus } from '../../src/credential/exec-credential.js';
import { modeOf } from './support.js';

const KEY = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const EXPIRY = '2030-01-02T03:04:05Z';
const EXPIRES = Date.parse(EXPIRY);
const NOW = EXPIRES - 3_600_000;
const UID = process.getuid?.();
const STATUS: CredentialStatus = { token: 'tok-1', expirationTimestamp: EXPIRY };

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-store-'));
  fs.chmodSync(dir, 0o700);
  return dir;
}

/** A directory holding `text` as the entry of KEY. */
function withEntry(text: string): string {
  const dir = tempDir();
  writeFileSync(entryPath(dir, KEY), text, { mode: 0o600 });
  return dir;
}

const entry = (fields: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: CACHE_FORMAT, kind: 'CachedCredential', key: KEY, status: STATUS, ...fields });

describe('writeEntry and readEntry', () => {
  it('write an entry file of mode 0600 that reads back as a hit with the same status, and leave no temp file', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'unique-1');
    expect(readdirSync(dir)).toEqual([`${KEY}.json`]);
    expect(modeOf(entryPath(dir, KEY))).toBe(0o600);
    expect(readFileSync(entryPath(dir, KEY), 'utf8')).toBe(
      `{"apiVersion":"${CACHE_FORMAT}","kind":"CachedCredential","key":"${KEY}","status":{"token":"tok-1","expirationTimestamp":"${EXPIRY}"},"expiresAt":${Date.parse(EXPIRY)}}\n`,
    );
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STATUS });
  });

  it('replace an existing entry', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'unique-1');
    writeEntry(fs, dir, KEY, { token: 'tok-2', expirationTimestamp: EXPIRY }, 'unique-2');
    expect(readdirSync(dir)).toEqual([`${KEY}.json`]);
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({
      hit: true,
      status: { token: 'tok-2', expirationTimestamp: EXPIRY },
    });
  });

  it('keep a client certificate credential', () => {
    const dir = tempDir();
    const status = { clientCertificateData: 'CERT', clientKeyData: 'KEY', expirationTimestamp: EXPIRY };
    writeEntry(fs, dir, KEY, status, 'u');
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status });
  });

  it('throw when the directory is missing, leaving nothing behind', () => {
    const dir = join(tempDir(), 'missing');
    expect(() => writeEntry(fs, dir, KEY, STATUS, 'u')).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('never read a temp file left by a writer that died as the entry', () => {
    const dir = tempDir();
    writeFileSync(join(dir, `${KEY}.123-abc.tmp`), entry({}));
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: false, reason: 'no entry' });
  });

  it('remove the temp files of writers dead for more than 10 minutes when writing, and leave younger ones', () => {
    const dir = tempDir();
    const dead = `${OTHER}.1-killed.tmp`;
    const writing = `${OTHER}.2-writing.tmp`;
    for (const [name, ageMs] of [
      [dead, 11 * 60_000],
      [writing, 9 * 60_000],
    ] as const) {
      writeFileSync(join(dir, name), entry({}), { mode: 0o600 });
      utimesSync(join(dir, name), (NOW - ageMs) / 1000, (NOW - ageMs) / 1000);
    }
    writeEntry(fs, dir, KEY, STATUS, 'unique-1', NOW);
    expect(readdirSync(dir).sort()).toEqual([`${KEY}.json`, writing, 'swept'].sort());
  });

  it('miss a directory in place of the entry as unreadable', () => {
    const dir = tempDir();
    mkdirSync(entryPath(dir, KEY));
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: false, reason: 'entry is not ours (not a regular file)' });
  });

  const valid = entry({});
  it.each<[string, string, string]>([
    ['garbage', 'not json at all', 'entry is corrupt or truncated'],
    ['an empty file', '', 'entry is corrupt or truncated'],
    ['a truncated entry', valid.slice(0, valid.length - 20), 'entry is corrupt or truncated'],
    ['a truncated entry cut at one byte', valid.slice(0, 1), 'entry is corrupt or truncated'],
    ['NUL bytes (a file extended but never written)', '\0'.repeat(64), 'entry is corrupt or truncated'],
    ['null', 'null', 'entry has another format version'],
    ['a number', '42', 'entry has another format version'],
    ['a list', '[]', 'entry has another format version'],
    [
      'a foreign format version',
      entry({ apiVersion: 'webapi-credential.cache/v1' }),
      'entry has another format version',
    ],
    ['no format version', entry({ apiVersion: undefined }), 'entry has another format version'],
    ['another kind', entry({ kind: 'Credential' }), 'entry has another format version'],
    ['the entry of another key (a renamed file)', entry({ key: OTHER }), 'entry belongs to another key'],
    ['no status', entry({ status: undefined }), 'entry holds no usable credential'],
    ['a string status', entry({ status: 'tok-1' }), 'entry holds no usable credential'],
    [
      'an empty token',
      entry({ status: { token: '', expirationTimestamp: EXPIRY } }),
      'entry holds no usable credential',
    ],
    [
      'a number token',
      entry({ status: { token: 7, expirationTimestamp: EXPIRY } }),
      'entry holds no usable credential',
    ],
    [
      'a certificate without its key',
      entry({ status: { clientCertificateData: 'CERT', expirationTimestamp: EXPIRY } }),
      'entry holds no usable credential',
    ],
    ['no expirationTimestamp', entry({ status: { token: 'tok-1' } }), 'entry holds no usable credential'],
    [
      'an unparsable expirationTimestamp',
      entry({ status: { token: 'tok-1', expirationTimestamp: 'tomorrow' } }),
      'entry holds no usable credential',
    ],
    [
      'an expired entry',
      entry({ status: { token: 'tok-1', expirationTimestamp: '2020-01-01T00:00:00Z' } }),
      'entry expired at 2020-01-01T00:00:00Z',
    ],
    // A valid entry padded past the bound: the size is judged on the descriptor, before any read.
    [
      'an entry larger than 256 KiB',
      `${valid}${' '.repeat(256 * 1024)}`,
      `entry is not ours (${valid.length + 256 * 1024} bytes)`,
    ],
  ])('miss %s, with a reason and no exception', (_name, text, reason) => {
    expect(readEntry(fs, withEntry(text), KEY, NOW, UID)).toEqual({ hit: false, reason });
  });

  it('serve an entry up to, but not at, its reported expiry', () => {
    const dir = withEntry(valid);
    expect(readEntry(fs, dir, KEY, EXPIRES - 1, UID)).toEqual({ hit: true, status: STATUS });
    expect(readEntry(fs, dir, KEY, EXPIRES, UID)).toEqual({ hit: false, reason: `entry expired at ${EXPIRY}` });
    expect(readEntry(fs, dir, KEY, EXPIRES + 1, UID)).toEqual({ hit: false, reason: `entry expired at ${EXPIRY}` });
  });

  it('miss the entry of another key', () => {
    const dir = withEntry(valid);
    expect(readEntry(fs, dir, OTHER, NOW, UID)).toEqual({ hit: false, reason: 'no entry' });
  });
});

describe('ensureDir', () => {
  it('creates missing directories and leaves the cache directory at 0700', () => {
    const dir = join(tempDir(), 'a', 'b', 'webapi-credential');
    ensureDir(fs, dir, process.getuid!());
    expect(modeOf(dir)).toBe(0o700);
  });

  it.each([0o755, 0o750, 0o777, 0o701])(
    'refuses an existing directory of mode %o that we own, and leaves it as it is',
    (mode) => {
      const dir = join(tempDir(), 'cache');
      mkdirSync(dir);
      fs.chmodSync(dir, mode);
      writeFileSync(join(dir, `${KEY}.json`), 'theirs');
      expect(() => ensureDir(fs, dir, process.getuid!())).toThrow(
        `${dir} has mode ${mode.toString(8)}; the cache needs 700`,
      );
      expect(modeOf(dir)).toBe(mode);
      expect(readdirSync(dir)).toEqual([`${KEY}.json`]);
    },
  );

  it('throws when the path is a regular file', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    expect(() => ensureDir(fs, file, process.getuid!())).toThrow();
  });

  it('throws ENOTDIR when a parent is a regular file', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    expect(() => ensureDir(fs, join(file, 'cache'), process.getuid!())).toThrow(
      expect.objectContaining({ code: 'ENOTDIR' }),
    );
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a directory that belongs to another user, and leaves its mode alone',
    () => {
      // We run as root in CI, where chmod would succeed on anyone's directory: the owner check is what stops it.
      const dir = join(tempDir(), 'theirs');
      mkdirSync(dir, { mode: 0o777 });
      fs.chmodSync(dir, 0o777);
      fs.chownSync(dir, 4242, 4242);
      expect(() => ensureDir(fs, dir, process.getuid!())).toThrow(
        `${dir} belongs to uid 4242, not to this user (uid ${process.getuid!()})`,
      );
      expect(modeOf(dir)).toBe(0o777);
    },
  );

  it.skipIf(process.getuid?.() !== 0)(
    'lets the fast path read only a directory that is ours and closed to others',
    () => {
      const uid = process.getuid!();
      const ours = join(tempDir(), 'ours');
      ensureDir(fs, ours, uid);
      expect(privateDir(fs, ours, uid)).toBe(true);
      fs.chmodSync(ours, 0o755);
      expect(privateDir(fs, ours, uid)).toBe(false);
      const theirs = join(tempDir(), 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      fs.chownSync(theirs, 4242, 4242);
      expect(privateDir(fs, theirs, uid)).toBe(false);
      expect(privateDir(fs, join(ours, 'missing'), uid)).toBe(false);
    },
  );
});

// The directory stays the size of what is in use (SPEC: bounded work). Before the sweep, every write
// listed the whole directory, and nothing ever removed an entry of a rotated secret: 100,000 files
// cost 0.4 s a write.
describe('the sweep when writing', () => {
  const DAY = 24 * 3_600_000;
  const THIRD = 'c'.repeat(64);
  const aged = (dir: string, name: string, ageMs: number, content = 'x') => {
    writeFileSync(join(dir, name), content, { mode: 0o600 });
    utimesSync(join(dir, name), (NOW - ageMs) / 1000, (NOW - ageMs) / 1000);
  };
  /** fs that counts the directory listings it is asked for. */
  const counting = (): { listings: number; fs: typeof fs } => {
    const counted: { listings: number; fs: typeof fs } = {
      listings: 0,
      fs: { ...fs, readdirSync: (path: string) => (counted.listings++, fs.readdirSync(path)) } as typeof fs,
    };
    return counted;
  };

  it('removes entries and refs no call wrote for 30 days, and keeps younger ones, locks and the key', () => {
    const dir = tempDir();
    for (const name of [`${OTHER}.json`, `${OTHER}.ref`, `${OTHER}.lock`]) aged(dir, name, 31 * DAY);
    for (const name of [`${THIRD}.json`, `${THIRD}.ref`]) aged(dir, name, 29 * DAY);
    aged(dir, 'hmac-key', 400 * DAY);
    aged(dir, 'notes.txt', 400 * DAY);
    aged(dir, 'swept.1-killed.tmp', 11 * 60_000);
    aged(dir, `${THIRD}.lock.2-killed.broken`, 11 * 60_000);
    writeEntry(fs, dir, KEY, STATUS, 'unique-1', NOW);
    // A lock is lock.ts's to recover (it knows whether its holder lives), never the sweep's.
    expect(readdirSync(dir).sort()).toEqual(
      [`${KEY}.json`, `${THIRD}.json`, `${THIRD}.ref`, `${OTHER}.lock`, 'hmac-key', 'notes.txt', 'swept'].sort(),
    );
    expect(readEntry(fs, dir, KEY, NOW, UID)).toMatchObject({ hit: true });
  });

  it('leaves an idle name that is not a regular file alone', () => {
    const dir = tempDir();
    mkdirSync(join(dir, `${OTHER}.json`));
    fs.symlinkSync(join(dir, 'elsewhere'), join(dir, `${THIRD}.ref`));
    for (const name of [`${OTHER}.json`, `${THIRD}.ref`])
      fs.lutimesSync(join(dir, name), (NOW - 31 * DAY) / 1000, (NOW - 31 * DAY) / 1000);
    writeEntry(fs, dir, KEY, STATUS, 'unique-1', NOW);
    expect(readdirSync(dir).sort()).toEqual([`${KEY}.json`, `${OTHER}.json`, `${THIRD}.ref`, 'swept'].sort());
  });

  // The sweep judges a file, then removes it: a writer that stores a credential under that name in
  // between must not lose it (an unlink by name would remove the new one).
  it('keeps a credential another writer stored between the look and the removal', () => {
    const dir = tempDir();
    aged(dir, `${OTHER}.json`, 31 * DAY);
    const fresh: CredentialStatus = { token: 'tok-fresh', expirationTimestamp: EXPIRY };
    let raced = false;
    const racing = {
      ...fs,
      lstatSync: (path: string) => {
        const stat = fs.lstatSync(path);
        if (!raced && path === join(dir, `${OTHER}.json`)) {
          raced = true;
          writeEntry(fs, dir, OTHER, fresh, 'other-writer');
        }
        return stat;
      },
    } as typeof fs;
    writeEntry(racing, dir, KEY, STATUS, 'unique-1', NOW);
    expect(raced).toBe(true);
    expect(readEntry(fs, dir, OTHER, NOW, UID)).toMatchObject({ hit: true, status: fresh });
    expect(readdirSync(dir).sort()).toEqual([`${KEY}.json`, `${OTHER}.json`, 'swept'].sort());
  });

  it('sweeps at every write when the stamp cannot be written (a directory in its place)', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'swept'));
    const counted = counting();
    const now = Date.now();
    writeEntry(counted.fs, dir, KEY, STATUS, 'unique-1', now);
    aged(dir, `${OTHER}.json`, 31 * DAY + (now - NOW));
    writeEntry(counted.fs, dir, KEY, STATUS, 'unique-2', now + 60_000);
    expect(counted.listings).toBe(2);
    expect(readdirSync(dir)).not.toContain(`${OTHER}.json`);
    // cache clear is not stopped by it either.
    expect(clearDir(fs, dir, UID)).toBe(1);
  });

  it('lists the directory once in 10 minutes however many writes come, then again', () => {
    const dir = tempDir();
    const counted = counting();
    // The stamp's time is the file system's: these writes run on the real clock.
    const now = Date.now();
    // 20 writes in 6 minutes 20 seconds: one sweep.
    for (let i = 0; i < 20; i++) writeEntry(counted.fs, dir, KEY, STATUS, `unique-${i}`, now + i * 20_000);
    expect(counted.listings).toBe(1);
    writeEntry(counted.fs, dir, KEY, STATUS, 'unique-late', now + 11 * 60_000);
    expect(counted.listings).toBe(2);
  });

  it('sweeps again once the stamp is 10 minutes old, and when a clock set back left it in the future', () => {
    const dir = tempDir();
    aged(dir, 'swept', 11 * 60_000);
    aged(dir, `${OTHER}.json`, 31 * DAY);
    const counted = counting();
    writeEntry(counted.fs, dir, KEY, STATUS, 'unique-1', NOW);
    expect(counted.listings).toBe(1);
    expect(readdirSync(dir)).not.toContain(`${OTHER}.json`);

    aged(dir, 'swept', -DAY);
    aged(dir, `${OTHER}.ref`, 31 * DAY);
    writeEntry(counted.fs, dir, KEY, STATUS, 'unique-2', NOW);
    expect(counted.listings).toBe(2);
    expect(readdirSync(dir)).not.toContain(`${OTHER}.ref`);
  });

  it('judges at most 2,000 files a sweep, each sweep the next ones, so a large directory is cleared over a few', () => {
    const dir = tempDir();
    const now = Date.now();
    for (let i = 0; i < 5_000; i++) aged(dir, `${i.toString(16).padStart(64, '0')}.json`, 31 * DAY + (now - NOW));
    const stats: number[] = [];
    for (let sweep = 0; sweep < 4; sweep++) {
      let n = 0;
      const counted = { ...fs, lstatSync: (path: string) => (n++, fs.lstatSync(path)) } as typeof fs;
      writeEntry(counted, dir, KEY, STATUS, `unique-${sweep}`, now + sweep * 11 * 60_000);
      stats.push(n);
    }
    // A stat of the stamp and at most 2,000 names judged, each removed one checked once more after
    // it was moved aside: whatever the directory holds.
    for (const n of stats) expect(n).toBeLessThanOrEqual(1 + 2 * 2_000);
    expect(readdirSync(dir).sort()).toEqual([`${KEY}.json`, 'swept']);
  });

  it('costs a write one stat, not a listing, however many files the directory holds', () => {
    // The class, not one instance: 10, 1,000 and 10,000 files, the same cost once swept.
    for (const files of [10, 1_000, 10_000]) {
      const dir = tempDir();
      for (let i = 0; i < files; i++)
        writeFileSync(join(dir, `${i.toString(16).padStart(64, '0')}.json`), 'x', { mode: 0o600 });
      const now = Date.now();
      writeEntry(fs, dir, KEY, STATUS, 'unique-0', now);
      const counted = counting();
      const lstats = { n: 0 };
      const watched = { ...counted.fs, lstatSync: (path: string) => (lstats.n++, fs.lstatSync(path)) } as typeof fs;
      writeEntry(watched, dir, KEY, STATUS, 'unique-1', now + 60_000);
      expect([counted.listings, lstats.n]).toEqual([0, 1]);
    }
  });
});

describe('clearDir', () => {
  it('removes entries, refs, locks, temp files and the key and nothing else, and counts the credentials', () => {
    const dir = tempDir();
    const names = [
      `${KEY}.json`,
      `${OTHER}.json`,
      `${KEY}.ref`,
      `${KEY}.lock`,
      `${KEY}.123-abc.tmp`,
      `${KEY}.lock.4-killed.broken`,
      'hmac-key',
      'swept',
      'swept.9-dead.tmp',
      'notes.txt',
      'short.json',
      `${KEY}.json.bak`,
    ];
    for (const name of names) writeFileSync(join(dir, name), 'x');
    expect(clearDir(fs, dir, UID)).toBe(2);
    expect(readdirSync(dir).sort()).toEqual([`${KEY}.json.bak`, 'notes.txt', 'short.json']);
  });

  // cache clear while plugins run: between the listing and the unlink, a writer renames its temp
  // file to the entry and a holder releases its lock. Those names are gone, not a failure of clear.
  it('goes on past the files that concurrent writers and lock holders removed after it listed them', () => {
    const dir = tempDir();
    const temp = `${OTHER}.7-writing.tmp`;
    for (const name of [`${KEY}.json`, `${KEY}.lock`, temp, `${OTHER}.ref`])
      writeFileSync(join(dir, name), 'x', { mode: 0o600 });
    const racing = {
      ...fs,
      readdirSync: (path: string) => {
        const names = fs.readdirSync(path);
        // What other processes do right after our listing: the writer's rename, the holder's release.
        fs.renameSync(join(dir, temp), join(dir, `${OTHER}.json`));
        fs.unlinkSync(join(dir, `${KEY}.lock`));
        return names;
      },
    } as typeof fs;
    expect(clearDir(racing, dir, UID)).toBe(1);
    // The entry written after the listing is the writer's, not one clear was asked to remove.
    expect(readdirSync(dir).sort()).toEqual([`${OTHER}.json`]);
  });

  it('clears a directory of ours whatever its mode', () => {
    const dir = tempDir();
    fs.chmodSync(dir, 0o755);
    writeFileSync(join(dir, `${KEY}.json`), 'x');
    expect(clearDir(fs, dir, UID)).toBe(1);
  });

  it('counts 0 for a directory that does not exist', () => {
    expect(clearDir(fs, join(tempDir(), 'missing'), UID)).toBe(0);
  });

  it('throws when the path is a regular file', () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, '');
    expect(() => clearDir(fs, file, UID)).toThrow(`${file} is not a directory; nothing was removed`);
  });

  it('removes nothing through a symbolic link planted in place of the directory', () => {
    const victim = tempDir();
    const names = [`${KEY}.json`, 'hmac-key'];
    for (const name of names) writeFileSync(join(victim, name), 'theirs');
    const planted = join(tempDir(), 'cache');
    fs.symlinkSync(victim, planted);
    expect(() => clearDir(fs, planted, UID)).toThrow(`${planted} is a symbolic link; nothing was removed`);
    expect(readdirSync(victim).sort()).toEqual(names.sort());
  });

  it.skipIf(process.getuid?.() !== 0)('removes nothing from a directory of another user', () => {
    const dir = tempDir();
    writeFileSync(join(dir, `${KEY}.json`), 'theirs');
    fs.chownSync(dir, 4242, 4242);
    expect(() => clearDir(fs, dir, UID)).toThrow(
      `${dir} belongs to uid 4242, not to this user (uid ${UID}); nothing was removed`,
    );
    expect(readdirSync(dir)).toEqual([`${KEY}.json`]);
  });
});

describe('untrustedPath', () => {
  it('accepts the way to a directory of ours through root-owned directories and links', () => {
    const dir = tempDir();
    const link = join(tempDir(), 'link');
    fs.symlinkSync(dir, link);
    expect(untrustedPath(fs, join(link, 'missing', 'below'), UID!)).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)(
    'refuses a way through a link of another user, who can point it elsewhere at any time',
    () => {
      const dir = tempDir();
      const link = join(tempDir(), 'link');
      fs.symlinkSync(dir, link);
      fs.lchownSync(link, 4242, 4242);
      expect(untrustedPath(fs, join(link, 'cache'), UID!)).toBe(`${link} above it is a symbolic link of uid 4242`);
    },
  );

  it('refuses a way that a link leads through a directory others can write', () => {
    const open = tempDir();
    fs.chmodSync(open, 0o777);
    mkdirSync(join(open, 'sub'));
    const link = join(tempDir(), 'link');
    fs.symlinkSync(join(open, 'sub'), link);
    expect(untrustedPath(fs, join(link, 'cache'), UID!)).toBe(`${open} above it is writable by others`);
  });

  it('ends a loop of links', () => {
    const dir = tempDir();
    fs.symlinkSync(join(dir, 'b'), join(dir, 'a'));
    fs.symlinkSync(join(dir, 'a'), join(dir, 'b'));
    expect(untrustedPath(fs, join(dir, 'a', 'cache'), UID!)).toMatch(/above it: too many symbolic links$/);
  });
});

describe('defaultCacheDir', () => {
  it.each<[string, Record<string, string | undefined>, string]>([
    ['XDG_CACHE_HOME when it is absolute', { XDG_CACHE_HOME: '/x/cache' }, '/x/cache/webapi-credential'],
    ['XDG_CACHE_HOME with a trailing slash', { XDG_CACHE_HOME: '/x/cache/' }, '/x/cache/webapi-credential'],
    ['~/.kube/cache when XDG_CACHE_HOME is unset', {}, '/home/u/.kube/cache/webapi-credential'],
    ['~/.kube/cache when XDG_CACHE_HOME is empty', { XDG_CACHE_HOME: '' }, '/home/u/.kube/cache/webapi-credential'],
    [
      '~/.kube/cache when XDG_CACHE_HOME is relative (invalid per the XDG spec)',
      { XDG_CACHE_HOME: 'cache' },
      '/home/u/.kube/cache/webapi-credential',
    ],
  ])('is under %s', (_name, env, expected) => {
    expect(defaultCacheDir(env, '/home/u')).toBe(expected);
  });
});

describe('a remembered failure', () => {
  const FAILURE = {
    exitCode: 3 as const,
    message: 'the token API answered 401 Unauthorized',
    at: NOW - 2_000,
    until: NOW + 8_000,
  };
  const failureEntry = (failure: Record<string, unknown>) =>
    JSON.stringify({ apiVersion: CACHE_FORMAT, kind: 'CachedFailure', key: KEY, failure });

  it('is written 0600 and read back as a miss that carries the failure until its time is up', () => {
    const dir = tempDir();
    writeFailure(fs, dir, KEY, FAILURE, 'unique-f');
    expect(modeOf(entryPath(dir, KEY))).toBe(0o600);
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({
      hit: false,
      reason: 'a failure is remembered',
      failure: FAILURE,
    });
    expect(readEntry(fs, dir, KEY, FAILURE.until, UID)).toEqual({
      hit: false,
      reason: 'remembered failure expired 0s ago',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an exit code that is not 3 or 4', { ...FAILURE, exitCode: 0 }, 'entry holds no usable failure'],
    ['no message', { ...FAILURE, message: undefined }, 'entry holds no usable failure'],
    [
      'a message longer than any one line of ours',
      { ...FAILURE, message: 'x'.repeat(9000) },
      'entry holds no usable failure',
    ],
    ['a time that is not a number', { ...FAILURE, until: '2030' }, 'entry holds no usable failure'],
    [
      'a failure from the future (a clock jump)',
      { ...FAILURE, at: NOW + 60_000, until: NOW + 70_000 },
      'remembered failure has an impossible time',
    ],
    [
      'a failure kept longer than 5 minutes',
      { ...FAILURE, until: FAILURE.at + 300_001 },
      'remembered failure has an impossible time',
    ],
  ])('is a plain miss with %s', (_name, failure, reason) => {
    expect(readEntry(fs, withEntry(failureEntry(failure)), KEY, NOW, UID)).toEqual({ hit: false, reason });
  });
});

describe('the real expiry beside the reported one (served through an outage)', () => {
  const reported = Date.parse(EXPIRY);
  it('reads a credential past its reported expiry and before its real one as stale, never as a hit', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'unique-1', undefined, reported + 60_000);
    expect(readEntry(fs, dir, KEY, reported + 1, UID)).toEqual({
      hit: false,
      reason: `entry expired at ${EXPIRY}`,
      stale: { status: STATUS, expiresAt: reported + 60_000 },
    });
    expect(readEntry(fs, dir, KEY, reported + 60_000, UID)).toEqual({
      hit: false,
      reason: `entry expired at ${EXPIRY}`,
    });
  });

  it('keeps the credential beside an outage only: a refusal remembered drops it', () => {
    const dir = tempDir();
    const stale = { status: STATUS, expiresAt: reported + 60_000 };
    const failure = {
      exitCode: 3 as const,
      message: 'the token API answered 503',
      at: reported,
      until: reported + 10_000,
    };
    writeFailure(fs, dir, KEY, { ...failure, outage: true }, 'unique-1', undefined, stale);
    expect(readEntry(fs, dir, KEY, reported + 1, UID)).toMatchObject({ hit: false, failure: { outage: true }, stale });
    writeFailure(fs, dir, KEY, failure, 'unique-2', undefined, stale);
    expect(readEntry(fs, dir, KEY, reported + 1, UID)).not.toHaveProperty('stale');
  });

  // A served expirationTimestamp is whole seconds, rounded down so as never to pass the real expiry:
  // with less than a second left, that second may be before now. client-go would get a credential
  // that already expired (SPEC: never in the past), so no whole second left is nothing to serve.
  it('never yields a stale credential whose served expirationTimestamp would be in the past, for any real expiry within a second and a half', () => {
    const dir = tempDir();
    const failure = {
      exitCode: 3 as const,
      message: 'the token API answered 503',
      at: reported,
      until: reported + 10_000,
      outage: true,
    };
    let served = 0;
    for (let nowMs = 0; nowMs < 1000; nowMs += 50) {
      for (let leftMs = 1; leftMs <= 1500; leftMs += 37) {
        const now = reported + 5_000 + nowMs;
        const stale = { status: STATUS, expiresAt: now + leftMs };
        writeEntry(fs, dir, KEY, STATUS, 'unique-1', undefined, stale.expiresAt);
        const expired = readEntry(fs, dir, KEY, now, UID);
        writeFailure(fs, dir, KEY, failure, 'unique-2', undefined, stale);
        const remembered = readEntry(fs, dir, KEY, now, UID);
        for (const lookup of [expired, remembered]) {
          if (lookup.hit || !lookup.stale) continue;
          served++;
          const at = Date.parse(
            throughOutage(lookup.stale, 'the token API answered 503', now).status.expirationTimestamp!,
          );
          expect({ nowMs, leftMs, after: at > now, notPastReal: at <= stale.expiresAt }).toEqual({
            nowMs,
            leftMs,
            after: true,
            notPastReal: true,
          });
        }
      }
    }
    // Those with a whole second before the real expiry are still served.
    expect(served).toBeGreaterThan(0);
  });
});
