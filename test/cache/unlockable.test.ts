// A lock file that cannot be created at all (EACCES, EROFS…) is not "another process holding it":
// the trace says what happened, once, and the credential is fetched and stored all the same.
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { cached, type CacheDeps } from '../../src/cache/cache.js';
import { fileStorage } from '../../src/cache/file-storage.js';
import type { CacheFs } from '../../src/cache/store.js';

it('fetches without the lock when the lock file cannot be created, and says why in one line', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-unlockable-')), 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  const denying: CacheFs = {
    ...(fs as unknown as CacheFs),
    openSync: (path, flags, mode) => {
      if (path.endsWith('.lock')) throw Object.assign(new Error('permission denied'), { code: 'EACCES' });
      return fs.openSync(path, flags, mode);
    },
  };
  const lines: string[] = [];
  const now = Date.parse('2026-01-01T00:00:00Z');
  const status = { token: 'tok', expirationTimestamp: '2026-01-01T01:00:00Z' };
  const deps: CacheDeps = {
    fs: denying,
    trace: (line) => lines.push(line),
    unique: () => 'u1',
    now: () => now,
    sleep: async () => {},
    pid: process.pid,
    alive: () => true,
    randomBytes: () => new Uint8Array(32),
  };
  const result = await cached(
    fileStorage(dir, deps),
    'b'.repeat(64),
    { deadline: now + 30_000, timeoutMs: 30_000 },
    async () => ({ status, expiresAt: undefined }),
    deps,
  );
  expect(result).toEqual(status);
  expect(lines).toEqual([
    'cache: miss (no entry)',
    'cache: cannot lock (EACCES); fetching without the lock',
    'cache: stored',
  ]);
});

it('removes a lock whose pid write fails (a full file system), so that the next call does not wait on it', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-unlockable-')), 'cache');
  fs.mkdirSync(dir, { mode: 0o700 });
  // The file system takes the lock's creation and refuses its content, as a full one does.
  const full: CacheFs = {
    ...(fs as unknown as CacheFs),
    writeSync: () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    },
    writeFileSync: () => {
      throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    },
  };
  const lines: string[] = [];
  const sleeps: number[] = [];
  const now = Date.parse('2026-01-01T00:00:00Z');
  const status = { token: 'tok', expirationTimestamp: '2026-01-01T01:00:00Z' };
  const deps = {
    fs: full,
    trace: (line: string) => lines.push(line),
    unique: () => `u${lines.length}`,
    now: () => now,
    sleep: async (ms: number) => void sleeps.push(ms),
    pid: process.pid,
    alive: () => true,
    randomBytes: () => new Uint8Array(32),
  };
  for (let call = 0; call < 2; call++) {
    expect(
      await cached(
        fileStorage(dir, deps),
        'd'.repeat(64),
        { deadline: now + 30_000, timeoutMs: 30_000 },
        async () => ({ status, expiresAt: undefined }),
        deps,
      ),
    ).toEqual(status);
  }
  expect(fs.readdirSync(dir)).toEqual([]);
  expect(sleeps).toEqual([]);
  expect(lines.filter((line) => line.startsWith('cache: cannot lock'))).toEqual([
    'cache: cannot lock (ENOSPC); fetching without the lock',
    'cache: cannot lock (ENOSPC); fetching without the lock',
  ]);
});
