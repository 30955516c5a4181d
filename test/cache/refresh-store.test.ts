// A login's refresh token in the cache entry (store.ts): kept beside a credential and beside a
// remembered failure, read back whatever else the entry holds (an expired credential too), dropped
// without touching the rest; a refresh token the cache did not write (not a string, too long,
// control characters, a time from the future) is none.
import fs, { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FORMAT } from '../../src/cache/key.js';
import { replaceRefresh, entryPath, readEntry, writeEntry, writeFailure } from '../../src/cache/store.js';
import type { CredentialStatus } from '../../src/credential/exec-credential.js';
import { modeOf } from './support.js';

const KEY = 'c'.repeat(64);
const EXPIRY = '2030-01-02T03:04:05Z';
const EXPIRES = Date.parse(EXPIRY);
const NOW = EXPIRES - 3_600_000;
const UID = process.getuid?.();
const STATUS: CredentialStatus = { token: 'id-token-1', expirationTimestamp: EXPIRY };
const REFRESH = { token: 'refresh-token-Zq9', at: NOW - 60_000 };

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-refresh-store-'));
  fs.chmodSync(dir, 0o700);
  return dir;
}

describe('the refresh token in an entry', () => {
  it('is kept beside the credential (0600) and read back with a hit, and with the credential once it expired', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'u1', NOW, EXPIRES + 60_000, REFRESH);
    expect(modeOf(entryPath(dir, KEY))).toBe(0o600);
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STATUS, refresh: REFRESH });
    const expired = readEntry(fs, dir, KEY, EXPIRES + 1, UID);
    expect(expired.hit).toBe(false);
    expect(expired.refresh).toEqual(REFRESH);
    // Past the real expiry too: the refresh token outlives its credential.
    expect(readEntry(fs, dir, KEY, EXPIRES + 3_600_000, UID).refresh).toEqual(REFRESH);
  });

  it('is kept beside a remembered failure (an outage, with the credential served through it)', () => {
    const dir = tempDir();
    const failure = {
      exitCode: 3 as const,
      message: 'the token API answered 503',
      at: EXPIRES + 1,
      until: EXPIRES + 10_001,
      outage: true,
    };
    writeFailure(fs, dir, KEY, failure, 'u2', EXPIRES + 1, { status: STATUS, expiresAt: EXPIRES + 60_000 }, REFRESH);
    const lookup = readEntry(fs, dir, KEY, EXPIRES + 2, UID);
    expect(lookup).toMatchObject({ hit: false, failure, stale: { status: STATUS }, refresh: REFRESH });
  });

  it('is dropped, the rest of the entry as it was', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'u3', NOW, EXPIRES + 60_000, REFRESH);
    replaceRefresh(fs, dir, KEY, undefined, 'u4', UID);
    const text = readFileSync(entryPath(dir, KEY), 'utf8');
    expect(text).not.toContain(REFRESH.token);
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STATUS });
    expect(readEntry(fs, dir, KEY, EXPIRES + 1, UID)).toMatchObject({
      hit: false,
      stale: { status: STATUS, expiresAt: EXPIRES + 60_000 },
    });
    expect(modeOf(entryPath(dir, KEY))).toBe(0o600);
  });

  it('dropped as refused (invalid_grant): the credential of that grant goes with it, in its margin window or served through an outage', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'r1', NOW, EXPIRES + 60_000, REFRESH);
    replaceRefresh(fs, dir, KEY, undefined, 'r2', UID, { held: REFRESH.token, refused: true });
    const text = readFileSync(entryPath(dir, KEY), 'utf8');
    expect(text).not.toContain(REFRESH.token);
    expect(text).not.toContain(STATUS.token);
    expect(readEntry(fs, dir, KEY, EXPIRES + 1, UID)).toEqual({
      hit: false,
      reason: 'entry holds no usable credential',
    });
    const failure = {
      exitCode: 3 as const,
      message: 'the token API answered 503',
      at: EXPIRES + 1,
      until: EXPIRES + 10_001,
      outage: true,
    };
    writeFailure(fs, dir, KEY, failure, 'r3', EXPIRES + 1, { status: STATUS, expiresAt: EXPIRES + 60_000 }, REFRESH);
    replaceRefresh(fs, dir, KEY, undefined, 'r4', UID, { held: REFRESH.token, refused: true });
    expect(readFileSync(entryPath(dir, KEY), 'utf8')).not.toContain(STATUS.token);
    expect(readEntry(fs, dir, KEY, EXPIRES + 20_000, UID)).toMatchObject({ hit: false });
    expect(readEntry(fs, dir, KEY, EXPIRES + 20_000, UID)).not.toHaveProperty('stale');
    expect(modeOf(entryPath(dir, KEY))).toBe(0o600);
  });

  it('never backwards: an entry that holds another refresh token than the one the caller held is left as it is', () => {
    const dir = tempDir();
    const newer = { token: 'refresh-token-newer', at: NOW };
    writeEntry(fs, dir, KEY, { ...STATUS, token: 'id-token-2' }, 'n1', NOW, EXPIRES + 60_000, newer);
    const before = readFileSync(entryPath(dir, KEY), 'utf8');
    replaceRefresh(fs, dir, KEY, undefined, 'n2', UID, { held: REFRESH.token, refused: true });
    replaceRefresh(fs, dir, KEY, { token: 'refresh-token-rotated', at: NOW }, 'n3', UID, { held: REFRESH.token });
    replaceRefresh(fs, dir, KEY, { token: 'refresh-token-rotated', at: NOW }, 'n4', UID, { held: undefined });
    expect(readFileSync(entryPath(dir, KEY), 'utf8')).toBe(before);
  });

  it('never backwards: an entry another process stored between the read and the rename is kept', () => {
    const dir = tempDir();
    writeEntry(fs, dir, KEY, STATUS, 'm1', NOW, EXPIRES + 60_000, REFRESH);
    const newer = { token: 'refresh-token-newer', at: NOW };
    let wrote = false;
    // Another process stores its credential while this one writes its temp file.
    const racing = {
      ...fs,
      writeFileSync: (path: string, data: string, options: { mode: number; flag: string }) => {
        fs.writeFileSync(path, data, options);
        if (!wrote && path.endsWith('.tmp')) {
          wrote = true;
          writeEntry(fs, dir, KEY, { ...STATUS, token: 'id-token-2' }, 'm2', undefined, EXPIRES + 60_000, newer);
        }
      },
    } as typeof fs;
    replaceRefresh(racing, dir, KEY, undefined, 'm3', UID, { held: REFRESH.token, refused: true });
    expect(wrote).toBe(true);
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({
      hit: true,
      status: { ...STATUS, token: 'id-token-2' },
      refresh: newer,
    });
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('dropping from an entry that is not ours, or none, changes nothing', () => {
    const dir = tempDir();
    replaceRefresh(fs, dir, KEY, undefined, 'u5', UID);
    const foreign = JSON.stringify({
      apiVersion: 'webapi-credential.cache/v0',
      kind: 'CachedCredential',
      key: KEY,
      status: STATUS,
      refresh: REFRESH,
    });
    writeFileSync(entryPath(dir, KEY), foreign, { mode: 0o600 });
    replaceRefresh(fs, dir, KEY, undefined, 'u6', UID);
    expect(readFileSync(entryPath(dir, KEY), 'utf8')).toBe(foreign);
  });

  it.each<[string, unknown]>([
    ['not an object', 'refresh-token'],
    ['no token', { at: NOW }],
    ['an empty token', { token: '', at: NOW }],
    ['a token with a newline', { token: 'a\nb', at: NOW }],
    ['a token with a DEL', { token: 'a\u007fb', at: NOW }],
    ['a token past 16 KiB', { token: 'x'.repeat(16 * 1024 + 1), at: NOW }],
    ['no time', { token: 'rt' }],
    ['a time from the future', { token: 'rt', at: NOW + 60_000 }],
    ['a time that is no number', { token: 'rt', at: '2030-01-01' }],
  ])('one that the cache did not write is none (%s); the credential still serves', (_name, refresh) => {
    const dir = tempDir();
    writeFileSync(
      entryPath(dir, KEY),
      JSON.stringify({
        apiVersion: CACHE_FORMAT,
        kind: 'CachedCredential',
        key: KEY,
        status: STATUS,
        expiresAt: EXPIRES,
        refresh,
      }),
      { mode: 0o600 },
    );
    expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STATUS });
  });
});
