// The cache trusts nothing by name. Each case is an attack that worked on the earlier cache: a
// symlinked cache directory made the plugin chmod and empty what it pointed at; entries and refs
// swapped for a link, another user's file, a hard link or a FIFO were served (or hung the plugin,
// which client-go would wait on for ever); a directory under one that others can write could be
// swapped. Every case must fetch a fresh credential, change nothing it does not own, and end.
import {
  chmodSync,
  chownSync,
  lchownSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { expectFailure } from '../helpers/integration.js';
import { cachedConfig, getToken, modeOf, onlyEntry, onlyRef, sandbox, tokenApis, tree } from './support.js';

const startApi = tokenApis();
const root = process.getuid?.() === 0;
const credentialOf = (stdout: string) => (JSON.parse(stdout) as { status: { token: string } }).status.token;

/** A cache filled by one call, and what a forged entry of its key would hold. */
async function filled() {
  const api = await startApi();
  const box = sandbox();
  const config = cachedConfig(api);
  const first = await getToken(box, config, ['--cache']);
  expect(first.code).toBe(0);
  const entry = onlyEntry(box.cacheDir);
  const forged = entry.text.replace(/"token":"[^"]+"/, '"token":"MALLORY-TOKEN"');
  return { api, box, config, entry, forged };
}

describe('a cache directory that cannot be trusted', () => {
  it('is not followed through a symbolic link: the target keeps its mode and its files', async () => {
    const api = await startApi();
    const box = sandbox();
    const victim = join(box.root, 'victim-home');
    mkdirSync(victim, { mode: 0o755 });
    chmodSync(victim, 0o755);
    writeFileSync(join(victim, 'a'.repeat(64) + '.json'), 'precious');
    const planted = join(box.root, 'planted-cache');
    symlinkSync(victim, planted);
    const result = await getToken(box, cachedConfig(api), ['--cache', '--cache-dir', planted, '--verbose']);
    expect(result.code).toBe(0);
    expect(credentialOf(result.stdout)).toBe('token-1');
    expect(result.stderr).toContain(`cache: off for this call: ${planted} is a symbolic link\n`);
    expect(modeOf(victim)).toBe(0o755);
    expect(readdirSync(victim)).toEqual(['a'.repeat(64) + '.json']);
  });

  it('is not used under a directory that others can write (and that is not a root-owned sticky one)', async () => {
    const api = await startApi();
    const box = sandbox();
    const open = join(box.root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const dir = join(open, 'cache');
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache', '--cache-dir', dir, '--verbose']);
    const second = await getToken(box, config, ['--cache', '--cache-dir', dir]);
    expect(first.stderr).toContain(`cache: off for this call: ${open} above it is writable by others\n`);
    expect([credentialOf(first.stdout), credentialOf(second.stdout)]).toEqual(['token-1', 'token-2']);
    expect(tree(dir)).toEqual([]);
  });

  it.skipIf(!root)(
    'is not used under a directory of another user, even one closed to others: its owner can rename what is in it',
    async () => {
      const api = await startApi();
      const box = sandbox();
      const theirs = join(box.root, 'theirs');
      mkdirSync(theirs);
      chmodSync(theirs, 0o755);
      const dir = join(theirs, 'cache');
      mkdirSync(dir, { mode: 0o700 });
      chownSync(theirs, 4242, 4242);
      const config = cachedConfig(api);
      const first = await getToken(box, config, ['--cache', '--cache-dir', dir, '--verbose']);
      const second = await getToken(box, config, ['--cache', '--cache-dir', dir]);
      expect(first.stderr).toContain(`cache: off for this call: ${theirs} above it belongs to uid 4242\n`);
      expect([credentialOf(first.stdout), credentialOf(second.stdout)]).toEqual(['token-1', 'token-2']);
      expect(tree(dir)).toEqual([]);
    },
  );

  it.skipIf(!root)(
    'is not used, nor made, through a symbolic link of another user, who can point it elsewhere between two calls',
    async () => {
      const api = await startApi();
      const box = sandbox();
      const target = join(box.root, 'target');
      mkdirSync(target, { mode: 0o700 });
      const link = join(box.root, 'their-link');
      symlinkSync(target, link);
      lchownSync(link, 4242, 4242);
      const result = await getToken(box, cachedConfig(api), [
        '--cache',
        '--cache-dir',
        join(link, 'cache'),
        '--verbose',
      ]);
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(`cache: off for this call: ${link} above it is a symbolic link of uid 4242\n`);
      expect(readdirSync(target)).toEqual([]);
    },
  );

  it('is not emptied by cache clear through a symbolic link planted in its place', async () => {
    const box = sandbox();
    const victim = join(box.root, 'victim-home');
    mkdirSync(victim, { mode: 0o755 });
    const names = ['a'.repeat(64) + '.json', 'hmac-key'];
    for (const name of names) writeFileSync(join(victim, name), 'precious');
    symlinkSync(victim, box.cacheDir);
    for (const args of [
      ['cache', 'clear'],
      ['cache', 'clear', '--cache-dir', box.cacheDir],
    ]) {
      const result = await runCli(args, { env: box.env() });
      expectFailure(
        result,
        2,
        `cannot clear the cache in ${box.cacheDir}: ${box.cacheDir} is a symbolic link; nothing was removed`,
      );
    }
    expect(readdirSync(victim).sort()).toEqual(names.sort());
  });

  it('is used under a root-owned sticky directory such as /tmp', async () => {
    const api = await startApi();
    const box = sandbox();
    expect(statSync(box.root.split('/').slice(0, 2).join('/')).mode & 0o1000).not.toBe(0);
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    const second = await getToken(box, config, ['--cache']);
    expect(credentialOf(second.stdout)).toBe('token-1');
  });
});

describe('an entry or a ref swapped for something that is not ours', () => {
  it.each<[string, (path: string, forged: string, dir: string) => void]>([
    [
      'a symbolic link to a forged entry',
      (path, forged, dir) => {
        const elsewhere = join(dir, '..', 'forged.json');
        writeFileSync(elsewhere, forged, { mode: 0o600 });
        rmSync(path);
        symlinkSync(elsewhere, path);
      },
    ],
    [
      'a hard link to a forged entry',
      (path, forged, dir) => {
        const elsewhere = join(dir, '..', 'forged-hard.json');
        writeFileSync(elsewhere, forged, { mode: 0o600 });
        rmSync(path);
        linkSync(elsewhere, path);
      },
    ],
    [
      'a forged entry readable by others',
      (path, forged) => {
        writeFileSync(path, forged);
        chmodSync(path, 0o644);
      },
    ],
  ])('fetches instead of serving %s', async (_name, swap) => {
    const { api, box, config, entry, forged } = await filled();
    swap(entry.path, forged, box.cacheDir);
    const result = await getToken(box, config, ['--cache']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('MALLORY');
    expect(credentialOf(result.stdout)).toBe('token-2');
    expect(api.requests).toHaveLength(2);
  });

  it.skipIf(!root)('fetches instead of serving a forged entry of another user', async () => {
    const { api, box, config, entry, forged } = await filled();
    writeFileSync(entry.path, forged, { mode: 0o600 });
    chownSync(entry.path, 4242, 4242);
    const result = await getToken(box, config, ['--cache', '--verbose']);
    expect(result.stdout).not.toContain('MALLORY');
    expect(result.stderr).toContain('cache: miss (entry is not ours (owned by uid 4242))');
    expect(api.requests).toHaveLength(2);
  });

  // A ref is only an index: without it the full path finds the (genuine) entry by itself.
  it.each([
    ['the entry', 'token-2', 2],
    ['the ref', 'token-1', 1],
  ])('does not hang on a FIFO planted as %s', async (which, token, requests) => {
    const { api, box, config, entry } = await filled();
    const path = which === 'the entry' ? entry.path : onlyRef(box.cacheDir).path;
    rmSync(path);
    execFileSync('mkfifo', ['-m', '600', path]);
    // A read that waited on the FIFO would end at --timeout, exit 3, with no credential.
    const result = await getToken(box, config, ['--cache', '--timeout', '5s']);
    expect(result.code).toBe(0);
    expect(credentialOf(result.stdout)).toBe(token);
    expect(api.requests).toHaveLength(requests);
  });

  it('names no file after a plain hash of a secret: without the cache key nobody can test a guess', async () => {
    const { box } = await filled();
    const key = readFileSync(join(box.cacheDir, 'hmac-key'), 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(modeOf(join(box.cacheDir, 'hmac-key'))).toBe(0o600);
    for (const name of tree(box.cacheDir))
      expect(readFileSync(join(box.cacheDir, name), 'utf8')).not.toContain('api-key');
  });
});
