// The pure pieces of the device login (src/login/grants/device.ts, src/login/token.ts) and the login block's validation:
// hostile answers cost bounded work and show nothing that could drive a terminal.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, type CredentialError } from '../../src/errors.js';
import { validateProviderDocument } from '../../src/config/validate.js';
import { checkPath } from '../../src/credential/jsonpath.js';
import { readExecInfo } from '../../src/credential/exec-credential.js';
import { pollRequest, promptLines, readDeviceAuthorization, slowedDown } from '../../src/login/grants/device.js';
import { refreshRequest } from '../../src/login/grants/refresh.js';
import { answerLifetimeMs, MAX_LOGIN_MS, readTokenAnswer } from '../../src/login/token.js';
import type { RenderedRequest } from '../../src/request/build.js';

const good = {
  device_code: 'dc-secret',
  user_code: 'WDJB-MJHT',
  verification_uri: 'https://idp.example/device',
  expires_in: 600,
};
const failure = (run: () => unknown): CredentialError => {
  try {
    run();
  } catch (error) {
    return error as CredentialError;
  }
  throw new Error('did not throw');
};

describe('readDeviceAuthorization', () => {
  it('reads an RFC 8628 answer, with the RFC default interval of 5 s', () => {
    expect(
      readDeviceAuthorization({ ...good, verification_uri_complete: 'https://idp.example/device?user_code=WDJB-MJHT' }),
    ).toEqual({
      deviceCode: 'dc-secret',
      userCode: 'WDJB-MJHT',
      verificationUri: 'https://idp.example/device',
      verificationUriComplete: 'https://idp.example/device?user_code=WDJB-MJHT',
      expiresInMs: 600_000,
      intervalMs: 5_000,
    });
  });

  it.each([
    [0, 1_000],
    [1, 1_000],
    [7, 7_000],
    ['3', 3_000],
    [1e12, MAX_LOGIN_MS],
  ])('interval %j is waited as %i ms (never a busy loop, never past the login)', (interval, ms) => {
    expect(readDeviceAuthorization({ ...good, interval }).intervalMs).toBe(ms);
  });

  it.each([1e3, 1e6, 1e9, 1e15, Number.MAX_SAFE_INTEGER])('expires_in %d lasts at most 15 minutes', (expiresIn) => {
    expect(readDeviceAuthorization({ ...good, expires_in: expiresIn }).expiresInMs).toBe(
      Math.min(expiresIn * 1000, MAX_LOGIN_MS),
    );
  });

  it.each([
    ['no device_code', { ...good, device_code: undefined }],
    ['no user_code', { ...good, user_code: undefined }],
    ['a user_code that is not a short code of printable ASCII without spaces', { ...good, user_code: 'x'.repeat(65) }],
    ['a user_code that is not a short code of printable ASCII without spaces', { ...good, user_code: 'AB\u001b[2JCD' }],
    ['a user_code that is not a short code of printable ASCII without spaces', { ...good, user_code: 'AB\u202eCD' }],
    // A code is a code: no sentence to read aloud ("call 555-0100 first"), no look-alike letters.
    ['a user_code that is not a short code of printable ASCII without spaces', { ...good, user_code: 'WDJB MJHT' }],
    ['a user_code that is not a short code of printable ASCII without spaces', { ...good, user_code: 'WDJВ-MJHT' }],
    [
      'a user_code that is not a short code of printable ASCII without spaces',
      { ...good, user_code: 'WDJB\u00a0MJHT' },
    ],
    [
      'a verification_uri that is not an http(s) URL a person can open',
      { ...good, verification_uri: 'javascript:alert(1)' },
    ],
    [
      'a verification_uri that is not an http(s) URL a person can open',
      { ...good, verification_uri: 'https://idp.example/\u001b]8;;x' },
    ],
    [
      'a verification_uri that is not an http(s) URL a person can open',
      { ...good, verification_uri: `https://idp.example/${'a'.repeat(3000)}` },
    ],
    ['no expires_in (seconds the code lives)', { ...good, expires_in: 0 }],
    ['no expires_in (seconds the code lives)', { ...good, expires_in: 'soon' }],
  ])('refuses an answer with %s: exit 4', (what, answer) => {
    const error = failure(() => readDeviceAuthorization(answer));
    expect(exitCodeFor(error)).toBe(4);
    expect(error.message).toBe(
      `the device authorization endpoint answered ${what}; check login.deviceAuthorization.url`,
    );
    expect(error.message).not.toContain('dc-secret');
  });

  it('falls back to verification_uri when verification_uri_complete is unusable', () => {
    const read = readDeviceAuthorization({ ...good, verification_uri_complete: 'https://idp.example/\u0007' });
    expect(read.verificationUriComplete).toBeUndefined();
    expect(promptLines(read)).toEqual([
      'to log in, open https://idp.example/device',
      'and enter the code WDJB-MJHT (within 10 minutes; Ctrl-C cancels)',
    ]);
  });
});

describe('readTokenAnswer', () => {
  it.each([
    [{ error: 'authorization_pending' }, 'pending'],
    [{ error: 'slow_down' }, 'slow_down'],
  ])('%j means wait', (answer, kind) => {
    expect(readTokenAnswer(400, answer, 'device_code')).toEqual({ kind });
  });

  it.each([
    [
      'access_denied',
      'LOGIN_DENIED',
      'the login was denied at the identity provider; run the command again to log in anew',
    ],
    [
      'expired_token',
      'LOGIN_EXPIRED',
      'the login code expired before it was approved; run the command again for a new code',
    ],
  ])('%s ends the login: exit 2', (error, code, message) => {
    const thrown = failure(() => readTokenAnswer(400, { error }, 'device_code'));
    expect([exitCodeFor(thrown), thrown.code, thrown.message]).toEqual([2, code, message]);
  });

  it('any other error is exit 3 naming it, cut to 200 characters and a …', () => {
    const thrown = failure(() =>
      readTokenAnswer(401, { error: 'invalid_client', error_description: 'd'.repeat(5000) }, 'device_code'),
    );
    expect(exitCodeFor(thrown)).toBe(3);
    expect(thrown.message).toBe(
      `the token endpoint refused the device code with 401: "invalid_client" ("${'d'.repeat(200)}…")`,
    );
  });

  it('a refresh answered authorization_pending is no reason to wait: exit 3', () => {
    expect(exitCodeFor(failure(() => readTokenAnswer(400, { error: 'authorization_pending' }, 'refresh_token')))).toBe(
      3,
    );
  });

  it('a 2xx object is the token answer', () => {
    expect(readTokenAnswer(200, { id_token: 'x' }, 'device_code')).toEqual({
      kind: 'token',
      document: { id_token: 'x' },
    });
    expect(exitCodeFor(failure(() => readTokenAnswer(200, ['x'], 'device_code')))).toBe(4);
  });
});

describe('the polling bounds', () => {
  it('slow_down adds 5 s each time and endless ones stop at the login bound', () => {
    let interval = 1_000;
    const seen: number[] = [];
    for (let i = 0; i < 1000; i++) seen.push((interval = slowedDown(interval)));
    expect(seen.slice(0, 3)).toEqual([6_000, 11_000, 16_000]);
    expect(Math.max(...seen)).toBe(MAX_LOGIN_MS);
    // However the server answers, at most 900 polls fit in a login (one a second at least apart).
    expect(MAX_LOGIN_MS / 1_000).toBe(900);
  });

  it('the lifetime of a token answer is its expires_in when positive', () => {
    expect(answerLifetimeMs({ expires_in: 300 })).toBe(300_000);
    expect(answerLifetimeMs({ expires_in: -1 })).toBeUndefined();
    expect(answerLifetimeMs({})).toBeUndefined();
  });
});

describe('the grant requests', () => {
  const token: RenderedRequest = {
    method: 'POST',
    url: 'https://idp.example/token',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'client_id=kubectl',
    tls: { insecureSkipVerify: false },
  };

  it("a poll adds grant_type and device_code to the client's form; what is shown names the code", () => {
    const poll = pollRequest(token, 'a+b/c=');
    expect(poll.body).toBe(
      'client_id=kubectl&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=a%2Bb%2Fc%3D',
    );
    expect(poll.shown?.body).toBe(
      'client_id=kubectl&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=[device_code]',
    );
  });

  it('a refresh is grant_type=refresh_token with the token, against the same endpoint', () => {
    const refresh = refreshRequest({ ...token, body: undefined, headers: {} }, 'rt-1');
    expect([refresh.url, refresh.body, refresh.headers]).toEqual([
      'https://idp.example/token',
      'grant_type=refresh_token&refresh_token=rt-1',
      { 'Content-Type': 'application/x-www-form-urlencoded' },
    ]);
    expect(refresh.shown?.body).not.toContain('rt-1');
  });
});

describe('KUBERNETES_EXEC_INFO spec.interactive', () => {
  it.each([
    [{ interactive: true }, true],
    [{ interactive: false }, false],
    [{ interactive: 'true' }, false],
    [{}, false],
  ])('%j reads as %s', (spec, interactive) => {
    expect(
      readExecInfo(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec }))
        .interactive === true,
    ).toBe(interactive);
  });
});

describe('the login block of a config', () => {
  const base = {
    method: 'POST',
    url: 'https://idp.example/token',
    form: { client_id: 'kubectl' },
    login: { deviceAuthorization: { url: 'https://idp.example/device', form: { scope: 'openid' } } },
  };
  const check = (provider: Record<string, unknown>) =>
    validateProviderDocument({ webAPIProviderConfig: provider }, checkPath);

  it('takes the id_token unless tokenPath says otherwise', () => {
    const result = check(base);
    expect(result.ok && result.config.paths.token).toBe('$.id_token');
    expect(result.ok && result.config.login).toEqual({
      deviceAuthorization: { url: 'https://idp.example/device', form: { scope: ['openid'] } },
      timeoutMs: 180_000,
    });
    const access = check({ ...base, tokenPath: '$.access_token' });
    expect(access.ok && access.config.paths.token).toBe('$.access_token');
  });

  it.each([
    [
      { method: 'GET', form: undefined },
      'webAPIProviderConfig.method: with login, the main request is the token endpoint, which takes POST (RFC 6749 §3.2)',
    ],
    [
      { form: undefined, json: { a: 1 } },
      "webAPIProviderConfig.json: with login, the token request is a form (RFC 6749 §3.2): write the client's fields under form",
    ],
    [
      { form: { client_id: 'k', grant_type: 'x' } },
      'webAPIProviderConfig.form.grant_type: login sets grant_type for each grant (device_code, code, refresh_token); remove it',
    ],
    [
      { login: { deviceAuthorization: { url: 'http://idp.example/device' } } },
      'webAPIProviderConfig.login.deviceAuthorization.url: http:// sends the request in clear text; use https:// or set allowInsecureHTTP: true',
    ],
    [
      { login: { deviceAuthorization: { url: 'idp.example/device' } } },
      'webAPIProviderConfig.login.deviceAuthorization.url: expected an https:// URL, found "idp.example/device"',
    ],
    [
      { login: { deviceAuthorization: { url: 'https://x', scope: 'a' } } },
      'webAPIProviderConfig.login.deviceAuthorization.scope: unknown field (known: url, form)',
    ],
    [
      { login: { deviceAuthorization: { url: 'https://x', fom: { scope: 'a' } } } },
      'webAPIProviderConfig.login.deviceAuthorization.fom: unknown field; did you mean form?',
    ],
    [
      { login: {} },
      'webAPIProviderConfig.login: names no grant: set authorizationCode (a browser), deviceAuthorization (a code to type), or both',
    ],
    [
      { steps: [{ name: 's', method: 'GET', url: 'https://x' }] },
      'webAPIProviderConfig.steps: steps do not run with login: the token endpoint is asked directly',
    ],
  ])('%j: names the field', (change, message) => {
    const result = check({ ...base, ...change });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map((i) => `${i.path}: ${i.message}`)).toContain(message);
  });
});

describe('kubeconfig for a login config', () => {
  it('writes interactiveMode: IfAvailable and --cache; a config without login keeps Never', async () => {
    const { runInProcess } = await import('../helpers/in-process.js');
    const login = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://idp.example/token',
        form: { client_id: 'kubectl' },
        login: { deviceAuthorization: { url: 'https://idp.example/device', form: { scope: 'openid' } } },
      },
    });
    const person = await runInProcess(['kubeconfig', '--server', 'https://k8s.example.com', '--config-inline', login]);
    expect(person.code, person.stderr).toBe(0);
    expect(person.stdout).toContain('interactiveMode: IfAvailable');
    expect(person.stdout).toContain('- --cache');
    const machine = await runInProcess([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--config-inline',
      JSON.stringify({ webAPIProviderConfig: { method: 'GET', url: 'https://x.example/t', tokenPath: '$.t' } }),
    ]);
    expect(machine.stdout).toContain('interactiveMode: Never');
  });
});

describe('validate and render of a login config', () => {
  it('a value the device authorization request misses is named by its field, before any network', async () => {
    const { runInProcess } = await import('../helpers/in-process.js');
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://idp.example/token',
        form: { client_id: 'kubectl' },
        login: {
          deviceAuthorization: {
            url: 'https://idp.example/device',
            form: { scope: '{{ vars.scope }}', audience: '{{ env.AUDIENCE }}' },
          },
        },
      },
    });
    const result = await runInProcess(['validate', '--config-inline', config]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webAPIProviderConfig.login.deviceAuthorization.form.scope: {{ vars.scope }}: vars.scope is not set',
    );
    const env = await runInProcess(['validate', '--config-inline', config, '--set', 'scope=openid']);
    expect(env.code).toBe(2);
    expect(env.stderr).toContain(
      'webAPIProviderConfig.login.deviceAuthorization.form.audience: {{ env.AUDIENCE }}: env.AUDIENCE is not set',
    );
    const fine = await runInProcess(['validate', '--config-inline', config, '--set', 'scope=openid'], {
      env: { AUDIENCE: 'k8s' },
    });
    expect(fine.code, fine.stderr).toBe(0);
  });
});

describe('render of a login config', () => {
  it('shows the device authorization request, then the token request it polls, the device code as its name', async () => {
    const { runInProcess } = await import('../helpers/in-process.js');
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://idp.example/token',
        form: { client_id: 'kubectl', client_secret: '{{ env.CLIENT_SECRET }}' },
        login: { deviceAuthorization: { url: 'https://idp.example/device', form: { scope: 'openid offline_access' } } },
      },
    });
    const result = await runInProcess(['render', '--config-inline', config], { env: { CLIENT_SECRET: 's3cret-Zq7' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        '# webAPIProviderConfig.login.deviceAuthorization',
        'POST https://idp.example/device',
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/x-www-form-urlencoded',
        '',
        'client_id=kubectl&client_secret=[REDACTED]&scope=openid+offline_access',
        '',
        '# webAPIProviderConfig (polled)',
        'POST https://idp.example/token',
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/x-www-form-urlencoded',
        '',
        'client_id=kubectl&client_secret=[REDACTED]&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&device_code=[device_code]',
        '',
      ].join('\n'),
    );
  });
});

describe('the login command', () => {
  it('on a config without login: exit 2, one line, no request', async () => {
    const { runInProcess } = await import('../helpers/in-process.js');
    const result = await runInProcess([
      'login',
      '--config-inline',
      JSON.stringify({ webAPIProviderConfig: { method: 'GET', url: 'https://127.0.0.1:1/t', tokenPath: '$.t' } }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'webapi-credential: login runs the login of a config with login (authorizationCode or deviceAuthorization); this config has none (get-token asks its token API without a person)\n',
    );
    expect(result.stdout).toBe('');
  });
});
