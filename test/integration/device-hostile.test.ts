// A hostile device authorization server: interval 0 and authorization_pending for ever, a user_code
// and a verification URI made to drive a terminal, slow_down without end. Each costs bounded work
// (polls at least a second apart, never past the code's life) and shows nothing it should not. Each
// test has a server of its own (its answer, its polls), so the tests wait out their codes' lives at
// the same time.
import { describe, it, type TestContext } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi } from '../helpers/token-api.js';

const pki = makePki();
const DEVICE_CODE = 'device-code-hostile-Qx81';

/**
 * The test's own server, closed when it finishes: the device authorization answers a code with
 * `answer`'s fields, every poll of the token endpoint answers `poll`. `polls` is every poll it got,
 * when it came and what it sent; `run` logs in against it.
 */
async function hostile(
  { onTestFinished }: TestContext,
  answer: Record<string, unknown>,
  poll: Record<string, unknown> = { error: 'authorization_pending' },
) {
  const polls: Array<{ at: number; body: string }> = [];
  const api = await startTokenApi((request, response) => {
    if (request.path === '/device')
      return json(response, 200, {
        device_code: DEVICE_CODE,
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/verify`,
        ...answer,
      });
    polls.push({ at: Date.now(), body: request.body });
    return json(response, 400, poll);
  });
  onTestFinished(() => api.close());
  const run = () =>
    runCli(['--config-inline', standInDeviceConfig(api.port, pki.ca.certFile)], {
      env: execInfoEnv(true),
      timeoutMs: 30_000,
    });
  return { polls, run };
}

describe.concurrent('a hostile device authorization server', () => {
  it('slow_down without end: the interval grows by 5 s each time, and the login ends with the code', async (context) => {
    const { expect } = context;
    const { polls, run } = await hostile(context, { expires_in: 8, interval: 1 }, { error: 'slow_down' });
    const result = await run();
    expect(result.code).toBe(2);
    // Polls at 1 s and then 1 + 6 = 7 s; the next would be at 18 s, past the code's 8 s.
    expect(polls).toHaveLength(2);
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  }, 30_000);

  it.for([4, 2])(
    'interval 0 and authorization_pending for a code of %i s: at most one poll a second, none after the code expired',
    { timeout: 30_000 },
    async (seconds, context) => {
      const { expect } = context;
      const { polls, run } = await hostile(context, { expires_in: seconds, interval: 0 });
      const startedAt = Date.now();
      const result = await run();
      expect(result.code).toBe(2);
      expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
        'webapi-credential: the login code expired before it was approved; run the command again for a new code',
      );
      // It gave up no sooner than the code's life, which began after startedAt (a busy machine only makes it later).
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(seconds * 1000);
      // Never more than once a second. How many polls fit is the machine's speed (a slow device request
      // leaves none), not a rule: that it polls at all is shown by every login that gets approved.
      expect(polls.length).toBeLessThanOrEqual(seconds);
      for (let i = 1; i < polls.length; i++) expect(polls[i]!.at - polls[i - 1]!.at).toBeGreaterThanOrEqual(950);
      expect(polls.every((r) => new URLSearchParams(r.body).get('device_code') === DEVICE_CODE)).toBe(true);
      expect(leaks(result, [DEVICE_CODE])).toEqual([]);
    },
  );

  it.for([
    [
      'a user_code that clears the screen',
      { user_code: 'AB\u001b[2JCD' },
      'a user_code that is not a short code of printable ASCII without spaces',
    ],
    [
      'a user_code of 100 kB',
      { user_code: 'A'.repeat(100_000) },
      'a user_code that is not a short code of printable ASCII without spaces',
    ],
    [
      'a verification_uri with an OSC 8 hyperlink',
      { verification_uri: 'https://localhost/\u001b]8;;https://evil.example\u0007x' },
      'a verification_uri that is not an http(s) URL a person can open',
    ],
  ] as const)('%s: exit 4 before any prompt or poll', async ([, change, what], context) => {
    const { expect } = context;
    const { polls, run } = await hostile(context, { expires_in: 5, ...change });
    const result = await run();
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      `webapi-credential: the device authorization endpoint answered ${what}; check login.deviceAuthorization.url\n`,
    );
    expect(polls).toHaveLength(0);
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  });
});
