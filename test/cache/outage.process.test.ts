// Served through an outage (SPEC Cache): a cached credential past its reported expiry but not its
// real one (the expiryMargin window) is served (exit 0) when the refresh finds the token API
// unreachable, timed out, or answering 5xx, 408 or 429 — with a note on stderr naming the failure
// and the real expiry, and an expirationTimestamp no later than the real expiry and at most a minute
// away. A refusal (4xx) or an unusable answer is never papered over. Against a real HTTPS token API that changes between calls.
import { describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { json, startTokenApi, type Handler, type TokenApi } from '../helpers/token-api.js';
import { cachedConfig, getToken, sandbox, spawnCli } from './support.js';

const PREFIX = 'webapi-credential: ';
/** 30 s of life, reported half of it early (the margin is capped at half the lifetime): a 15 s window, wide enough for a loaded machine. */
const LIFETIME_S = 30;

type Mode = 'ok' | '503' | 'hang' | '401' | 'unusable' | '429' | '408';

async function api(lifetimeS = LIFETIME_S): Promise<{ api: TokenApi; set: (mode: Mode) => void }> {
  let mode: Mode = 'ok';
  let n = 0;
  const handler: Handler = async (_request, response) => {
    n++;
    if (mode === 'ok') return json(response, 200, { access_token: `token-${n}`, expires_in: lifetimeS });
    if (mode === '503') return json(response, 503, { error: 'temporarily_unavailable' });
    if (mode === '401') return json(response, 401, { error: 'invalid_client' });
    // A 200 whose body holds no token: the API's word, not an outage.
    if (mode === 'unusable') return json(response, 200, { token_type: 'Bearer', expires_in: lifetimeS });
    if (mode === '429') return json(response, 429, { error: 'slow_down' }, { 'retry-after': '30' });
    if (mode === '408') return json(response, 408, { error: 'request_timeout' });
    await new Promise((resolve) => setTimeout(resolve, 20_000)); // hang past every caller's deadline
  };
  const started = await startTokenApi(handler);
  return { api: started, set: (next) => (mode = next) };
}

/** The first call's credential, then a wait until its reported expiry has passed. */
async function intoTheWindow(
  box: ReturnType<typeof sandbox>,
  config: string,
): Promise<{ reported: number; fetchedAt: number }> {
  const fetchedAt = Date.now();
  const first = await getToken(box, config, ['--cache']);
  expect(first.code, first.stderr).toBe(0);
  const reported = Date.parse(JSON.parse(first.stdout).status.expirationTimestamp);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, reported - Date.now() + 200)));
  return { reported, fetchedAt };
}

function expectServedThrough(
  result: { code: number | null; stdout: string; stderr: string },
  failure: RegExp,
  { fetchedAt, reported }: { fetchedAt: number; reported: number },
  lifetimeS = LIFETIME_S,
): void {
  expect(result.code, result.stderr).toBe(0);
  const status = JSON.parse(result.stdout).status as { token: string; expirationTimestamp: string };
  expect(status.token).toBe('token-1');
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  const said = new RegExp(
    `^${PREFIX}warning: (.*); served through an outage: the cached credential, which really expires at (\\S+)$`,
  ).exec(lines[0]!);
  expect(said, lines[0]).not.toBeNull();
  expect(said![1]).toMatch(failure);
  const real = Date.parse(said![2]!);
  // The real expiry is the token API's: its lifetime after the first fetch.
  expect(real).toBeGreaterThanOrEqual(fetchedAt + lifetimeS * 1000 - 1_000);
  // Read on the plugin's own clock, no wall clock of ours: the first call reported it a margin
  // (half the lifetime, rounded down to the second) before the real expiry.
  expect(real).toBeGreaterThanOrEqual(reported + (lifetimeS * 1000) / 2);
  expect(real).toBeLessThanOrEqual(reported + lifetimeS * 1000);
  const given = Date.parse(status.expirationTimestamp);
  // No later than the real expiry, which lies under a minute away here: the cap of a minute itself is
  // outage-rules.test.ts's, on a clock it holds still.
  expect(given).toBeLessThanOrEqual(real);
  expect(leaks(result, ['api-key-1'])).toEqual([]);
}

describe.concurrent('served through an outage', () => {
  it('serves the cached credential when the token API turns to 503, then again from the remembered outage without a request', async () => {
    const { api: server, set } = await api();
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      const into = await intoTheWindow(box, config);
      set('503');
      expectServedThrough(await getToken(box, config, ['--cache']), /^the token API answered 503/, into);
      expect(server.requests).toHaveLength(2);
      // The outage is remembered beside the credential: the next call (the fast path) serves it without asking.
      const again = await getToken(box, config, ['--cache']);
      expectServedThrough(
        again,
        /^the token API answered 503.*\(remembered from \d+s ago until [0-9T:.Z-]+; webapi-credential cache clear retries now\)$/,
        into,
      );
      expect(server.requests).toHaveLength(2);
      // doctor's cache line says so.
      const doctor = await runCli(['doctor', '--config-inline', config, '--cache'], {
        env: box.env({ API_KEY: 'api-key-1' }),
      });
      expect(doctor.stdout).toMatch(/cache.*served through an outage/);
      expect(leaks(doctor, ['api-key-1'])).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("serves the cached credential when the token API hangs past the call's --timeout", async () => {
    const { api: server, set } = await api();
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      const into = await intoTheWindow(box, config);
      set('hang');
      expectServedThrough(
        await getToken(box, config, ['--cache', '--timeout', '2s']),
        /^no answer from \S+ within --timeout 2s$/,
        into,
      );
    } finally {
      await server.close();
    }
  }, 60_000);

  // A hung refresh held by another process: nobody waits on it while the credential is valid
  // (stale-while-revalidate, SPEC Cache): every other caller is served the credential at once,
  // with no warning (the API has not failed them), none ends with exit 3 while it is there.
  it('serves the cached credential at once to every caller behind a hung refresh', async () => {
    const { api: server, set } = await api();
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      const into = await intoTheWindow(box, config);
      set('hang');
      const holder = spawnCli(
        ['--config-inline', config, '--cache', '--timeout', '30s'],
        box.env({ API_KEY: 'api-key-1' }),
      );
      try {
        while (server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 25));
        const waiters = await Promise.all(
          Array.from({ length: 4 }, () => getToken(box, config, ['--cache', '--timeout', '4s'])),
        );
        for (const waiter of waiters) {
          expect([waiter.code, waiter.stderr]).toEqual([0, '']);
          const status = JSON.parse(waiter.stdout).status as { token: string; expirationTimestamp: string };
          expect(status.token).toBe('token-1');
          // No later than the real expiry: the first call's report plus its margin (the plugin's own
          // clock, none of ours); the cap of a minute is outage-rules.test.ts's, on a clock held still.
          expect(Date.parse(status.expirationTimestamp)).toBeLessThanOrEqual(into.reported + LIFETIME_S * 1000);
          expect(Date.parse(status.expirationTimestamp)).toBeGreaterThan(into.fetchedAt);
        }
        expect(holder.child.exitCode).toBeNull();
        expect(server.requests).toHaveLength(2);
      } finally {
        holder.child.kill('SIGKILL');
        await holder.exited;
      }
    } finally {
      await server.close();
    }
  }, 60_000);

  // The outage is remembered for 10 s, the window lasts as long as the margin: when the outage
  // outlasts its memory, the next refresh fails again and the credential, still before its real
  // expiry, is served again (the memory that went keeps it, as the credential entry did).
  it('serves the cached credential again when the outage outlasts its remembered failure, until the real expiry', async () => {
    const lifetimeS = 40; // a 20 s window: the 10 s memory and a second refresh fit in it
    const { api: server, set } = await api(lifetimeS);
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      const into = await intoTheWindow(box, config);
      set('503');
      const first = await getToken(box, config, ['--cache']);
      expectServedThrough(first, /^the token API answered 503/, into, lifetimeS);
      const remembered = Date.now();
      // Past the failure memory (10 s), still before the real expiry.
      await new Promise((resolve) => setTimeout(resolve, 10_500));
      expect(Date.now() - remembered).toBeGreaterThan(10_000);
      const again = await getToken(box, config, ['--cache']);
      expectServedThrough(again, /^the token API answered 503 /, into, lifetimeS);
      expect(server.requests).toHaveLength(3);
    } finally {
      await server.close();
    }
  }, 60_000);

  it.each([
    // An outage is remembered for its Retry-After, else 10 s: the next call serves the credential from that memory.
    ['429 with a Retry-After', '429', /^the token API answered 429/, 30],
    ['408', '408', /^the token API answered 408/, 10],
  ] as const)(
    'serves the cached credential when the token API answers %s in the window',
    async (_name, mode, failure, remembersS) => {
      const { api: server, set } = await api();
      try {
        const box = sandbox();
        const config = cachedConfig(server, { retry: { limit: 0 } });
        const into = await intoTheWindow(box, config);
        set(mode);
        const calledAt = Date.now();
        expectServedThrough(await getToken(box, config, ['--cache']), failure, into);
        expect(server.requests).toHaveLength(2);
        const again = await getToken(box, config, ['--cache']);
        expectServedThrough(again, failure, into);
        const until = Date.parse(/remembered from \d+s ago until (\S+);/.exec(again.stderr)![1]!);
        // Remembered for the Retry-After (else 10 s), but at most until the credential served through
        // it really expires (SPEC Cache): then one request is made, and nobody is told of a failure.
        const real = Date.parse(/really expires at (\S+)$/m.exec(again.stderr)![1]!);
        expect(until).toBeGreaterThanOrEqual(Math.min(calledAt + (remembersS - 1) * 1000, real - 1_000));
        // At most until the real expiry; how long it is remembered is failure-memory's rule, pinned on a
        // clock held still (outage-rules.test.ts), not on ours.
        expect(until).toBeLessThanOrEqual(real);
        expect(server.requests).toHaveLength(2);
      } finally {
        await server.close();
      }
    },
    60_000,
  );

  it('never serves over an unusable answer: a 200 without the token in the window is exit 4 with nothing on stdout', async () => {
    const { api: server, set } = await api();
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      await intoTheWindow(box, config);
      set('unusable');
      const result = await getToken(box, config, ['--cache']);
      expect(result.code).toBe(4);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `${PREFIX}tokenPath $.access_token matched nothing in the response; $ has keys "token_type", "expires_in"\n`,
      );
      expect(leaks(result, ['api-key-1', 'token-1'])).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('never serves over a refusal: a 401 in the window is exit 3 with nothing on stdout', async () => {
    const { api: server, set } = await api();
    try {
      const box = sandbox();
      const config = cachedConfig(server, { retry: { limit: 0 } });
      await intoTheWindow(box, config);
      set('401');
      const result = await getToken(box, config, ['--cache']);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(new RegExp(`^${PREFIX}the token API answered 401`));
      expect(result.stderr).not.toContain('outage');
      expect(leaks(result, ['api-key-1'])).toEqual([]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
