// A login's prompt is the plugin's frame: its words ("to log in, open", "enter the code") read the same
// whichever word a secret in the config decided, while what the identity provider gave (the page, the
// code) is redacted in full where it is put in. End to end in process, a person said to be at the
// terminal (client-go's spec.interactive), against a real local device authorization endpoint that
// denies the login once polled.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { leaks, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const SECRET = 'hunter2-decides-31337';
const pki = makePki();
let api: TokenApi;
/** The verification page's path: `echo` puts the word the config decided there. */
let echo = false;
/** The token endpoint approves the login at its first poll (else it is denied). */
let approve = false;
const NOW = Date.parse('2026-03-01T12:00:00Z');

beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    if (request.path === '/device') {
      const word = new URLSearchParams(request.body).get('mode') ?? '';
      return json(response, 200, {
        device_code: 'device-code-4242-Zq',
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/${echo ? word : 'verify'}`,
        expires_in: 60,
        interval: 1,
      });
    }
    return approve
      ? json(response, 200, { access_token: 'tok-login-4242-Xy', expires_in: 3600 })
      : json(response, 400, { error: 'access_denied' });
  });
});
afterAll(() => api?.close());

async function bothWays(yes: string, no: string, command: string[] = ['get-token']): Promise<CliResult[]> {
  const config = standInDeviceConfig(api.port, pki.ca.certFile, {
    form: { client_id: 'kubectl' },
    tokenPath: '$.access_token',
    expiresInPath: '$.expires_in',
  });
  // The device authorization request carries the word a secret decided.
  const parsed = JSON.parse(config) as {
    webAPIProviderConfig: { login: { deviceAuthorization: { form?: Record<string, string> } } };
  };
  parsed.webAPIProviderConfig.login.deviceAuthorization.form = {
    ...parsed.webAPIProviderConfig.login.deviceAuthorization.form,
    mode: `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}`,
  };
  const results: CliResult[] = [];
  for (const t of ['a', 'z'])
    results.push(
      await runInProcess([...command, '--config-inline', JSON.stringify(parsed), '--set', `t=${t}`], {
        env: { SECRET, ...execInfoEnv(true) },
        now: () => NOW,
        // The server answers the first poll: its second of interval is not waited.
        loginSleep: () => Promise.resolve(),
      }),
    );
  for (const result of results) expect(leaks(result, [SECRET])).toEqual([]);
  return results;
}

describe("a device login's prompt reads the same whichever word a secret decided", () => {
  it.each([
    ['open', 'other'],
    ['enter', 'other'],
    ['minute', 'other'],
    ['cancels', 'other'],
  ])(
    'whether the secret chose %s or %s',
    async (yes, no) => {
      const [first, second] = await bothWays(yes, no);
      expect(first).toEqual({
        code: 2,
        stdout: '',
        stderr: `webapi-credential: to log in, open https://localhost:${api.port}/verify\nwebapi-credential: and enter the code ABCD-EFGH (within 1 minute; Ctrl-C cancels)\nwebapi-credential: the login was denied at the identity provider; run the command again to log in anew\n`,
      });
      expect(second).toEqual(first);
    },
    20_000,
  );

  it('a page that echoes what was sent is [REDACTED] where it is put in, the words around it the same', async () => {
    echo = true;
    try {
      const [first, second] = await bothWays('echoone', 'echotwo');
      expect(first!.stderr.split('\n')[0]).toBe(
        `webapi-credential: to log in, open https://localhost:${api.port}/[REDACTED]`,
      );
      expect(second).toEqual(first);
    } finally {
      echo = false;
    }
  }, 20_000);

  it.each([
    ['logged', 'other'],
    ['cached', 'other'],
    ['good', 'other'],
    ['refresh', 'other'],
  ])(
    "login's closing lines, whether the secret chose %s or %s",
    async (yes, no) => {
      const cacheDir = mkdtempSync(join(tmpdir(), 'decided-prompt-'));
      approve = true;
      try {
        const [first, second] = await bothWays(yes, no, ['login', '--cache-dir', cacheDir]);
        expect(first!.code, first!.stderr).toBe(0);
        expect(first!.stderr.split('\n').slice(-3)).toEqual([
          `webapi-credential: logged in; the credential is good until 2026-03-01T12:59:00Z, and cached in ${cacheDir}: kubectl uses it with the same config and --cache`,
          'webapi-credential: no refresh token came back (the issuer may not have granted offline_access, or gives none to this client): a new login is needed when the credential expires at 2026-03-01T12:59:00Z',
          '',
        ]);
        expect(second).toEqual(first);
      } finally {
        approve = false;
      }
    },
    20_000,
  );
});
