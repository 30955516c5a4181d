// The cache through the built CLI: real processes, real files in a sandbox HOME/XDG_CACHE_HOME, and a
// real HTTPS token API on loopback that counts the requests (so a hit is proven by the count).
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { V1, V1BETA1, execInfo } from '../helpers/integration.js';
import {
  DIR_NAME,
  cachedConfig,
  entryAndRef,
  getToken,
  modeOf,
  onlyEntry,
  onlyRef,
  pki,
  sandbox,
  tokenApis,
  tree,
} from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';

/** The ExecCredential of a successful call, parsed. */
function credential(stdout: string): {
  apiVersion: string;
  kind: string;
  status: { token: string; expirationTimestamp?: string };
} {
  return JSON.parse(stdout) as ReturnType<typeof credential>;
}

/** A JWT-shaped token with no exp claim: its expiry is unknown. */
function jwtWithoutExp(n: number): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'test', n })}.c2lnbmF0dXJl`;
}

/** Lines of a --verbose trace that talk about the cache. */
function cacheLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.startsWith(`${PREFIX}cache:`))
    .map((line) => line.slice(PREFIX.length));
}

describe.concurrent('the token cache', () => {
  it('serves the second call from the cache: one request, byte-identical stdout, nothing on stderr', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const miss = await getToken(box, config, ['--cache']);
    expect({ code: miss.code, stderr: miss.stderr }).toEqual({ code: 0, stderr: '' });
    expect(credential(miss.stdout).status.token).toBe('token-1');
    expect(credential(miss.stdout).status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(api.requests).toHaveLength(1);

    const hit = await getToken(box, config, ['--cache']);
    expect({ code: hit.code, stderr: hit.stderr }).toEqual({ code: 0, stderr: '' });
    expect(hit.stdout).toBe(miss.stdout);
    expect(api.requests).toHaveLength(1);

    expect(tree(box.xdg)).toEqual([DIR_NAME, ...entryAndRef(box.cacheDir).map((name) => join(DIR_NAME, name))]);
    expect(tree(box.home)).toEqual([]);
  });

  it('notes the miss, the store and the hit (fast path, or full path without a ref) under --verbose', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const miss = await getToken(box, config, ['--cache', '--verbose']);
    expect(miss.code).toBe(0);
    expect(cacheLines(miss.stderr)).toEqual(['cache: miss (no entry)', 'cache: stored']);

    const fast = await getToken(box, config, ['--cache', '--verbose']);
    expect(fast).toEqual({
      code: 0,
      stdout: miss.stdout,
      stderr: `${PREFIX}cache: hit (fast path, ${box.cacheDir})\n`,
    });

    rmSync(onlyRef(box.cacheDir).path);
    const full = await getToken(box, config, ['--cache', '--verbose']);
    expect(full.code).toBe(0);
    expect(full.stdout).toBe(miss.stdout);
    expect(cacheLines(full.stderr)).toEqual(['cache: hit']);
    expect(full.stderr).not.toContain('request:');
    expect(api.requests).toHaveLength(1);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  });

  it('prints the bare token from the cache with --output token', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    const hit = await getToken(box, config, ['--cache', '--output', 'token']);
    expect(hit).toEqual({ code: 0, stdout: 'token-1\n', stderr: '' });
    expect(api.requests).toHaveLength(1);
  });

  it('answers a v1 caller from an entry written for a v1beta1 caller, in v1', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo(V1BETA1) });
    expect(first.code).toBe(0);
    expect(credential(first.stdout).apiVersion).toBe(V1BETA1);

    const v1 = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo(V1) });
    expect({ code: v1.code, stderr: v1.stderr }).toEqual({ code: 0, stderr: '' });
    expect(credential(v1.stdout)).toEqual({ ...credential(first.stdout), apiVersion: V1 });
    expect(v1.stdout).toBe(first.stdout.replace(V1BETA1, V1));

    const none = await getToken(box, config, ['--cache']);
    expect(none.stdout).toBe(first.stdout);

    // The same through the full path (no ref to take the fast path by).
    rmSync(onlyRef(box.cacheDir).path);
    const full = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo(V1) });
    expect(full.stdout).toBe(v1.stdout);
    expect(api.requests).toHaveLength(1);
  });

  it('misses when the secret in the environment is rotated, and still hits for the old secret', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache'], { API_KEY: 'api-key-1' });
    const rotated = await getToken(box, config, ['--cache'], { API_KEY: 'api-key-2' });
    expect([first.code, rotated.code]).toEqual([0, 0]);
    expect(credential(rotated.stdout).status.token).toBe('token-2');
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer api-key-1', 'Bearer api-key-2']);
    expect(tree(box.cacheDir).filter((name) => name.endsWith('.json'))).toHaveLength(2);

    const again = await getToken(box, config, ['--cache'], { API_KEY: 'api-key-2' });
    expect(again.stdout).toBe(rotated.stdout);
    expect(api.requests).toHaveLength(2);
  });

  it('misses for another --set value (another cluster) and hits again for each', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { url: `${api.url}/token?aud={{ vars.cluster }}` });
    const a = await getToken(box, config, ['--cache', '--set', 'cluster=a']);
    const b = await getToken(box, config, ['--cache', '--set', 'cluster=b']);
    expect(credential(a.stdout).status.token).toBe('token-1');
    expect(credential(b.stdout).status.token).toBe('token-2');
    expect(api.requests.map((r) => r.query.get('aud'))).toEqual(['a', 'b']);
    expect((await getToken(box, config, ['--cache', '--set', 'cluster=a'])).stdout).toBe(a.stdout);
    expect((await getToken(box, config, ['--cache', '--set', 'cluster=b'])).stdout).toBe(b.stdout);
    expect(api.requests).toHaveLength(2);
  });

  it('misses on another --set value, as the SPEC keys by the variables', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const a = await getToken(box, config, ['--cache', '--set', 'unused=a']);
    const again = await getToken(box, config, ['--cache', '--set', 'unused=a']);
    const b = await getToken(box, config, ['--cache', '--set', 'unused=b']);
    expect(again.stdout).toBe(a.stdout);
    expect(credential(b.stdout).status.token).toBe('token-2');
    expect(api.requests).toHaveLength(2);
  });

  it.each<[string, (entry: string) => string, string]>([
    ['a corrupt entry', () => '{"apiVersion": nonsense', 'entry is corrupt or truncated'],
    ['a truncated entry', (entry) => entry.slice(0, Math.floor(entry.length / 2)), 'entry is corrupt or truncated'],
    ['an empty entry', () => '', 'entry is corrupt or truncated'],
    [
      'an entry of a foreign format version',
      (entry) => entry.replace('webapi-credential.cache/v5', 'webapi-credential.cache/v0'),
      'entry has another format version',
    ],
    [
      'an entry without a credential',
      (entry) => entry.replace('"token":"token-1"', '"token":""'),
      'entry holds no usable credential',
    ],
  ])('refetches over %s, exits 0 and repairs the entry', async (_name, damage, reason) => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    const { path, text } = onlyEntry(box.cacheDir);
    writeFileSync(path, damage(text));

    const result = await getToken(box, config, ['--cache', '--verbose']);
    expect(result.code).toBe(0);
    expect(credential(result.stdout).status.token).toBe('token-2');
    expect(cacheLines(result.stderr)).toEqual([`cache: miss (${reason})`, 'cache: stored']);
    expect(api.requests).toHaveLength(2);
    expect((onlyEntry(box.cacheDir).entry['status'] as { token: string }).token).toBe('token-2');

    const quiet = await getToken(box, config, ['--cache']);
    expect(quiet).toEqual({ code: 0, stdout: result.stdout, stderr: '' });
    expect(api.requests).toHaveLength(2);
  });

  it('refetches an entry whose expirationTimestamp has passed', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    const { path, text, entry } = onlyEntry(box.cacheDir);
    const stamp = (entry['status'] as { expirationTimestamp: string }).expirationTimestamp;
    writeFileSync(path, text.replace(stamp, '2020-01-01T00:00:00Z'));

    const result = await getToken(box, config, ['--cache', '--verbose']);
    expect(result.code).toBe(0);
    expect(credential(result.stdout).status.token).toBe('token-2');
    expect(cacheLines(result.stderr)).toEqual(['cache: miss (entry expired at 2020-01-01T00:00:00Z)', 'cache: stored']);
    expect(api.requests).toHaveLength(2);
  });

  it('does not serve a credential past its reported expiry when the token API gives short lifetimes', async () => {
    // expires_in 2 s: reported 1 s early (half the lifetime), so it is stale after about a second.
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: 2 }));
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache']);
    const expiry = Date.parse(credential(first.stdout).status.expirationTimestamp!);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now() + 50)));
    const second = await getToken(box, config, ['--cache']);
    expect(credential(second.stdout).status.token).toBe('token-2');
    expect(api.requests).toHaveLength(2);
  });

  it.each<[string, (n: number) => Record<string, unknown>, Record<string, unknown>]>([
    ['an opaque token with no expiry path', (n) => ({ access_token: `token-${n}` }), { expiresInPath: undefined }],
    ['a JWT without an exp claim', (n) => ({ access_token: jwtWithoutExp(n) }), { expiresInPath: undefined }],
  ])('does not cache %s: two calls make two requests and leave no entry', async (_name, body, extra) => {
    const api = await startApi(body);
    const box = sandbox();
    const config = cachedConfig(api, extra);
    const first = await getToken(box, config, ['--cache', '--verbose']);
    const second = await getToken(box, config, ['--cache']);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(credential(first.stdout).status.expirationTimestamp).toBeUndefined();
    expect(cacheLines(first.stderr)).toEqual([
      'cache: miss (no entry)',
      'cache: not storing a credential without a known expiry (set expiresIn, expiryPath or expiresInPath)',
    ]);
    expect(second.stdout).not.toBe(first.stdout);
    expect(api.requests).toHaveLength(2);
    expect(tree(box.cacheDir)).toEqual([]);
  });

  it('prints the credential and exits 0 when the cache directory cannot be created (a file in its path)', async () => {
    const api = await startApi();
    const box = sandbox();
    const file = join(box.root, 'regular-file');
    writeFileSync(file, 'not a directory');
    const dir = join(file, 'cache');
    const config = cachedConfig(api);
    const quiet = await getToken(box, config, ['--cache', '--cache-dir', dir]);
    expect({ code: quiet.code, stderr: quiet.stderr }).toEqual({ code: 0, stderr: '' });
    expect(credential(quiet.stdout).status.token).toBe('token-1');

    const verbose = await getToken(box, config, ['--cache', '--cache-dir', dir, '--verbose']);
    expect(verbose.code).toBe(0);
    expect(credential(verbose.stdout).status.token).toBe('token-2');
    expect(cacheLines(verbose.stderr)).toEqual([`cache: off for this call: directory ${dir} is unusable (ENOTDIR)`]);
    expect(api.requests).toHaveLength(2);
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });

  it('prints the credential and exits 0 when --cache-dir is a regular file', async () => {
    const api = await startApi();
    const box = sandbox();
    const file = join(box.root, 'regular-file');
    writeFileSync(file, 'not a directory');
    const result = await getToken(box, cachedConfig(api), ['--cache', '--cache-dir', file, '--verbose']);
    expect(result.code).toBe(0);
    expect(credential(result.stdout).status.token).toBe('token-1');
    expect(cacheLines(result.stderr)).toEqual([`cache: off for this call: directory ${file} is unusable (EEXIST)`]);
    expect(readFileSync(file, 'utf8')).toBe('not a directory');
  });

  it('creates the cache directory with mode 0700 and the entry with mode 0600', async () => {
    const api = await startApi();
    const box = sandbox();
    await getToken(box, cachedConfig(api), ['--cache']);
    expect(modeOf(box.cacheDir)).toBe(0o700);
    expect(modeOf(onlyEntry(box.cacheDir).path)).toBe(0o600);
  });

  it('leaves an existing 0755 cache directory as it is, and fetches without the cache', async () => {
    const api = await startApi();
    const box = sandbox();
    mkdirSync(box.cacheDir);
    chmodSync(box.cacheDir, 0o755);
    const result = await getToken(box, cachedConfig(api), ['--cache', '--verbose']);
    expect(result.code).toBe(0);
    expect(cacheLines(result.stderr)).toEqual([
      `cache: off for this call: ${box.cacheDir} has mode 755; the cache needs 700`,
    ]);
    expect(modeOf(box.cacheDir)).toBe(0o755);
    expect(tree(box.cacheDir)).toEqual([]);
  });

  it.each<[string, string[], Record<string, unknown>]>([
    ['by default', [], {}],
    ['with --no-cache', ['--no-cache'], {}],
    ['with --no-cache over cache.enabled: true in the config', ['--no-cache'], { cache: { enabled: true } }],
    ['with --cache then --no-cache', ['--cache', '--no-cache'], {}],
    ['with cache.enabled: false', [], { cache: { enabled: false } }],
  ])('writes nothing to disk %s: every call is a request', async (_name, args, extra) => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, extra);
    const first = await getToken(box, config, args);
    const second = await getToken(box, config, args);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(credential(second.stdout).status.token).toBe('token-2');
    expect(api.requests).toHaveLength(2);
    expect(tree(box.home)).toEqual([]);
    expect(tree(box.xdg)).toEqual([]);
  });

  it('caches with cache.enabled: true in the config alone', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { cache: { enabled: true } });
    const first = await getToken(box, config);
    const second = await getToken(box, config);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
    expect(tree(box.xdg)).toEqual([DIR_NAME, ...entryAndRef(box.cacheDir).map((name) => join(DIR_NAME, name))]);
  });

  it('keeps its entries under ~/.kube/cache/webapi-credential when XDG_CACHE_HOME is unset', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const run = () => runCli(['--config-inline', config, '--cache'], { env: { HOME: box.home, API_KEY: 'k' } });
    const first = await run();
    const second = await run();
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
    const dir = join(box.home, '.kube', 'cache', DIR_NAME);
    expect(tree(box.home)).toEqual([
      '.kube',
      join('.kube', 'cache'),
      join('.kube', 'cache', DIR_NAME),
      ...entryAndRef(dir).map((name) => join('.kube', 'cache', DIR_NAME, name)),
    ]);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('keeps its entries in --cache-dir when given, and nowhere else', async () => {
    const api = await startApi();
    const box = sandbox();
    const dir = join(box.root, 'custom', 'dir');
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache', '--cache-dir', dir]);
    const second = await getToken(box, config, ['--cache', '--cache-dir', dir]);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
    expect(tree(dir)).toEqual(entryAndRef(dir));
    expect(modeOf(dir)).toBe(0o700);
    expect([tree(box.home), tree(box.xdg)]).toEqual([[], []]);
  });

  it('cache clear removes the entries of the default directory, so the next call is a request', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { url: `${api.url}/token?x={{ vars.x }}` });
    await getToken(box, config, ['--cache', '--set', 'x=1']);
    await getToken(box, config, ['--cache', '--set', 'x=2']);
    writeFileSync(join(box.cacheDir, 'README.txt'), 'mine');
    // A lock a killed caller left: removed, but no credential.
    writeFileSync(join(box.cacheDir, `${'a'.repeat(64)}.lock`), '', { mode: 0o600 });
    const clear = await runCli(['cache', 'clear'], { env: box.env() });
    expect(api.requests).toHaveLength(2);
    // Two entries; their two refs, the key file and the lock are removed and not counted.
    expect(clear).toEqual({ code: 0, stdout: `removed 2 cached credentials from ${box.cacheDir}\n`, stderr: '' });
    expect(tree(box.cacheDir)).toEqual(['README.txt']);

    const after = await getToken(box, config, ['--cache', '--set', 'x=1']);
    expect(credential(after.stdout).status.token).toBe('token-3');
    expect(api.requests).toHaveLength(3);
  });

  it('cache clear --cache-dir removes the entries of that directory only', async () => {
    const api = await startApi();
    const box = sandbox();
    const dir = join(box.root, 'custom');
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache', '--cache-dir', dir]);
    await getToken(box, config, ['--cache']);
    const clear = await runCli(['cache', 'clear', '--cache-dir', dir], { env: box.env() });
    expect(clear).toEqual({ code: 0, stdout: `removed 1 cached credential from ${dir}\n`, stderr: '' });
    expect(tree(dir)).toEqual([]);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  });

  it('cache clear on a directory that does not exist removes nothing and creates nothing', async () => {
    const box = sandbox();
    const clear = await runCli(['cache', 'clear'], { env: box.env() });
    expect(clear).toEqual({ code: 0, stdout: `removed 0 cached credentials from ${box.cacheDir}\n`, stderr: '' });
    expect(tree(box.xdg)).toEqual([]);
  });

  it('cache clear on a regular file is a usage error', async () => {
    const box = sandbox();
    const file = join(box.root, 'regular-file');
    writeFileSync(file, '');
    const clear = await runCli(['cache', 'clear', '--cache-dir', file], { env: box.env() });
    expect(clear).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}cannot clear the cache in ${file}: ${file} is not a directory; nothing was removed\n`,
    });
  });
});

describe.concurrent('what the cache keeps', () => {
  const SECRETS = {
    header: 'hdr-secret-9Xk2',
    form: 'form-secret-Qp7w',
    file: 'file-secret-Zr4m',
  };

  it('is only the credential: no env value, file() content or TLS key reaches any cache file', async () => {
    const api = await startApi((n) => ({
      access_token: `credential-${n}`,
      expires_in: 3600,
      refresh_token: 'refresh-secret-Hh3',
      scope: 'x',
    }));
    const box = sandbox();
    const secretFile = join(box.root, 'mounted-secret');
    writeFileSync(secretFile, `${SECRETS.file}\n`);
    const config = cachedConfig(api, {
      headers: { Authorization: 'Bearer {{ env.HEADER_SECRET }}', 'X-File': '{{ file(env.SECRET_FILE) }}' },
      form: { client_secret: '{{ env.FORM_SECRET }}' },
      tls: { caFile: pki.ca.certFile, certFile: pki.client.certFile, keyFile: pki.client.keyFile },
    });
    const env = { HEADER_SECRET: SECRETS.header, FORM_SECRET: SECRETS.form, SECRET_FILE: secretFile };
    const first = await getToken(box, config, ['--cache'], env);
    const second = await getToken(box, config, ['--cache'], env);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]!.headers['x-file']).toBe(SECRETS.file);

    const { key, entry } = onlyEntry(box.cacheDir);
    const { ref } = onlyRef(box.cacheDir);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
    expect(entry).toEqual({
      apiVersion: 'webapi-credential.cache/v5',
      kind: 'CachedCredential',
      key,
      status: { token: 'credential-1', expirationTimestamp: credential(first.stdout).status.expirationTimestamp },
      // The real expiry, beside the reported one (served through an outage between the two).
      expiresAt: expect.any(Number),
    });
    // The ref names what the request was rendered from, and holds no digest of their values.
    expect(ref).toEqual({
      apiVersion: 'webapi-credential.cache/v5',
      kind: 'CacheRef',
      inputs: expect.stringMatching(/^[0-9a-f]{64}$/),
      env: ['FORM_SECRET', 'HEADER_SECRET', 'SECRET_FILE'],
      files: [secretFile, pki.ca.certFile, pki.client.certFile, pki.client.keyFile].sort(),
      insecure: false,
    });
    const keyBody = pki.client.key.split('\n').filter((line) => line && !line.startsWith('-----'));
    for (const name of tree(box.cacheDir)) {
      const text = readFileSync(join(box.cacheDir, name), 'utf8');
      for (const secret of [...Object.values(SECRETS), 'refresh-secret-Hh3', pki.client.key, ...keyBody]) {
        expect(text).not.toContain(secret);
        expect(name).not.toContain(secret);
      }
    }
  });
});
