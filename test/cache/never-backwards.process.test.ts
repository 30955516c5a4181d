// The cache never goes backwards (SPEC Cache): a failure or an older credential never replaces a
// newer valid entry, and a caller whose own fetch failed while another stored a credential serves
// that credential. Single flight holds while the holder lives; a hung holder's lock is taken over by
// one waiter, not all. Against a real HTTPS token API, with the CLI as separate processes.
import { describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { json, startTokenApi, type Handler } from '../helpers/token-api.js';
import { cachedConfig, getToken, onlyEntry, sandbox, spawnCli, tokenApis } from './support.js';

const startApi = tokenApis();

describe.concurrent('the cache never goes backwards', () => {
  it('serves the credential a waiter stored, to the hung holder too, when the hung request ends in a 503: no exit 3 after the credential is stored', async () => {
    // Request 1 hangs until released, then answers 503 (an outage, remembered for 10 s); the rest answer at once.
    let n = 0;
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handler: Handler = async (_request, response) => {
      const number = ++n;
      if (number === 1) {
        arrive();
        await released;
        json(response, 503, { error: 'temporarily_unavailable' });
        return;
      }
      json(response, 200, { access_token: `token-${number}`, expires_in: 300 });
    };
    const api = await startTokenApi(handler);
    try {
      const box = sandbox();
      const config = cachedConfig(api, { retry: { limit: 0 } });
      const env = box.env({ API_KEY: 'api-key-1' });
      // The holder's deadline is near: its hung request is given up at it (never remembered), and
      // the waiters, whose deadlines are later, never take its lock over before (SPEC Cache).
      const holder = spawnCli(['--config-inline', config, '--cache', '--timeout', '10s'], env);
      await arrived;
      const waiters = Array.from({ length: 4 }, () =>
        runCli(['--config-inline', config, '--cache', '--timeout', '40s'], { env, timeoutMs: 55_000 }),
      );
      const served = await Promise.all(waiters);
      // The hung request ends only now in a 503, after a waiter stored token-2: nothing is written over it.
      release();
      const held = await holder.exited;
      const after = await Promise.all(Array.from({ length: 3 }, () => getToken(box, config, ['--cache'])));

      for (const r of served) expect([r.code, r.stderr, JSON.parse(r.stdout).status.token]).toEqual([0, '', 'token-2']);
      expect(held.code).toBe(3);
      expect(holder.stderr()).toMatch(/within --timeout 10s/);
      for (const r of after) expect([r.code, JSON.parse(r.stdout).status.token]).toEqual([0, 'token-2']);
      expect(onlyEntry(box.cacheDir).entry).toMatchObject({ kind: 'CachedCredential' });
      // The hung request and one more, not one per waiter.
      expect(api.requests).toHaveLength(2);
      for (const r of [...served, ...after]) expect(leaks(r, ['api-key-1'])).toEqual([]);
    } finally {
      release();
      await api.close();
    }
  }, 120_000);

  it('makes at most two requests for 16 callers of a slow token API, and all 16 get a credential', async () => {
    // 7 s an answer, well within every caller's --timeout 25s (counted from its start, which a busy
    // machine slows): the holder is never taken over, the rest wait on it.
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: 3600 }), 7_000);
    const box = sandbox();
    const config = cachedConfig(api, { retry: { limit: 0 }, timeout: '20s' });
    const env = box.env({ API_KEY: 'api-key-1' });
    const results = await Promise.all(
      Array.from({ length: 16 }, () =>
        runCli(['--config-inline', config, '--cache', '--timeout', '25s'], { env, timeoutMs: 40_000 }),
      ),
    );
    for (const r of results) expect([r.code, r.stderr]).toEqual([0, '']);
    expect(new Set(results.map((r) => JSON.parse(r.stdout).status.token)).size).toBeLessThanOrEqual(2);
    expect(api.requests.length).toBeGreaterThanOrEqual(1);
    expect(api.requests.length).toBeLessThanOrEqual(2);
  }, 90_000);
});
