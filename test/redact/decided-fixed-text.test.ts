// The plugin's own words in a message (the fixed text of an error about the answer, the cache's lines,
// doctor's report, the --verbose trace) read the same whichever word a secret decided: were a word of
// them that the secret chose shown as [REDACTED], re-running with another threshold would tell which
// way the secret compared, one bit a call, and a chain of comparisons spells it out. Each case runs
// with two thresholds on either side of the secret, so that each word is chosen once, against a real
// local token API that never echoes what it was sent.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { fakeJwt, json, startTokenApi, type Handler, type TokenApi } from '../helpers/token-api.js';
import { closedPort } from '../helpers/integration.js';
import { startApiServer } from '../helpers/apiserver.js';

const SECRET = 'hunter2-decides-31337';
const NOW = Date.parse('2026-03-01T12:00:00Z');
let api: TokenApi;

beforeAll(async () => {
  api = await startTokenApi((_request, response) => json(response, 500, {}), { insecure: true });
});
afterAll(() => api?.close());

function config(yes: string, no: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      allowInsecureHTTP: true,
      retry: { limit: 0 },
      tokenPath: '$.access_token',
      headers: { 'X-Word': `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}` },
      ...extra,
    },
  });
}

/**
 * Both runs, one per threshold (the secret is between them, so each word is chosen once), each in its
 * own home (its own cache) and on a clock that stands still, so that times read the same. `before`
 * runs first in the same home (a call that fills the cache).
 */
async function bothWays(
  args: string[],
  handler: Handler,
  before?: { args: string[]; handler: Handler; now: number; code: number },
): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const t of ['a', 'z']) {
    const homedir = mkdtempSync(join(tmpdir(), 'decided-fixed-'));
    const env = { SECRET };
    if (before) {
      api.handle(before.handler);
      const first = await runInProcess([...before.args, '--set', `t=${t}`], { env, homedir, now: () => before.now });
      expect(first.code, first.stderr).toBe(before.code);
    }
    api.handle(handler);
    results.push(await runInProcess([...args, '--set', `t=${t}`], { env, homedir, now: () => NOW }));
  }
  for (const result of results) expect(leaks(result, [SECRET])).toEqual([]);
  return results;
}

const answering =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_request, response) =>
    json(response, status, body, headers);

describe('errors about the answer', () => {
  it.each([
    ['token', 'other'],
    ['response', 'different'],
    ['matched', 'elsewhere'],
  ])('a tokenPath that matched nothing reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', config(yes, no), '--no-cache'],
      answering(200, { foo: 'x' }),
    );
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr: 'webapi-credential: tokenPath $.access_token matched nothing in the response; $ has keys "foo"\n',
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['expires', 'other'],
    ['seconds', 'minutes'],
  ])('an unusable expires_in reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', config(yes, no, { expiresInPath: '$.expires_in' }), '--no-cache'],
      answering(200, { access_token: 'tok-expires-4242', expires_in: -5 }),
    );
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'webapi-credential: expiresInPath $.expires_in matched the number -5, expected a positive number of seconds\n',
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['login', 'other'],
    ['page', 'side'],
  ])('a login page where JSON was expected reads the same whether the secret chose %s or %s', async (yes, no) => {
    const page = '<html><body>sign in</body></html>';
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', config(yes, no), '--no-cache'],
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end(page);
      },
    );
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr: `webapi-credential: the token API answered with an HTML page, not JSON (text/html, ${page.length} bytes); it looks like a login or error page: url may not be the token endpoint\n`,
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['saying', 'other'],
    ['without', 'within'],
  ])('an error said with 200 reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', config(yes, no), '--no-cache'],
      answering(200, { error: 'invalid_grant' }),
    );
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'webapi-credential: the token API answered without a token (tokenPath $.access_token matched nothing), saying error "invalid_grant"\n',
    });
    expect(second).toEqual(first);
  });

  it('a key of the answer is still redacted in full: it may echo what was sent', async () => {
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', config('echoedword', 'otherword'), '--no-cache'],
      (request, response) => json(response, 200, { [String(request.headers['x-word'])]: 'x' }),
    );
    expect(first).toEqual({
      code: 4,
      stdout: '',
      stderr: 'webapi-credential: tokenPath $.access_token matched nothing in the response; $ has keys "[REDACTED]"\n',
    });
    expect(second).toEqual(first);
  });
});

describe('errors about the request a secret decided', () => {
  it.each([
    ['template', 'other'],
    ['secret', 'plain'],
    ['branch', 'other'],
  ])('a header a secret made invalid reads the same whether the secret chose %s or %s', async (yes, no) => {
    const bad = JSON.parse(config(yes, no)) as { webAPIProviderConfig: { headers: Record<string, string> } };
    bad.webAPIProviderConfig.headers['X-Bad'] = "{{ env.SECRET < vars.t ? 'one\\ntwo' : 'two\\none' }}";
    const [first, second] = await bothWays(
      ['get-token', '--config-inline', JSON.stringify(bad), '--no-cache'],
      answering(200, { access_token: 'tok-never-4242' }),
    );
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'webapi-credential: a template that compares or looks up by a value from env, file() or steps fails for the value it holds; which template and why is not said, as that would tell the secret: give every branch and key a value that each use accepts\n',
    });
    expect(second).toEqual(first);
  });
});

describe("the cache's lines", () => {
  const cached = (yes: string, no: string) =>
    config(yes, no, { expiresInPath: '$.expires_in', cache: { enabled: true, failureTTL: '5m' } });
  it.each([
    ['remembered', 'other'],
    ['cache', 'other'],
    ['token', 'other'],
  ])('a remembered failure reads the same whether the secret chose %s or %s', async (yes, no) => {
    const args = ['get-token', '--config-inline', cached(yes, no)];
    const refusal = answering(400, { error: 'invalid_request' });
    const [first, second] = await bothWays(args, refusal, { args, handler: refusal, now: NOW - 2000, code: 3 });
    expect(first).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'webapi-credential: the token API answered 400 Bad Request: {"error":"invalid_request"} (remembered from 2s ago until 2026-03-01T12:04:58Z; webapi-credential cache clear retries now)\n',
    });
    expect(second).toEqual(first);
  });

  it.each([
    ['outage', 'other'],
    ['served', 'other'],
    ['token', 'other'],
  ])('a credential served through an outage reads the same whether the secret chose %s or %s', async (yes, no) => {
    const args = ['get-token', '--config-inline', cached(yes, no)];
    // Stored an hour ago, for an hour and 30 s: in its margin window now, when the API is down.
    const issued = answering(200, { access_token: 'tok-outage-4242', expires_in: 3630 });
    const [first, second] = await bothWays(args, answering(503, { error: 'unavailable' }), {
      args,
      handler: issued,
      now: NOW - 3_600_000,
      code: 0,
    });
    expect(first!.code).toBe(0);
    expect(first!.stdout).toContain('tok-outage-4242');
    expect(first!.stderr).toBe(
      'webapi-credential: warning: the token API answered 503 Service Unavailable: {"error":"unavailable"}; served through an outage: the cached credential, which really expires at 2026-03-01T12:00:30.000Z\n',
    );
    expect(second).toEqual(first);
  });
});

describe("doctor's report", () => {
  it.each([
    ['token', 'other'],
    ['cache', 'other'],
    ['source', 'other'],
  ])('reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['doctor', '--config-inline', config(yes, no), '--no-cache'],
      answering(400, { error: 'invalid_request' }),
    );
    expect(first!.code).toBe(3);
    expect(first!.stdout).toContain(
      '✗ token API   the token API answered 400 Bad Request: {"error":"invalid_request"}\n',
    );
    expect(first!.stdout).toContain('– credential  not run: token API failed\n');
    expect(first!.stdout).not.toContain('[REDACTED]');
    expect(second).toEqual(first);
  });
});

/**
 * What two runs may not share: times in ms, the home each has, and the skew between the token API's
 * Date header and the clock this test stands still.
 */
const comparable = (stdout: string) =>
  stdout
    .replaceAll(/\d+ ms/g, 'N ms')
    .replaceAll(/(DNS|connect|TLS) \d+/g, '$1 N')
    .replaceAll(/"(ms|answer|lookup|connect|clockSkewMs)": -?\d+/g, '"$1": N')
    .replaceAll(/"date": "[^"]*"/g, '"date": D')
    .replaceAll(/\/tmp\/[^/]+\/\.kube/g, 'HOME/.kube')
    .replace(/this machine's clock is \d+ s (behind|ahead of)/, 'skew');

describe("doctor's report of a credential", () => {
  it.each([
    ['token', 'other'],
    ['entry', 'other'],
    ['expires', 'other'],
    ['/token', 'other'],
  ])('reads the same whether the secret chose %s or %s, as text and as JSON', async (yes, no) => {
    for (const format of ['text', 'json']) {
      const [first, second] = await bothWays(
        [
          'doctor',
          '--config-inline',
          config(yes, no, { expiresInPath: '$.expires_in', cache: { enabled: true } }),
          '-o',
          format,
        ],
        answering(200, { access_token: 'tok-doctor-4242', expires_in: 3600 }),
      );
      expect(first!.code, first!.stderr).toBe(0);
      expect(first!.stdout).not.toContain('[REDACTED]');
      expect(comparable(second!.stdout)).toBe(comparable(first!.stdout));
      if (format === 'json') continue;
      expect(comparable(first!.stdout).split('\n').slice(2, 5)).toEqual([
        `✓ token API   POST ${api.url}/token: 200 in N ms (DNS N, connect N ms)`,
        "✓ credential  token, opaque, 15 characters; expires at 2026-03-01T13:00:00.000Z (in 3600 s), reported to kubectl as 2026-03-01T12:59:00Z; warning: skew the token API's (its Date header); client-go trusts the local clock to decide when a credential expires: set the time (NTP)",
        '✓ cache       HOME/.kube/cache/webapi-credential: entry expires in 3540 s (2026-03-01T12:59:00Z); no lock; note: miss (no entry); note: stored',
      ]);
    }
  });
});

describe('the --verbose trace', () => {
  /** A time in ms is the one thing two runs may not share. */
  const timeless = (result: CliResult) => ({ ...result, stderr: result.stderr.replace(/\d+ ms/g, 'N ms') });

  it.each([
    ['answer', 'other'],
    ['extracted', 'other'],
    ['stored', 'other'],
    ['config', 'other'],
  ])('reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      [
        'get-token',
        '--config-inline',
        config(yes, no, { expiresInPath: '$.expires_in', cache: { enabled: true } }),
        '--verbose',
      ],
      answering(200, { access_token: 'tok-trace-4242', expires_in: 3600 }),
    );
    expect(first!.code).toBe(0);
    expect(first!.stderr).toContain('\n  X-Word: [REDACTED]\n');
    expect(first!.stderr).toContain(
      'webapi-credential: credential extracted, reported to expire at 2026-03-01T12:59:00Z\n',
    );
    expect(first!.stderr).toContain('webapi-credential: cache: stored\n');
    expect(first!.stderr.match(/\[REDACTED\]/g)).toHaveLength(1);
    expect(timeless(second!)).toEqual(timeless(first!));
  });
});

describe("doctor's cluster line", () => {
  it.each([
    ['user', 'other'],
    ['groups', 'other'],
  ])('reads the same whether the secret chose %s or %s, as text and as JSON', async (yes, no) => {
    const cluster = await startApiServer({
      accepts: (token) => (token === 'tok-doctor-4242' ? { username: 'alice', groups: ['dev'] } : undefined),
    });
    try {
      for (const format of ['text', 'json']) {
        const [first, second] = await bothWays(
          [
            'doctor',
            '--config-inline',
            config(yes, no),
            '--server',
            cluster.url,
            '--ca-file',
            cluster.caFile,
            '-o',
            format,
          ],
          answering(200, { access_token: 'tok-doctor-4242', expires_in: 3600 }),
        );
        expect(first!.code, first!.stderr).toBe(0);
        expect(comparable(second!.stdout)).toBe(comparable(first!.stdout));
        if (format === 'text')
          expect(first!.stdout).toMatch(/✓ cluster +https:\/\/\S+ \([^)]*\): user alice, groups dev \(/);
      }
    } finally {
      await cluster.close();
    }
  });
});

describe("doctor's cluster stage when it fails", () => {
  const clusterLine = (result: CliResult) => result.stdout.split('\n').find((l) => l.startsWith('✗ cluster')) ?? '';
  /** The two runs print the same, times in ms and the clock's skew aside. */
  const expectSame = (first: CliResult, second: CliResult) =>
    expect({ ...second, stdout: comparable(second.stdout) }).toEqual({ ...first, stdout: comparable(first.stdout) });

  it.each([
    ['cluster', 'other'],
    ['accept', 'other'],
    ['audience', 'other'],
  ])('a refused credential reads the same whether the secret chose %s or %s', async (yes, no) => {
    const cluster = await startApiServer({ accepts: () => undefined });
    try {
      const token = fakeJwt(Math.floor(NOW / 1000) + 3600, { iss: 'https://issuer.example.test', aud: 'kubernetes' });
      const [first, second] = await bothWays(
        ['doctor', '--config-inline', config(yes, no), '--server', cluster.url, '--ca-file', cluster.caFile],
        answering(200, { access_token: token, expires_in: 3600 }),
      );
      expect(first!.code).toBe(3);
      expect(clusterLine(first!)).toBe(
        `✗ cluster     the cluster does not accept this credential (401 Unauthorized from ${cluster.url}/apis/authentication.k8s.io/v1/selfsubjectreviews): check that its audience, issuer and expiry are what the cluster's authenticator expects (--oidc-* flags, structured authentication, a token webhook); the token's iss is https://issuer.example.test and its aud kubernetes: webapi-credential cluster-auth --from-token (with this config) prints what the cluster must trust for them`,
      );
      expectSame(first!, second!);
    } finally {
      await cluster.close();
    }
  });

  it.each([
    ['refused', 'other'],
    ['server', 'other'],
  ])('a cluster that refuses the connection reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['doctor', '--config-inline', config(yes, no), '--server', `https://127.0.0.1:${await closedPort()}`],
      answering(200, { access_token: 'tok-doctor-4242', expires_in: 3600 }),
    );
    expect(first!.code).toBe(3);
    expect(clusterLine(first!)).toMatch(
      /^✗ cluster {5}connection to the cluster at https:\/\/127\.0\.0\.1:\d+\/version refused: check the server URL$/,
    );
    expectSame(first!, second!);
  });

  it.each([
    ['server', 'other'],
    ['authenticate', 'other'],
  ])('a server that is no https:// URL reads the same whether the secret chose %s or %s', async (yes, no) => {
    const [first, second] = await bothWays(
      ['doctor', '--config-inline', config(yes, no), '--server', 'http://127.0.0.1:1'],
      answering(200, { access_token: 'tok-doctor-4242', expires_in: 3600 }),
    );
    expect(first!.code).toBe(2);
    expect(clusterLine(first!)).toBe(
      '✗ cluster     the cluster\'s server "http://127.0.0.1:1" is not an https:// URL: doctor asks only an API server it can authenticate',
    );
    expectSame(first!, second!);
  });
});
