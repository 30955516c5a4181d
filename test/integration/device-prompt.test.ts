// The device prompt and the device authorization endpoint's failures, as a person meets them (issue
// 36): a 401 there is said of that endpoint with what the issuer wants of the client, not of "the
// token API"; a page on an IDN host is shown in punycode with a note that it is not the endpoint's
// host; a user_code with a space is refused (exit 4). No device code on stdout or stderr.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();
const DEVICE_CODE = 'device-code-prompt-Zr42';
let api: TokenApi;
let device: (response: Parameters<typeof json>[0]) => void = () => {};
let polls = 0;

beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    if (request.path === '/device') return device(response);
    polls++;
    return json(response, 400, { error: 'access_denied' });
  });
});
afterAll(() => api.close());

const run = () =>
  runCli(['--config-inline', standInDeviceConfig(api.port, pki.ca.certFile)], {
    env: execInfoEnv(true),
    timeoutMs: 30_000,
  });

describe('the device authorization endpoint and its prompt', () => {
  it('a 401 there names that endpoint and what the issuer wants of the client: exit 3', async () => {
    device = (response) =>
      json(response, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
    const before = polls;
    const result = await run();
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^webapi-credential: the device authorization endpoint answered 401 Unauthorized[^\n]*; the issuer does not take this client there: make it a public client \(no secret\) with the device authorization grant enabled, or give the token request the client's authentication \(form client_secret, an Authorization header\)\n$/,
    );
    expect(result.stderr).not.toContain('token API');
    expect(polls).toBe(before);
  });

  it("a page on an IDN host: shown in punycode, with a note that it is not the endpoint's host", async () => {
    device = (response) =>
      json(response, 200, {
        device_code: DEVICE_CODE,
        user_code: 'WDJB-MJHT',
        verification_uri: 'https://\u0456dp.example/device',
        expires_in: 60,
        interval: 1,
      });
    const result = await run();
    expect(result.code).toBe(2);
    const lines = result.stderr.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'webapi-credential: to log in, open https://xn--dp-goc.example/device',
      'webapi-credential: and enter the code WDJB-MJHT (within 1 minute; Ctrl-C cancels)',
      "webapi-credential: note: that page is on xn--dp-goc.example, not on localhost (the device authorization endpoint's host): open it only if xn--dp-goc.example is your identity provider's",
    ]);
    expect(result.stderr).not.toContain('\u0456');
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  });

  it('a user_code with a space is no code: exit 4, no prompt, no poll', async () => {
    device = (response) =>
      json(response, 200, {
        device_code: DEVICE_CODE,
        user_code: 'CALL 555 0100',
        verification_uri: `https://localhost:${api.port}/verify`,
        expires_in: 60,
      });
    const before = polls;
    const result = await run();
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      'webapi-credential: the device authorization endpoint answered a user_code that is not a short code of printable ASCII without spaces; check login.deviceAuthorization.url\n',
    );
    expect(polls).toBe(before);
    expect(leaks(result, [DEVICE_CODE])).toEqual([]);
  });
});
