// validate, render and the browser login agree on a secret in the authorization URL (SPEC "Errors":
// what get-token refuses before any request, validate and render refuse with the same line and exit
// 2). The URL goes to the browser's command line, its history and the IdP's logs, so the login refuses
// it; validate and render called the same config valid before. One check, used by all three.
import { describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const HINT = 'login-hint-secret-31337';
const REFUSED =
  "webapi-credential: login.authorizationCode puts a secret in the browser's URL, where the process list, the browser's history and the identity provider's logs show it: give its url and query as plain text (a client secret belongs in the token request's form)\n";

function config(code: Record<string, unknown>, form: Record<string, string> = { client_id: 'kubectl' }): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://idp.example/token',
      form,
      login: {
        authorizationCode: {
          url: 'https://idp.example/authorize',
          query: { scope: 'openid' },
          redirectPorts: [1],
          ...code,
        },
        timeout: '30s',
      },
    },
  });
}

const CASES: Array<{ name: string; config: string; env: Record<string, string> }> = [
  {
    name: 'an env secret in login.authorizationCode.query',
    config: config({ query: { scope: 'openid', login_hint: '{{ env.HINT }}' } }),
    env: { HINT },
  },
  {
    name: "an env secret in login.authorizationCode.url's query",
    config: config({ url: 'https://idp.example/authorize?login_hint={{ env.HINT }}' }),
    env: { HINT },
  },
  {
    name: 'a one-letter value a secret chose',
    config: config({ query: { scope: 'openid', prompt: '{{ env.HINT > "m" ? "a" : "b" }}' } }),
    env: { HINT },
  },
  {
    name: "the token request's client_id from env, which the URL carries",
    config: config({}, { client_id: '{{ env.HINT }}' }),
    env: { HINT },
  },
];

describe('a secret in the browser login URL: validate, render and login say the same', () => {
  for (const { name, config: text, env } of CASES) {
    for (const command of [['validate'], ['render'], ['login', '--no-browser', '--no-cache']]) {
      it(`${name}: ${command[0]} is exit 2 with the login's line`, async () => {
        const result = await runInProcess([...command, '--config-inline', text], { env });
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toBe(REFUSED);
        expect(leaks(result, [HINT])).toEqual([]);
      });
    }
  }

  it('validate --allow-unset-env refuses it with the secret unset (a CI gate without the secrets)', async () => {
    const result = await runInProcess([
      'validate',
      '--allow-unset-env',
      '--config-inline',
      config({ query: { scope: 'openid', login_hint: '{{ env.HINT }}' } }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // Refused before the stand-in is noted: the config is wrong whatever the secret holds.
    expect(result.stderr).toBe(REFUSED);
  });

  it("the device grant's endpoint is no browser URL: a secret in its query is sent as the token request's is, and shown nowhere", async () => {
    const device = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://idp.example/token',
        form: { client_id: 'kubectl' },
        login: { deviceAuthorization: { url: 'https://idp.example/device?hint={{ env.HINT }}' } },
      },
    });
    const result = await runInProcess(['validate', '--config-inline', device], { env: { HINT } });
    expect(result.code, result.stderr).toBe(0);
    expect(leaks(result, [HINT])).toEqual([]);
  });

  // A word a secret decided, elsewhere in the config, that the plain URL happens to hold: the check
  // looks for the values read, never the values decided, or its refusal would say which way it went.
  it("a word a secret decided in the token request's form, which the plain URL holds: the same answer for either decision", async () => {
    const text = config({}, { client_id: 'kubectl', mode: '{{ env.HINT < "m" ? "authorize" : "zzzzzzzz" }}' });
    const seen = [];
    for (const hint of ['abc-login-hint-1', 'xyz-login-hint-2']) {
      for (const command of [['validate'], ['get-token', '--no-cache', '--timeout', '2s']]) {
        const result = await runInProcess([...command, '--config-inline', text], { env: { HINT: hint } });
        expect(result.stderr).not.toBe(REFUSED);
        expect(leaks(result, [hint])).toEqual([]);
        seen.push({ command: command[0], code: result.code, stdout: result.stdout, stderr: result.stderr });
      }
    }
    expect(seen.slice(2)).toEqual(seen.slice(0, 2));
  });

  it('plain text in the URL and query is valid, and validate shows the URL the browser gets', async () => {
    const result = await runInProcess([
      'validate',
      '--config-inline',
      config({ query: { scope: 'openid', login_hint: 'alice' } }),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'browser login: GET https://idp.example/authorize?client_id=kubectl&scope=openid&login_hint=alice&',
    );
  });
});
