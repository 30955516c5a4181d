// Nobody waits or fails while a valid credential exists (SPEC Cache, issue 38), against a real HTTPS
// token API and the CLI as separate processes. Nothing here compares a duration with a fixed bound:
// who waited on whom is told by what the token API had answered when a caller finished, and by
// request counts.
import { describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { json, startTokenApi, type Handler } from '../helpers/token-api.js';
import { cachedConfig, getToken, sandbox, spawnCli, tokenApis } from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';
/** 20 s of life, reported 10 s early (the margin is capped at half the lifetime): a 10 s window. */
const LIFETIME_S = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the reported expiry of `stdout`'s credential has passed: the margin window. */
async function intoTheWindow(stdout: string): Promise<void> {
  const reported = Date.parse(JSON.parse(stdout).status.expirationTimestamp);
  await sleep(Math.max(0, reported - Date.now() + 200));
}

describe.concurrent('nobody waits or fails while a valid credential exists', () => {
  it('serves every other caller the still-valid credential at once while one refreshes it inside the margin window', async () => {
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: LIFETIME_S }));
    const box = sandbox();
    const config = cachedConfig(api, { retry: { limit: 0 } });
    const first = await getToken(box, config, ['--cache']);
    expect(first.code, first.stderr).toBe(0);
    const fetchedAt = Date.now();
    await intoTheWindow(first.stdout);
    // The refresh hangs at the token API until the test releases it.
    const refresh = api.holdRequest(2);
    const holder = spawnCli(
      ['--config-inline', config, '--cache', '--timeout', '30s'],
      box.env({ API_KEY: 'api-key-1' }),
    );
    await refresh.arrived;
    try {
      const calledAt = Date.now();
      const waiters = await Promise.all(
        Array.from({ length: 3 }, () => getToken(box, config, ['--cache', '--verbose'])),
      );
      // Answered while the holder's request was still held: none of them waited on the token API.
      expect(api.requests).toHaveLength(2);
      expect(holder.child.exitCode).toBeNull();
      for (const waiter of waiters) {
        expect(waiter.code, waiter.stderr).toBe(0);
        const status = JSON.parse(waiter.stdout).status as { token: string; expirationTimestamp: string };
        expect(status.token).toBe('token-1');
        const given = Date.parse(status.expirationTimestamp);
        // Not slowness-bound: the real expiry is a lifetime after the plugin's fetch, and fetchedAt was read once that call returned.
        expect(given).toBeLessThanOrEqual(fetchedAt + LIFETIME_S * 1000);
        // (Within a minute of the waiter's clock: moot for a 20 s lifetime; outage-rules.test.ts pins it on a clock held still.)
        expect(given).toBeGreaterThan(calledAt - 1_000);
        expect(waiter.stderr).toContain(`${PREFIX}cache: served the cached credential, valid until `);
        // By the fast path: a waiter costs what a hit costs (no config parser, no HTTP client loaded).
        expect(waiter.stderr).toContain(`while process ${holder.child.pid} refreshes it (fast path, `);
        expect(leaks(waiter, ['api-key-1'], ['token-1'])).toEqual([]);
      }
    } finally {
      refresh.release();
    }
    const done = await holder.exited;
    expect(done.code, holder.stderr()).toBe(0);
    expect(JSON.parse(holder.stdout()).status.token).toBe('token-2');
    expect(api.requests).toHaveLength(2);
  }, 60_000);

  it('never takes over a healthy fetch from a caller whose --timeout ends first: it exits 3 naming the holder, and the holder fetches once', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { retry: { limit: 0 } });
    const fetch = api.holdRequest(1);
    const holder = spawnCli(
      ['--config-inline', config, '--cache', '--timeout', '30s'],
      box.env({ API_KEY: 'api-key-1' }),
    );
    await fetch.arrived;
    try {
      const short = await getToken(box, config, ['--cache', '--timeout', '1s']);
      expect(short.code).toBe(3);
      expect(short.stderr).toBe(
        `${PREFIX}no credential within --timeout 1s: process ${holder.child.pid} was still fetching it\n`,
      );
      expect(leaks(short, ['api-key-1'])).toEqual([]);
      expect(api.requests).toHaveLength(1);
    } finally {
      fetch.release();
    }
    expect((await holder.exited).code, holder.stderr()).toBe(0);
    const next = await getToken(box, config, ['--cache', '--timeout', '1s']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toBe(holder.stdout());
    expect(api.requests).toHaveLength(1);
  }, 60_000);

  it("does not take over a holder that waits out a Retry-After: the waiter gets the holder's credential, two requests in all", async () => {
    let n = 0;
    let arrive!: () => void;
    const waitingOut = new Promise<void>((resolve) => (arrive = resolve));
    const handler: Handler = (_request, response) => {
      n++;
      if (n === 1) {
        arrive();
        return json(response, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '5' });
      }
      json(response, 200, { access_token: `token-${n}`, expires_in: 3600 });
    };
    const api = await startTokenApi(handler);
    try {
      const box = sandbox();
      const config = cachedConfig(api, { retry: { limit: 1 } });
      const holder = spawnCli(
        ['--config-inline', config, '--cache', '--timeout', '30s'],
        box.env({ API_KEY: 'api-key-1' }),
      );
      await waitingOut;
      // The waiter's deadline (9 s) ends before the holder's: it waits on it through the 5 s the
      // holder waits out (more than half the waiter's time: the patience that took it over before).
      const waiter = await getToken(box, config, ['--cache', '--timeout', '9s']);
      const held = await holder.exited;
      expect(held.code, holder.stderr()).toBe(0);
      expect(waiter.code, waiter.stderr).toBe(0);
      expect(waiter.stdout).toBe(holder.stdout());
      expect(JSON.parse(waiter.stdout).status.token).toBe('token-2');
      expect(api.requests).toHaveLength(2);
    } finally {
      await api.close();
    }
  }, 60_000);

  it('one 503 with Retry-After: 30 in the margin window, then a healthy API: no exit 3 at all, and one request more than a healthy run', async () => {
    let n = 0;
    let failed = false;
    const handler: Handler = (_request, response) => {
      n++;
      if (n === 2) {
        failed = true;
        return json(response, 503, { error: 'temporarily_unavailable' }, { 'retry-after': '30' });
      }
      json(response, 200, { access_token: `token-${n}`, expires_in: LIFETIME_S });
    };
    const api = await startTokenApi(handler);
    try {
      const box = sandbox();
      const config = cachedConfig(api, { retry: { limit: 0 } });
      const first = await getToken(box, config, ['--cache']);
      expect(first.code, first.stderr).toBe(0);
      const realExpiry = Date.now() + LIFETIME_S * 1000;
      await intoTheWindow(first.stdout);
      // Two callers in a loop, through the 503 and past the served credential's real expiry (the
      // Retry-After would remember the outage 30 s: past it), until the next credential comes.
      const codes: number[] = [];
      const tokens = new Set<string>();
      const loop = async () => {
        while (!tokens.has('token-3') && Date.now() < realExpiry + 25_000) {
          const result = await getToken(box, config, ['--cache']);
          codes.push(result.code ?? -1);
          if (result.code === 0) tokens.add(JSON.parse(result.stdout).status.token as string);
          else expect(result.stderr).toBe('');
          expect(leaks(result, ['api-key-1'], ['token-1', 'token-3'])).toEqual([]);
        }
      };
      await Promise.all([loop(), loop()]);
      expect(failed).toBe(true);
      expect(codes.filter((code) => code !== 0)).toEqual([]);
      expect(tokens).toEqual(new Set(['token-1', 'token-3']));
      // The first credential, the 503, and the next credential: one more than a healthy run.
      expect(api.requests).toHaveLength(3);
    } finally {
      await api.close();
    }
  }, 90_000);
});

describe.concurrent('one login for every terminal', () => {
  it('says at once whose login it waits for; not interactive, it exits 2 after its patience; interactive, it waits on past its own --timeout', async () => {
    // The device endpoint never answers: the first caller holds the login's lock as long as the test wants.
    let arrive!: () => void;
    const atDevice = new Promise<void>((resolve) => (arrive = resolve));
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const api = await startTokenApi(async (request, response) => {
      if (request.path === '/device') {
        arrive();
        await ended;
        response.destroy();
        return;
      }
      json(response, 500, { error: 'server_error' });
    });
    const box = sandbox();
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `${api.url}/token`,
        form: { client_id: 'kubectl' },
        tls: { caFile: JSON.parse(cachedConfig(api)).webAPIProviderConfig.tls.caFile },
        timeout: '30s',
        retry: { limit: 0 },
        login: { deviceAuthorization: { url: `${api.url}/device`, form: { scope: 'openid' } } },
      },
    });
    const exec = (interactive: boolean) => ({
      KUBERNETES_EXEC_INFO: JSON.stringify({
        kind: 'ExecCredential',
        apiVersion: 'client.authentication.k8s.io/v1',
        spec: { interactive },
      }),
    });
    const args = ['--config-inline', config, '--cache'];
    const first = spawnCli(args, box.env(exec(true)));
    const others: ReturnType<typeof spawnCli>[] = [];
    try {
      await atDevice;
      const waiting = new RegExp(
        `^${PREFIX}warning: waiting for the login in another terminal \\(pid ${first.child.pid}, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)$`,
      );
      // Started first, with the shorter --timeout: were it bound by it, it would end first.
      const interactive = spawnCli([...args, '--timeout', '1s'], box.env(exec(true)));
      const script = spawnCli([...args, '--timeout', '2s'], box.env(exec(false)));
      others.push(interactive, script);
      const done = await script.exited;
      expect(done.code).toBe(2);
      expect(
        script
          .stderr()
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.replace(waiting, 'WAITING')),
      ).toEqual([
        'WAITING',
        `${PREFIX}a login is in progress in another terminal (pid ${first.child.pid}): finish it there, then run again`,
      ]);
      expect(script.stdout()).toBe('');
      // The interactive one said the same at once and waits on, past its own 1 s, for the login's bound.
      await interactive.waitForStderr('waiting for the login in another terminal');
      expect(interactive.child.exitCode).toBeNull();
      expect(
        interactive
          .stderr()
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.replace(waiting, 'WAITING')),
      ).toEqual(['WAITING']);
      // One device request: nobody else started a login.
      expect(api.requests.filter((r) => r.path === '/device')).toHaveLength(1);
    } finally {
      for (const child of [first, ...others]) child.child.kill('SIGINT');
      end();
      await Promise.all([first, ...others].map((child) => child.exited));
      await api.close();
    }
  }, 60_000);
});
