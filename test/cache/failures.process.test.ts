// Failures remembered (SPEC Cache): a refused client is asked once for a burst and once per
// failureTTL, not on every call kubectl or Argo CD makes; an outage is remembered for its Retry-After
// (10 s at least, 5 min at most). The entry holds the redacted message and the exit code, never a
// secret, and obeys every trust rule of the cache.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaks, runCli, type CliResult } from '../helpers/cli.js';
import { tokenApis } from '../helpers/integration.js';
import { json, type Handler } from '../helpers/token-api.js';
import { cachedConfig, getToken, onlyEntry, sandbox } from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';
const SECRET = 'client-secret-7f3a9c';
const ROTATED = 'client-secret-rotated-b21e';
/** The secret in the forms an answer could echo it in. */
const FORMS = (secret: string) => [
  secret,
  Buffer.from(secret).toString('base64'),
  Buffer.from(secret).toString('hex'),
  secret.toUpperCase(),
];
const REFUSAL = `the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"client authentication failed for [REDACTED]"}; check env.API_KEY`;
const remembered = (message: string, ago = '0') =>
  new RegExp(
    `^${PREFIX}${escape(message)} \\(remembered from ${ago}s ago until \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ; webapi-credential cache clear retries now\\)\\n$`,
  );
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A token API that refuses every client, echoing the key it was sent (as some do). */
const refusing: Handler = async (request, response) => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
  json(response, 401, { error: 'invalid_client', error_description: `client authentication failed for ${key}` });
};

function expectNoSecret(results: CliResult[], dir: string, secret = SECRET): void {
  for (const result of results) expect(leaks(result, FORMS(secret))).toEqual([]);
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), 'utf8');
    for (const form of FORMS(secret)) expect(text.includes(form), `${name} holds the secret`).toBe(false);
  }
}

describe.concurrent('failures remembered', () => {
  it('makes one request for a burst of 16 refused callers; all but the one that asked print the remembered line', async () => {
    const api = await startApi(refusing);
    const box = sandbox();
    const config = cachedConfig(api);
    const results = await Promise.all(
      Array.from({ length: 16 }, () => getToken(box, config, ['--cache'], { API_KEY: SECRET })),
    );

    expect(api.requests).toHaveLength(1);
    expect(results.map((r) => [r.code, r.stdout])).toEqual(results.map(() => [3, '']));
    const asked = results.filter((r) => r.stderr === `${PREFIX}${REFUSAL}\n`);
    expect(asked).toHaveLength(1);
    for (const r of results.filter((r) => r !== asked[0])) expect(r.stderr).toMatch(remembered(REFUSAL, '\\d+'));
    expectNoSecret(results, box.cacheDir);
    const { path, entry } = onlyEntry(box.cacheDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(entry).toMatchObject({ kind: 'CachedFailure', failure: { exitCode: 3, message: REFUSAL } });
    const failure = entry['failure'] as { at: number; until: number };
    expect(failure.until - failure.at).toBe(10_000);
  });

  it('makes one request for 10 sequential calls, each after the first served from memory by the fast path', async () => {
    const api = await startApi(refusing);
    const box = sandbox();
    // Longer than 10 calls take on a loaded machine: the count is the point here, not the default.
    const config = cachedConfig(api, { cache: { failureTTL: '5m' } });
    const results: CliResult[] = [];
    for (let i = 0; i < 10; i++) results.push(await getToken(box, config, ['--cache'], { API_KEY: SECRET }));
    expect(api.requests).toHaveLength(1);
    expect(results[0]).toEqual({ code: 3, stdout: '', stderr: `${PREFIX}${REFUSAL}\n` });
    for (const r of results.slice(1)) {
      expect(r.code).toBe(3);
      expect(r.stderr).toMatch(remembered(REFUSAL, '\\d+'));
    }
    const verbose = await getToken(box, config, ['--cache', '--verbose'], { API_KEY: SECRET });
    expect(verbose.stderr.split('\n')[0]).toBe(`${PREFIX}cache: failure remembered (fast path, ${box.cacheDir})`);
    expectNoSecret([...results, verbose], box.cacheDir);
  });

  it('asks at once when the secret is rotated, and again after cache clear', async () => {
    const api = await startApi(refusing);
    const box = sandbox();
    const config = cachedConfig(api, { cache: { failureTTL: '5m' } });
    await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect((await getToken(box, config, ['--cache'], { API_KEY: SECRET })).stderr).toMatch(remembered(REFUSAL, '\\d+'));
    expect(api.requests).toHaveLength(1);

    const rotated = await getToken(box, config, ['--cache'], { API_KEY: ROTATED });
    expect(rotated.stderr).toBe(`${PREFIX}${REFUSAL}\n`);
    expect(api.requests).toHaveLength(2);

    const clear = await runCli(['cache', 'clear'], { env: box.env() });
    expect(clear.code).toBe(0);
    const after = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(after.stderr).toBe(`${PREFIX}${REFUSAL}\n`);
    expect(api.requests).toHaveLength(3);
    expectNoSecret([rotated, after], box.cacheDir, ROTATED);
  });

  it('asks every time with cache.failureTTL: 0s', async () => {
    const api = await startApi(refusing);
    const box = sandbox();
    const config = cachedConfig(api, { cache: { failureTTL: '0s' } });
    for (let i = 0; i < 4; i++)
      expect(await getToken(box, config, ['--cache'], { API_KEY: SECRET })).toEqual({
        code: 3,
        stdout: '',
        stderr: `${PREFIX}${REFUSAL}\n`,
      });
    expect(api.requests).toHaveLength(4);
    expect(readdirSync(box.cacheDir).filter((name) => name.endsWith('.json'))).toEqual([]);
  });

  it('asks again once failureTTL has passed, and a success then replaces the failure', async () => {
    let refuse = true;
    const api = await startApi((request, response) =>
      refuse ? refusing(request, response) : json(response, 200, { access_token: 'tok-after', expires_in: 3600 }),
    );
    const box = sandbox();
    const config = cachedConfig(api, { cache: { failureTTL: '400ms' } });
    expect((await getToken(box, config, ['--cache'], { API_KEY: SECRET })).code).toBe(3);
    refuse = false;
    const until = (onlyEntry(box.cacheDir).entry['failure'] as { until: number }).until;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now()) + 50));
    const fixed = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout).status.token).toBe('tok-after');
    expect(onlyEntry(box.cacheDir).entry['kind']).toBe('CachedCredential');
    expect(api.requests).toHaveLength(2);
  });

  it('remembers an unusable answer (exit 4) for failureTTL', async () => {
    const api = await startApi((_request, response) => json(response, 200, { accessToken: 'x', expires_in: 3600 }));
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    const message = 'tokenPath $.access_token matched nothing in the response; $ has keys "accessToken", "expires_in"';
    expect(first).toEqual({ code: 4, stdout: '', stderr: `${PREFIX}${message}\n` });
    const second = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(second.code).toBe(4);
    expect(second.stderr).toMatch(remembered(message, '\\d+'));
    expect(api.requests).toHaveLength(1);
  });

  it.each([
    ['a 503 with Retry-After: 20', 503, { 'retry-after': '20' }, 20_000],
    ['a 429 with Retry-After: 3 (10 s at least)', 429, { 'retry-after': '3' }, 10_000],
    ['a 502 without Retry-After', 502, {}, 10_000],
    ['a 503 with Retry-After: 3600 (5 min at most)', 503, { 'retry-after': '3600' }, 300_000],
    ['a 408', 408, {}, 10_000],
  ])('remembers an outage, %s, for as long as it asks, not for failureTTL', async (_name, status, headers, forMs) => {
    const api = await startApi((_request, response) => json(response, status, { error: 'unavailable' }, headers));
    const box = sandbox();
    // failureTTL differs from every outage time: an outage taken for a refusal would be kept 4 min.
    const config = cachedConfig(api, { retry: { limit: 0 }, cache: { failureTTL: '4m' } });
    const first = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(first.code).toBe(3);
    const { entry } = onlyEntry(box.cacheDir);
    const failure = entry['failure'] as { at: number; until: number; message: string };
    expect(failure.until - failure.at).toBe(forMs);
    const second = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(second.code).toBe(3);
    expect(second.stderr).toMatch(remembered(failure.message, '\\d+'));
    expect(api.requests).toHaveLength(1);
  });

  it('remembers an unreachable token API for 10 s', async () => {
    const api = await startApi(refusing);
    await api.close();
    const box = sandbox();
    const config = cachedConfig(api, { retry: { limit: 0 } });
    const first = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(first.stderr).toBe(`${PREFIX}connection to ${api.url}/token refused\n`);
    const failure = onlyEntry(box.cacheDir).entry['failure'] as { at: number; until: number };
    expect(failure.until - failure.at).toBe(10_000);
    expect((await getToken(box, config, ['--cache'], { API_KEY: SECRET })).stderr).toMatch(
      remembered(`connection to ${api.url}/token refused`, '\\d+'),
    );
  });

  // The entry is written from the message as shown: every form the redactor knows stays out of it too.
  it.each([
    ['base64', (key: string) => Buffer.from(key).toString('base64')],
    ['base64url, unpadded', (key: string) => Buffer.from(key).toString('base64url')],
    ['hex, upper case', (key: string) => Buffer.from(key).toString('hex').toUpperCase()],
    ['percent-encoded', (key: string) => encodeURIComponent(key)],
    ['JSON-escaped in a message', (key: string) => JSON.stringify(key).slice(1, -1)],
  ])('keeps an echoed secret out of the remembered entry and its message: %s', async (_form, echo) => {
    const secret = 'client+secret/7f3a:9c"q';
    const api = await startApi((request, response) => {
      const key = (request.headers.authorization ?? '').replace(/^Bearer /, '');
      json(response, 401, { error: 'invalid_client', error_description: `unknown client ${echo(key)}` });
    });
    const box = sandbox();
    const config = cachedConfig(api, { cache: { failureTTL: '5m' } });
    const first = await getToken(box, config, ['--cache'], { API_KEY: secret });
    const second = await getToken(box, config, ['--cache'], { API_KEY: secret });
    expect(first.code).toBe(3);
    expect(first.stderr).toContain('unknown client [REDACTED]');
    expect(second.stderr).toMatch(remembered(first.stderr.slice(PREFIX.length, -1), '\\d+'));
    expect(api.requests).toHaveLength(1);
    const forms = [
      ...FORMS(secret),
      Buffer.from(secret).toString('base64url').replace(/=+$/, ''),
      encodeURIComponent(secret),
      JSON.stringify(secret).slice(1, -1),
    ];
    for (const result of [first, second]) expect(leaks(result, forms)).toEqual([]);
    const entry = readFileSync(onlyEntry(box.cacheDir).path, 'utf8');
    for (const form of forms) expect(entry.includes(form), `the entry holds ${form}`).toBe(false);
  });

  it.each([
    ['5m', 0, 'config from --config-inline is valid: POST https://auth.example.com/token\n', ''],
    ['0s', 0, 'config from --config-inline is valid: POST https://auth.example.com/token\n', ''],
    [
      '6m',
      2,
      '',
      `${PREFIX}config from --config-inline is invalid: webAPIProviderConfig.cache.failureTTL: must be at most 5m (0s remembers no failure)\n`,
    ],
    [
      '300001ms',
      2,
      '',
      `${PREFIX}config from --config-inline is invalid: webAPIProviderConfig.cache.failureTTL: must be at most 5m (0s remembers no failure)\n`,
    ],
    [
      '-1s',
      2,
      '',
      `${PREFIX}config from --config-inline is invalid: webAPIProviderConfig.cache.failureTTL: expected a duration such as 10s, 500ms or 1m30s, found string "-1s"\n`,
    ],
    [
      '1e9s',
      2,
      '',
      `${PREFIX}config from --config-inline is invalid: webAPIProviderConfig.cache.failureTTL: expected a duration such as 10s, 500ms or 1m30s, found string "1e9s"\n`,
    ],
  ])('validate takes failureTTL %s as the SPEC bounds it', async (ttl, code, stdout, stderr) => {
    const config = {
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://auth.example.com/token',
        tokenPath: '$.t',
        cache: { failureTTL: ttl },
      },
    };
    expect(await runCli(['validate', '--config-inline', JSON.stringify(config)], { env: {} })).toEqual({
      code,
      stdout,
      stderr,
    });
  });

  it('serves a remembered refusal as one line: C1 controls the token API sent stay escapes (fast path included)', async () => {
    const api = await startApi((_request, response) =>
      json(response, 401, { error: 'invalid_client', error_description: 'bad\u009b2Jclient' }),
    );
    const box = sandbox();
    const config = cachedConfig(api, { cache: { failureTTL: '5m' } });
    const message =
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"bad\\u009b2Jclient"}; check env.API_KEY';
    expect(await getToken(box, config, ['--cache'], { API_KEY: SECRET })).toEqual({
      code: 3,
      stdout: '',
      stderr: `${PREFIX}${message}\n`,
    });
    const second = await getToken(box, config, ['--cache'], { API_KEY: SECRET });
    expect(second.stderr).toMatch(remembered(message, '\\d+'));
    expect(api.requests).toHaveLength(1);
  });

  it('remembers nothing without the cache', async () => {
    const api = await startApi(refusing);
    const box = sandbox();
    const config = cachedConfig(api);
    for (let i = 0; i < 3; i++)
      expect((await getToken(box, config, [], { API_KEY: SECRET })).stderr).toBe(`${PREFIX}${REFUSAL}\n`);
    expect(api.requests).toHaveLength(3);
  });
});
