// The cache never goes backwards, in the narrowest window (SPEC Cache): a caller that writes without
// the lock (its lock taken over, or none to be had) re-reads the entry, then writes. A credential
// another process stores between that read and the rename of the write must survive. The window is
// made deterministic through the injected fs: the other process stores its credential at the moment
// this caller's temp file is written, after its read and before its rename.
import fs, { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cached, type CacheDeps, type Fetch } from '../../src/cache/cache.js';
import { fileStorage } from '../../src/cache/file-storage.js';
import { readEntry, writeEntry, type CacheFs } from '../../src/cache/store.js';
import type { CredentialStatus } from '../../src/credential/exec-credential.js';
import { RequestError } from '../../src/errors.js';

const KEY = 'e'.repeat(64);
const NOW = Date.parse('2026-01-01T00:00:00Z');
const UID = process.getuid?.();
const STORED: CredentialStatus = { token: 'stored-by-another', expirationTimestamp: '2026-01-01T01:00:00Z' };

function cacheDir(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-never-backwards-')), 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  return dir;
}

/**
 * The real fs, except that no lock can be created (the caller fetches without it, as one whose lock
 * was taken over writes without it), and that another process stores STORED as soon as this caller
 * has written the temp file of an entry whose text matches `what`.
 */
function racingFs(dir: string, what: RegExp): { fs: CacheFs; raced: () => boolean } {
  let raced = false;
  const real = fs as unknown as CacheFs;
  return {
    raced: () => raced,
    fs: {
      ...real,
      openSync: (path, flags, mode) => {
        if (path.endsWith('.lock')) throw Object.assign(new Error('read-only'), { code: 'EROFS' });
        return real.openSync(path, flags, mode);
      },
      writeFileSync: (path, data, options) => {
        real.writeFileSync(path, data, options);
        if (!raced && String(path).startsWith(join(dir, KEY)) && what.test(String(data))) {
          raced = true;
          writeEntry(real, dir, KEY, STORED, 'another-process', NOW);
        }
      },
    },
  };
}

function deps(fs: CacheFs, trace: string[]): CacheDeps {
  let n = 0;
  return {
    fs,
    trace: (line) => trace.push(line),
    unique: () => `u${++n}`,
    now: () => NOW,
    sleep: async () => {},
    pid: process.pid,
    alive: () => true,
    uid: UID,
    randomBytes: () => new Uint8Array(32),
  };
}

const timing = { deadline: NOW + 30_000, timeoutMs: 30_000 };

it('a failure is not written over a credential stored between the re-read and the rename: the credential is served and stays', async () => {
  const dir = cacheDir();
  const race = racingFs(dir, /CachedFailure/);
  const trace: string[] = [];
  const failing: Fetch = async () => {
    throw new RequestError('HTTP_STATUS', 'the token API answered 503', { status: 503 });
  };
  const failures = { ttlMs: 10_000, redact: (text: string) => text };
  const served = await cached(
    fileStorage(dir, deps(race.fs, trace)),
    KEY,
    timing,
    failing,
    deps(race.fs, trace),
    failures,
  );
  expect(race.raced()).toBe(true);
  expect(served).toEqual(STORED);
  expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STORED });
  expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  expect(trace).toContain('cache: hit: another process stored a credential while this fetch failed');
  expect(trace.some((line) => line.includes('remembered'))).toBe(false);
});

it('an older credential is not written over a newer one stored between the re-read and the rename', async () => {
  const dir = cacheDir();
  const race = racingFs(dir, /CachedCredential/);
  const trace: string[] = [];
  // A slow success: its credential expires before the one another process stores meanwhile.
  const older: CredentialStatus = { token: 'older', expirationTimestamp: '2026-01-01T00:30:00Z' };
  const slow: Fetch = async () => ({ status: older, expiresAt: undefined });
  expect(await cached(fileStorage(dir, deps(race.fs, trace)), KEY, timing, slow, deps(race.fs, trace))).toEqual(older);
  expect(race.raced()).toBe(true);
  expect(readEntry(fs, dir, KEY, NOW, UID)).toEqual({ hit: true, status: STORED });
  expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  expect(trace).toContain('cache: kept the newer credential another process stored meanwhile');
});
