// The browser login's pure pieces: its config block checked as data, what validate and render show
// (state, nonce and challenge as placeholders), the one callback the listener takes, which program
// opens the browser, and which grant a login runs.
import { describe, expect, it } from 'vitest';
import { validateProviderDocument } from '../../src/config/validate.js';
import { checkPath } from '../../src/credential/jsonpath.js';
import { answerCallback, authorizationUrl } from '../../src/login/grants/authorization-code.js';
import { loginBoundMs, pickGrant } from '../../src/login/grants/index.js';
import { browserCommand } from '../../src/login/open-browser.js';
import type { ProviderConfig } from '../../src/config/schema.js';
import { runInProcess } from '../helpers/in-process.js';

const base = { method: 'POST', url: 'https://idp.example/token', form: { client_id: 'kubectl' } };
const code = { url: 'https://idp.example/authorize', query: { scope: 'openid offline_access' } };
const device = { url: 'https://idp.example/device', form: { scope: 'openid' } };
const validate = (provider: Record<string, unknown>) =>
  validateProviderDocument({ webAPIProviderConfig: provider }, checkPath);
const config = (login: Record<string, unknown>) => {
  const result = validate({ ...base, login });
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.config;
};

describe('login.authorizationCode as data', () => {
  it("takes kubelogin's defaults: localhost, ports 8000 and 18000, no path, 3 minutes", () => {
    expect(config({ authorizationCode: code }).login).toEqual({
      authorizationCode: {
        url: code.url,
        query: { scope: ['openid offline_access'] },
        redirectHost: 'localhost',
        redirectPorts: [8000, 18000],
        redirectPath: '',
      },
      timeoutMs: 180_000,
    });
  });

  it.each([
    [{}, 'webAPIProviderConfig.login', 'names no grant'],
    [
      { authorizationCode: { ...code, query: { state: 'x' } } },
      'webAPIProviderConfig.login.authorizationCode.query.state',
      'sets state itself',
    ],
    [
      { authorizationCode: { ...code, query: { code_challenge_method: 'plain' } } },
      'webAPIProviderConfig.login.authorizationCode.query.code_challenge_method',
      'sets code_challenge_method itself',
    ],
    [
      { authorizationCode: { ...code, redirectPorts: [] } },
      'webAPIProviderConfig.login.authorizationCode.redirectPorts',
      'expected 1 to 16 ports',
    ],
    [
      { authorizationCode: { ...code, redirectPorts: [8000, 8000] } },
      'webAPIProviderConfig.login.authorizationCode.redirectPorts',
      'names a port twice',
    ],
    [
      { authorizationCode: { ...code, redirectPorts: [70000] } },
      'webAPIProviderConfig.login.authorizationCode.redirectPorts[0]',
      '',
    ],
    [
      { authorizationCode: { ...code, redirectHost: 'evil.example' } },
      'webAPIProviderConfig.login.authorizationCode.redirectHost',
      '',
    ],
    [
      { authorizationCode: { ...code, redirectPath: 'callback?x=1' } },
      'webAPIProviderConfig.login.authorizationCode.redirectPath',
      'a path starting with /',
    ],
    [
      { authorizationCode: { ...code, url: 'http://idp.example/authorize' } },
      'webAPIProviderConfig.login.authorizationCode.url',
      'clear text',
    ],
    [{ authorizationCode: code, timeout: '16m' }, 'webAPIProviderConfig.login.timeout', 'at most 15m'],
    [{ authorizationCode: code, timeout: '0s' }, 'webAPIProviderConfig.login.timeout', 'longer than 0s'],
  ])('%j is refused at its field', (login, path, message) => {
    const result = validate({ ...base, login });
    expect(result.ok).toBe(false);
    const issue = !result.ok ? result.issues.find((i) => i.path === path) : undefined;
    expect(issue, JSON.stringify(!result.ok && result.issues)).toBeDefined();
    expect(issue!.message).toContain(message);
  });

  it("needs a client_id: the token request's form, or the query's", () => {
    const result = validate({ method: 'POST', url: 'https://idp.example/token', login: { authorizationCode: code } });
    expect(!result.ok && result.issues.map((i) => i.path)).toEqual(['webAPIProviderConfig.login.authorizationCode']);
    expect(
      validate({
        method: 'POST',
        url: 'https://idp.example/token',
        login: { authorizationCode: { ...code, query: { client_id: 'k' } } },
      }).ok,
    ).toBe(true);
  });

  it('takes login.revocation.url', () => {
    expect(
      config({ authorizationCode: code, revocation: { url: 'https://idp.example/revoke' } }).login?.revocation,
    ).toEqual({ url: 'https://idp.example/revoke' });
  });
});

describe('validate and render of a browser login', () => {
  const inline = JSON.stringify({
    webAPIProviderConfig: { ...base, login: { authorizationCode: { ...code, redirectPorts: [18000, 8000] } } },
  });
  const shown =
    'https://idp.example/authorize?client_id=kubectl&scope=openid+offline_access&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A18000&state=[state]&nonce=[nonce]&code_challenge=[code_challenge]&code_challenge_method=S256';

  it("validate names the authorization URL with the flow's values as placeholders", async () => {
    const result = await runInProcess(['validate', '--config-inline', inline]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `config from --config-inline is valid: POST https://idp.example/token\nbrowser login: GET ${shown}\n`,
    );
  });

  it('render shows the authorization URL, then the code exchange with its secrets as names', async () => {
    const result = await runInProcess(['render', '--config-inline', inline]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `# webAPIProviderConfig.login.authorizationCode (opened in the browser)\nGET ${shown}\n`,
    );
    expect(result.stdout).toContain(
      'client_id=kubectl&grant_type=authorization_code&code=[code]&redirect_uri=[redirect_uri]&code_verifier=[code_verifier]',
    );
  });

  it('a value the authorization request misses is named by its field, before any network', async () => {
    const missing = JSON.stringify({
      webAPIProviderConfig: {
        ...base,
        login: { authorizationCode: { ...code, query: { audience: '{{ vars.audience }}' } } },
      },
    });
    const result = await runInProcess(['validate', '--config-inline', missing]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webAPIProviderConfig.login.authorizationCode.query.audience: {{ vars.audience }}: vars.audience is not set',
    );
  });
});

describe('the one callback the listener takes', () => {
  const expected = { host: 'localhost:8000', path: '', state: 'the-state-0123456789' };
  const get = (target: string, host = 'localhost:8000', extra: Record<string, string> = {}) =>
    answerCallback({ method: 'GET', target, host, ...extra }, expected);

  it('takes the code of a navigation with the right state and Host, and shows neither on its page', () => {
    const { answer, callback } = get(
      '/?code=the-code-0123456789&state=the-state-0123456789&iss=https%3A%2F%2Fidp.example',
      'LOCALHOST:8000',
      { fetchMode: 'navigate' },
    );
    expect(callback).toEqual({ kind: 'code', code: 'the-code-0123456789', iss: 'https://idp.example' });
    expect(answer.status).toBe(200);
    expect(answer.body).not.toContain('the-code');
    expect(answer.body).not.toContain('the-state');
    expect(answer.body).not.toMatch(/<script|<img|<link|src=|href=/i);
  });

  it.each([
    ['a wrong state', '/?code=c&state=the-state-0123456788'],
    ['no state', '/?code=c'],
    ['two states', '/?code=c&state=the-state-0123456789&state=the-state-0123456789'],
    ['no code', '/?state=the-state-0123456789'],
    ['an empty code', '/?code=&state=the-state-0123456789'],
    ['another path', '/favicon.ico?code=c&state=the-state-0123456789'],
    ['a code too long', `/?code=${'c'.repeat(5000)}&state=the-state-0123456789`],
  ])('%s: 404, nothing taken', (_what, target) => {
    expect(get(target)).toEqual({ answer: { status: 404, body: expect.stringContaining('Not found') as string } });
  });

  it.each([
    ['a foreign Host (DNS rebinding)', 'attacker.example:8000', {}],
    ['the other loopback name', '127.0.0.1:8000', {}],
    ['no Host', undefined, {}],
    ["a page's fetch()", 'localhost:8000', { fetchMode: 'cors' }],
    ["a page's <img>", 'localhost:8000', { fetchMode: 'no-cors' }],
  ])('%s: 404, nothing taken', (_what, host, extra) => {
    expect(
      answerCallback(
        { method: 'GET', target: '/?code=c&state=the-state-0123456789', host: host as string | undefined, ...extra },
        expected,
      ).callback,
    ).toBeUndefined();
  });

  it('an error is taken, and shown escaped on a page without script', () => {
    const { answer, callback } = get(
      '/?error=access_denied&error_description=%3Cscript%3Ealert(1)%3C%2Fscript%3E&state=the-state-0123456789',
    );
    expect(callback).toEqual({ kind: 'error', error: 'access_denied', description: '<script>alert(1)</script>' });
    expect(answer.body).toContain('&#60;script&#62;');
    expect(answer.body).not.toContain('<script>');
  });

  it('the redirect path, when the config names one', () => {
    const withPath = { ...expected, path: '/callback' };
    expect(
      answerCallback(
        { method: 'GET', target: '/callback?code=c&state=the-state-0123456789', host: 'localhost:8000' },
        withPath,
      ).callback,
    ).toEqual({ kind: 'code', code: 'c' });
    expect(
      answerCallback({ method: 'GET', target: '/?code=c&state=the-state-0123456789', host: 'localhost:8000' }, withPath)
        .callback,
    ).toBeUndefined();
  });

  it("the authorization URL keeps the configured query and adds the flow's", () => {
    expect(
      authorizationUrl('https://idp.example/authorize?tenant=a', {
        redirectUri: 'http://localhost:8000',
        state: 's',
        nonce: 'n',
        challenge: 'c',
      }),
    ).toBe(
      'https://idp.example/authorize?tenant=a&response_type=code&redirect_uri=http%3A%2F%2Flocalhost%3A8000&state=s&nonce=n&code_challenge=c&code_challenge_method=S256',
    );
  });
});

describe('the browser opener', () => {
  it.each([
    [{ BROWSER: '/opt/my browser' }, 'linux', ['/opt/my browser']],
    [{ DISPLAY: ':0' }, 'linux', ['xdg-open']],
    [{ WAYLAND_DISPLAY: 'wayland-0' }, 'linux', ['xdg-open']],
    [{}, 'linux', undefined],
    [{}, 'darwin', ['open']],
    [{}, 'win32', ['rundll32', 'url.dll,FileProtocolHandler']],
  ])('%j on %s: %j', (env, platform, command) => {
    expect(browserCommand(env, platform)).toEqual(command);
  });
});

describe('which grant a login runs', () => {
  const both: ProviderConfig = config({ authorizationCode: code, deviceAuthorization: device });
  it.each([
    [{ browser: true }, 'browser'],
    [{ browser: false }, 'device'],
    [{ browser: true, grant: 'device' as const }, 'device'],
    [{ browser: false, grant: 'browser' as const }, 'browser'],
  ])('both configured, %j: %s', (choice, name) => {
    expect(pickGrant(both, choice).name).toBe(name);
  });

  it('one configured: that one, wherever it runs; --grant for the other is exit 2 naming what the config has', () => {
    expect(pickGrant(config({ authorizationCode: code }), { browser: false }).name).toBe('browser');
    expect(() => pickGrant(config({ deviceAuthorization: device }), { browser: true, grant: 'browser' })).toThrow(
      '--grant browser: this config has no login.authorizationCode; it logs in with device',
    );
  });
});

describe("a login's bound, which its lock promises the other terminals", () => {
  const code = { url: 'https://idp.example/authorize', query: { client_id: 'kubectl' } };
  const device = { url: 'https://idp.example/device' };

  it("is login.timeout and the exchange for a browser login alone, not the device grant's 15 minutes", () => {
    expect(loginBoundMs(config({ authorizationCode: code, timeout: '5s' }))).toBe(5_000 + 10_000);
    expect(loginBoundMs(config({ authorizationCode: code }))).toBe(3 * 60_000 + 10_000);
  });

  it('is the longest of the grants configured: a device code lives up to 15 minutes', () => {
    expect(loginBoundMs(config({ deviceAuthorization: device }))).toBe(15 * 60_000);
    expect(loginBoundMs(config({ authorizationCode: code, deviceAuthorization: device, timeout: '5s' }))).toBe(
      15 * 60_000,
    );
  });
});
