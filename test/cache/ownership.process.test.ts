// A cache directory someone else owns could hold a credential of their choosing: as root (CI runs
// as root) chmod would succeed on it, so ownership is what the cache checks.
import { chownSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cachedConfig, getToken, sandbox, tokenApis } from './support.js';

const api = tokenApis();

describe.skipIf(process.getuid?.() !== 0)('a cache directory that is not ours', () => {
  it('is neither read nor written: the credential is fetched, and --verbose says why', async () => {
    const server = await api();
    const box = sandbox();
    const config = cachedConfig(server);
    // Fill a directory of our own, then hand it to another user as if they had made it.
    const dir = join(box.root, 'shared-cache');
    const first = await getToken(box, config, ['--cache', '--cache-dir', dir]);
    expect(first.code).toBe(0);
    const planted = readdirSync(dir).sort();
    chownSync(dir, 4242, 4242);

    const second = await getToken(box, config, ['--cache', '--cache-dir', dir, '--verbose']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('"token":"token-2"');
    expect(second.stderr).toContain(`cache: off for this call: ${dir} belongs to uid 4242, not to this user (uid 0)\n`);
    expect(server.requests).toHaveLength(2);
    expect(readdirSync(dir).sort()).toEqual(planted);
  });

  it('does not serve an entry planted while a directory of ours was open to others', async () => {
    const server = await api();
    const box = sandbox();
    const config = cachedConfig(server);
    const dir = join(box.root, 'open-cache');
    mkdirSync(dir, { mode: 0o700 });
    expect((await getToken(box, config, ['--cache', '--cache-dir', dir])).code).toBe(0);
    // Loosen it again and forge the entry: neither path may read a directory open to others, and
    // nothing in it is changed: the plugin does not chmod or empty what it does not own alone.
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o777);
    const entry = readdirSync(dir).find((name) => name.endsWith('.json'))!;
    writeFileSync(
      join(dir, entry),
      JSON.stringify({
        apiVersion: 'webapi-credential.cache/v5',
        kind: 'CachedCredential',
        key: entry.slice(0, -5),
        status: { token: 'forged', expirationTimestamp: '2999-01-01T00:00:00Z' },
      }),
    );
    const result = await getToken(box, config, ['--cache', '--cache-dir', dir, '--verbose']);
    expect(result.stderr).not.toContain('fast path');
    expect(result.stderr).toContain(`cache: off for this call: ${dir} has mode 777; the cache needs 700\n`);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"token":"token-2"');
    expect(result.stdout).not.toContain('forged');
    expect(server.requests).toHaveLength(2);
  });
});
