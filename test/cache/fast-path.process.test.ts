// The fast path (src/cli/fast-path.ts, src/cache/ref.ts) serves a cached credential from the raw inputs
// and a ref, without rendering the request. These tests hold it to the full path's answers: whatever
// would change the rendered request must miss, and whatever the full path rejects stays rejected.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { V1, V1BETA1, execInfo } from '../helpers/integration.js';
import { cachedConfig, entryAndRef, getToken, onlyEntry, onlyRef, pki, sandbox, tokenApis, tree } from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const token = (stdout: string) => (JSON.parse(stdout) as { status: { token: string } }).status.token;
const fastHit = (dir: string) => `${PREFIX}cache: hit (fast path, ${dir})\n`;

describe.concurrent('the fast path to a cached credential', () => {
  it('misses when an env value read with a default (env.X ?? "d") is set after the entry was cached', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { url: `${api.url}/token?org={{ env.ORG ?? "none" }}` });
    const unset = await getToken(box, config, ['--cache']);
    const set = await getToken(box, config, ['--cache'], { ORG: 'acme' });
    expect([token(unset.stdout), token(set.stdout)]).toEqual(['token-1', 'token-2']);
    expect(api.requests.map((r) => r.query.get('org'))).toEqual(['none', 'acme']);
  });

  it.each([
    ['in a condition', 'env.ORG ? env.ORG : "none"'],
    ['with ||', 'env.ORG || "none"'],
  ])('misses when an env value tested %s is set after the entry was cached', async (_name, expression) => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { url: `${api.url}/token?org={{ ${expression} }}` });
    const unset = await getToken(box, config, ['--cache']);
    const set = await getToken(box, config, ['--cache'], { ORG: 'acme' });
    expect([unset.code, set.code]).toEqual([0, 0]);
    expect(api.requests.map((r) => r.query.get('org'))).toEqual(['none', 'acme']);
    expect(token(set.stdout)).toBe('token-2');
  });

  it('misses when the content of a file() secret is rotated', async () => {
    const api = await startApi();
    const box = sandbox();
    const secret = join(box.root, 'secret');
    writeFileSync(secret, 'file-secret-1\n');
    const config = cachedConfig(api, { headers: { Authorization: `Bearer {{ file("${secret}") }}` } });
    const first = await getToken(box, config, ['--cache']);
    const hit = await getToken(box, config, ['--cache']);
    writeFileSync(secret, 'file-secret-2\n');
    const rotated = await getToken(box, config, ['--cache']);
    expect([token(first.stdout), token(hit.stdout), token(rotated.stdout)]).toEqual(['token-1', 'token-1', 'token-2']);
    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer file-secret-1', 'Bearer file-secret-2']);
  });

  it('misses when the TLS client certificate and key files are rotated', async () => {
    const api = await startApi();
    const box = sandbox();
    const cert = join(box.root, 'client.crt');
    const key = join(box.root, 'client.key');
    copyFileSync(pki.client.certFile, cert);
    copyFileSync(pki.client.keyFile, key);
    const config = cachedConfig(api, { tls: { caFile: pki.ca.certFile, certFile: cert, keyFile: key } });
    await getToken(box, config, ['--cache']);
    expect(token((await getToken(box, config, ['--cache'])).stdout)).toBe('token-1');
    copyFileSync(pki.untrustedServer.certFile, cert);
    copyFileSync(pki.untrustedServer.keyFile, key);
    const rotated = await getToken(box, config, ['--cache']);
    expect(rotated.code).toBe(0);
    expect(token(rotated.stdout)).toBe('token-2');
    expect(api.requests).toHaveLength(2);
  });

  it('names a cache directory holding a bidi override escaped, under --verbose, as the full path does', async () => {
    const api = await startApi();
    const box = sandbox();
    // A directory name read right to left from its middle: shown raw, it would read as another path.
    const dir = join(box.root, 'cache\u202eeman');
    const run = () =>
      runCli(['-c', join(box.root, 'config.json'), '--cache', '--cache-dir', dir, '--verbose'], {
        env: box.env({ API_KEY: 'k' }),
      });
    writeFileSync(join(box.root, 'config.json'), cachedConfig(api));
    expect((await run()).code).toBe(0);
    const hit = await run();
    expect(hit.stderr).toBe(fastHit(dir.replace('\u202e', '\\u202e')));
    expect(api.requests).toHaveLength(1);
  });

  it('misses when the config file is edited to another request, and still hits after an edit that changes nothing', async () => {
    const api = await startApi();
    const box = sandbox();
    const file = join(box.root, 'config.json');
    writeFileSync(file, cachedConfig(api));
    const run = () => runCli(['-c', file, '--cache', '--verbose'], { env: box.env({ API_KEY: 'k' }) });
    const first = await run();
    expect(first.code).toBe(0);
    const hit = await run();
    expect(hit.stderr).toBe(fastHit(box.cacheDir));

    writeFileSync(file, JSON.stringify(JSON.parse(cachedConfig(api)), null, 2));
    const reformatted = await run();
    expect(reformatted.stdout).toBe(first.stdout);
    expect(reformatted.stderr).toContain(`${PREFIX}cache: hit\n`);
    expect(api.requests).toHaveLength(1);

    writeFileSync(file, cachedConfig(api, { url: `${api.url}/other-token` }));
    const edited = await run();
    expect(token(edited.stdout)).toBe('token-2');
    expect(api.requests.map((r) => r.path)).toEqual(['/token', '/other-token']);
  });

  it('serves a config from WEBAPI_CREDENTIAL_CONFIG and from the cluster info of KUBERNETES_EXEC_INFO', async () => {
    const api = await startApi();
    const box = sandbox();
    const file = join(box.root, 'config.json');
    writeFileSync(file, cachedConfig(api));
    const viaEnv = () =>
      runCli(['--cache', '--verbose'], { env: box.env({ API_KEY: 'k', WEBAPI_CREDENTIAL_CONFIG: file }) });
    expect((await viaEnv()).code).toBe(0);
    expect((await viaEnv()).stderr).toBe(fastHit(box.cacheDir));

    const cluster = (server: string) => ({
      server,
      config: {
        webAPIProviderConfig: {
          ...JSON.parse(cachedConfig(api, { url: `${api.url}/token?server={{ cluster.server }}` }))
            .webAPIProviderConfig,
        },
      },
    });
    const viaCluster = (server: string) =>
      runCli(['--cache', '--verbose', '--config-from-cluster'], {
        env: box.env({ API_KEY: 'k', KUBERNETES_EXEC_INFO: execInfo(V1, cluster(server)) }),
      });
    expect((await viaCluster('https://a.example')).code).toBe(0);
    const hit = await viaCluster('https://a.example');
    expect(hit.stderr).toBe(fastHit(box.cacheDir));
    expect(JSON.parse(hit.stdout).apiVersion).toBe(V1);
    const other = await viaCluster('https://b.example');
    expect(token(other.stdout)).toBe('token-3');
    expect(api.requests.map((r) => r.query.get('server'))).toEqual([null, 'https://a.example', 'https://b.example']);
  });

  it.each<[string, string[], Record<string, string>, number, string]>([
    [
      'an --api-version that conflicts with KUBERNETES_EXEC_INFO',
      ['--api-version', V1BETA1],
      { KUBERNETES_EXEC_INFO: execInfo(V1) },
      2,
      '--api-version client.authentication.k8s.io/v1beta1 conflicts with client.authentication.k8s.io/v1 asked for by KUBERNETES_EXEC_INFO',
    ],
    [
      'an unsupported --api-version',
      ['--api-version', 'v2'],
      {},
      2,
      '--api-version "v2" is not supported; use client.authentication.k8s.io/v1 or client.authentication.k8s.io/v1beta1',
    ],
    ['a zero --timeout', ['--timeout', '0s'], {}, 2, '--timeout "0s": expected a'],
    ['an unknown --output', ['--output', 'yaml'], {}, 2, ''],
    ['an unknown flag', ['--bogus'], {}, 2, ''],
    [
      'a malformed --set',
      ['--set', 'no-equals-sign'],
      {},
      2,
      '--set "no-equals-sign": expected key=value with a key of letters, digits, _ or -',
    ],
    [
      'a KUBERNETES_EXEC_INFO that is not JSON',
      [],
      { KUBERNETES_EXEC_INFO: '{' },
      2,
      'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
    ],
  ])('still rejects %s when a credential is cached', async (_name, args, env, code, message) => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    expect((await getToken(box, config, ['--cache'])).code).toBe(0);
    const result = await getToken(box, config, ['--cache', ...args], env);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
    if (message) expect(result.stderr).toMatch(new RegExp(`^${PREFIX}${escape(message)}.*\n$`));
    else expect(result.stderr).toMatch(/^webapi-credential: .*\(see --help\)\n$/);
    expect(api.requests).toHaveLength(1);
  });

  it('does not use a warm entry when the cache is off: by default, with --no-cache, or --no-cache over the config', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const enabled = cachedConfig(api, { cache: { enabled: true } });
    await getToken(box, config, ['--cache']);
    // Another config text (cache.enabled added), another entry: the config is part of the key.
    expect(token((await getToken(box, enabled)).stdout)).toBe('token-2');
    expect(token((await getToken(box, enabled)).stdout)).toBe('token-2');
    expect(api.requests).toHaveLength(2);
    const files = tree(box.cacheDir);

    const calls = [
      await getToken(box, config),
      await getToken(box, config, ['--no-cache']),
      await getToken(box, enabled, ['--no-cache']),
      await getToken(box, enabled, ['--cache', '--no-cache']),
    ];
    expect(calls.map((r) => token(r.stdout))).toEqual(['token-3', 'token-4', 'token-5', 'token-6']);
    expect(api.requests).toHaveLength(6);
    expect(tree(box.cacheDir)).toEqual(files);
  });

  it('repairs a corrupt ref through the full path without a request', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache']);
    const { path, text } = onlyRef(box.cacheDir);
    writeFileSync(path, text.slice(0, 30));
    const repaired = await getToken(box, config, ['--cache', '--verbose']);
    expect(repaired.stdout).toBe(first.stdout);
    expect(repaired.stderr).toContain(`${PREFIX}cache: hit\n`);
    expect(readFileSync(path, 'utf8')).toBe(text);
    const fast = await getToken(box, config, ['--cache', '--verbose']);
    expect(fast).toEqual({ code: 0, stdout: first.stdout, stderr: fastHit(box.cacheDir) });
    expect(api.requests).toHaveLength(1);
  });

  it('fetches when the ref points at an entry that is gone', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    rmSync(onlyEntry(box.cacheDir).path);
    const result = await getToken(box, config, ['--cache']);
    expect({ code: result.code, token: token(result.stdout), stderr: result.stderr }).toEqual({
      code: 0,
      token: 'token-2',
      stderr: '',
    });
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  });

  it('repeats the insecureSkipVerify warning on every call, hits included', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { tls: { insecureSkipVerify: true } });
    const warning = `${PREFIX}warning: tls.insecureSkipVerify is set: the token API is not authenticated and the credential can be stolen in transit\n`;
    const miss = await getToken(box, config, ['--cache']);
    const hit = await getToken(box, config, ['--cache']);
    expect(miss).toEqual({ code: 0, stdout: miss.stdout, stderr: warning });
    expect(hit).toEqual({ code: 0, stdout: miss.stdout, stderr: warning });
    expect(api.requests).toHaveLength(1);
  });
});
