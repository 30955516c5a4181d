// A hostile device authorization server: interval 0 and authorization_pending for ever, a user_code
// and a verification URI made to drive a terminal, slow_down without end. Each costs bounded work
// (polls at least a second apart, never past the code's life) and shows nothing it should not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();
const DEVICE_CODE = 'device-code-hostile-Qx81';
let api: TokenApi;
let answer: Record<string, unknown> = {};
let poll: Record<string, unknown> = { error: 'authorization_pending' };
/** Every poll of the token endpoint, when it came and what it sent. */
const seen: Array<{ at: number; body: string }> = [];

beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    if (request.path === '/device') return json(response, 200, answer);
    seen.push({ at: Date.now(), body: request.body });
    return json(response, 400, poll);
  });
});
afterAll(() => api.close());

const run = () =>
  runCli(['--config-inline', standInDeviceConfig(api.port, pki.ca.certFile)], {
    env: execInfoEnv(true),
    timeoutMs: 30_000,
  });
const polls = () => seen;

describe('a hostile device authorization server', () => {
  it.each([2, 4])(
    'interval 0 and authorization_pending for a code of %i s: at most one poll a second, none after the code expired',
    async (seconds) => {
      answer = {
        device_code: DEVICE_CODE,
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/verify`,
        expires_in: seconds,
        interval: 0,
      };
      poll = { error: 'authorization_pending' };
      const before = polls().length;
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
      const made = polls().slice(before);
      expect(made.length).toBeLessThanOrEqual(seconds);
      for (let i = 1; i < made.length; i++) expect(made[i]!.at - made[i - 1]!.at).toBeGreaterThanOrEqual(950);
      expect(made.every((r) => new URLSearchParams(r.body).get('device_code') === DEVICE_CODE)).toBe(true);
      expect(leaks(result, [DEVICE_CODE])).toEqual([]);
    },
    30_000,
  );

  it.each([
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
  ])('%s: exit 4 before any prompt or poll', async (_name, change, what) => {
    answer = {
      device_code: DEVICE_CODE,
      user_code: 'ABCD-EFGH',
      verification_uri: `https://localhost:${api.port}/verify`,
      expires_in: 5,
      ...change,
    };
    const before = polls().length;
    const result = await run();
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      `webapi-credential: the device authorization endpoint answered ${what}; check login.deviceAuthorization.url\n`,
    );
    expect(polls().length).toBe(before);
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  });

  it('slow_down without end: the interval grows by 5 s each time, and the login ends with the code', async () => {
    answer = {
      device_code: DEVICE_CODE,
      user_code: 'ABCD-EFGH',
      verification_uri: `https://localhost:${api.port}/verify`,
      expires_in: 8,
      interval: 1,
    };
    poll = { error: 'slow_down' };
    const before = polls().length;
    const result = await run();
    expect(result.code).toBe(2);
    // Polls at 1 s and then 1 + 6 = 7 s; the next would be at 18 s, past the code's 8 s.
    expect(polls().length - before).toBe(2);
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  }, 30_000);
});
