// A cache note names the error that happened (issue 38 item 5). On a read-only mount Node's recursive
// mkdir meets EROFS, looks at the path, finds nothing, and throws ENOENT: the note said "ENOENT" of a
// parent that is there. The file system below plays that mount: a recursive mkdir under `readOnly`
// throws ENOENT as Node's does, a single one EROFS as the kernel does.
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { openCache, type CacheDeps } from '../../src/cache/cache.js';
import { fileStorage } from '../../src/cache/file-storage.js';
import type { CacheFs } from '../../src/cache/store.js';
import type { CacheEvent } from '../../src/cache/events.js';

function readOnlyBelow(readOnly: string, code = 'EROFS'): CacheFs {
  const real = fs as unknown as CacheFs;
  return {
    ...real,
    mkdirSync: (path, options) => {
      if (!path.startsWith(`${readOnly}/`)) return real.mkdirSync(path, options);
      throw Object.assign(new Error(`${options.recursive ? 'ENOENT' : code}: mkdir '${path}'`), {
        code: options.recursive ? 'ENOENT' : code,
      });
    },
  };
}

function deps(fsUsed: CacheFs): CacheDeps {
  return {
    fs: fsUsed,
    now: () => 0,
    sleep: async () => {},
    pid: process.pid,
    alive: () => true,
    unique: () => 'u',
    trace: () => {},
    randomBytes: () => new Uint8Array(32),
    ...(process.getuid ? { uid: process.getuid() } : {}),
  };
}

it.each(['EROFS', 'EACCES', 'ENOSPC'])(
  'says %s, not ENOENT, when the cache directory cannot be made under a parent that is there',
  (code) => {
    const parent = mkdtempSync(join(tmpdir(), 'webapi-credential-cause-'));
    fs.chmodSync(parent, 0o755);
    const dir = join(parent, 'cache', 'webapi-credential');
    const used = deps(readOnlyBelow(parent, code));
    const events: CacheEvent[] = [];
    expect(openCache(fileStorage(dir, used), dir, used, (event) => events.push(event))).toBeUndefined();
    expect(events).toEqual([{ kind: 'off', text: `off for this call: directory ${dir} is unusable (${code})` }]);
  },
);

it('keeps ENOENT when that is what happened', () => {
  const parent = mkdtempSync(join(tmpdir(), 'webapi-credential-cause-'));
  const dir = join(parent, 'cache');
  const gone: CacheFs = {
    ...(fs as unknown as CacheFs),
    mkdirSync: () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    },
  };
  const used = deps(gone);
  const events: CacheEvent[] = [];
  openCache(fileStorage(dir, used), dir, used, (event) => events.push(event));
  expect(events).toEqual([{ kind: 'off', text: `off for this call: directory ${dir} is unusable (ENOENT)` }]);
});
