// The browser login's exchange, with the test as the browser (login --no-browser prints the URL; the
// test sends the callback itself) and a real HTTPS token endpoint: PKCE as RFC 7636 says (the
// verifier sent is the one whose S256 was the challenge), the redirect_uri byte for byte, the nonce
// checked in the id_token, RFC 9207's iss, the endpoint's refusal and the browser's errors, each with
// its exit code and one line, and none of the code, verifier, state or nonce shown.
import { createHash } from 'node:crypto';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, type CliResult } from '../helpers/cli.js';
import { answerCallback } from '../../src/login/grants/authorization-code.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();
const CODE = 'the-authorization-code-Qw7Zp2';
let api: TokenApi;
let port: number;
/** What the token endpoint answers: an id_token carrying this nonce, or an error. */
let answer: (nonce: string) => { status: number; body: unknown };
let sentNonce = '';

beforeAll(async () => {
  api = await startTokenApi((_request, response) => {
    const { status, body } = answer(sentNonce);
    json(response, status, body);
  });
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
});
afterAll(() => api.close());

const jwt = (claims: Record<string, unknown>) =>
  `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const idToken = (nonce: string) =>
  jwt({ iss: 'https://idp.example', sub: 'alice', aud: 'kubectl', exp: Math.floor(Date.now() / 1000) + 600, nonce });

const config = (issuer?: string) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      form: { client_id: 'kubectl' },
      tls: { caFile: pki.ca.certFile },
      login: {
        authorizationCode: {
          url: 'https://idp.example/authorize',
          query: { scope: 'openid' },
          redirectPorts: [port],
          ...(issuer ? { issuer } : {}),
        },
        timeout: '30s',
      },
    },
  });

/** Runs `login --no-browser`; once the URL is printed, `browser(url)` gives the query string of the callback to send. */
async function loginWith(
  browser: (url: URL) => string,
  issuer?: string,
): Promise<{ result: CliResult; url: URL; answered: Promise<number | string> }> {
  let url: URL | undefined;
  let answered: Promise<number | string> = Promise.resolve('not sent');
  const result = await runInProcess(['login', '--config-inline', config(issuer), '--no-cache', '--no-browser'], {
    onStderr: (text) => {
      const found = /to log in, open (\S+)/.exec(text);
      if (!found || url) return;
      url = new URL(found[1]!);
      sentNonce = url.searchParams.get('nonce')!;
      const query = browser(url);
      answered = new Promise((resolve) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, path: `/?${query}`, headers: { host: `localhost:${port}` } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', (error) => resolve(String(error)));
        req.end();
      });
    },
  });
  return { result, url: url!, answered };
}

const callbackOf = (url: URL, extra = '') =>
  `code=${CODE}&state=${encodeURIComponent(url.searchParams.get('state')!)}${extra}`;
/** What the person may see on stderr: the one line with the URL; nothing of the flow's secrets anywhere else. */
function leaked(result: CliResult, url: URL | undefined): string[] {
  const secrets = [CODE, ...(url ? [url.searchParams.get('state')!, url.searchParams.get('nonce')!] : [])];
  const lines = result.stderr.split('\n').filter((line) => !line.startsWith('webapi-credential: to log in, open '));
  return leaks({ ...result, stderr: lines.join('\n') }, [
    ...secrets,
    ...api.requests.map((r) => new URLSearchParams(r.body).get('code_verifier') ?? '').filter((v) => v !== ''),
  ]);
}

describe('the browser login exchange', () => {
  it('sends the code with the verifier whose S256 was the challenge and the redirect_uri byte for byte; the nonce matches', async () => {
    answer = (nonce) => ({ status: 200, body: { id_token: idToken(nonce), token_type: 'Bearer' } });
    const before = api.requests.length;
    const { result, url, answered } = await loginWith((u) => callbackOf(u));
    expect(result.code, result.stderr).toBe(0);
    expect(await answered).toBe(200);
    const sent = new URLSearchParams(api.requests[before]!.body);
    expect(sent.get('grant_type')).toBe('authorization_code');
    expect(sent.get('code')).toBe(CODE);
    expect(sent.get('client_id')).toBe('kubectl');
    expect(sent.get('redirect_uri')).toBe(`http://localhost:${port}`);
    expect(url.searchParams.get('redirect_uri')).toBe(`http://localhost:${port}`);
    expect(sent.get('code_verifier')).toMatch(/^[\w-]{43,128}$/);
    expect(createHash('sha256').update(sent.get('code_verifier')!).digest('base64url')).toBe(
      url.searchParams.get('code_challenge'),
    );
    expect(url.searchParams.get('state')).not.toBe(url.searchParams.get('nonce'));
    expect(api.requests.length).toBe(before + 1);
    expect(leaked(result, url)).toEqual([]);
  });

  it("an id_token with another nonce: exit 4, not this login's", async () => {
    answer = () => ({ status: 200, body: { id_token: idToken('someone-elses-nonce') } });
    const { result, url } = await loginWith((u) => callbackOf(u));
    expect(result.code).toBe(4);
    expect(result.stderr.split('\n').filter((line) => !line.includes('to log in') && !line.includes('within'))).toEqual(
      [
        "webapi-credential: the token endpoint answered an id_token without this login's nonce: it was not issued for this login; run the command again",
        '',
      ],
    );
    expect(leaked(result, url)).toEqual([]);
  });

  it('an iss of another issuer (RFC 9207, a mix-up): exit 2, the code is not exchanged', async () => {
    answer = (nonce) => ({ status: 200, body: { id_token: idToken(nonce) } });
    const before = api.requests.length;
    const { result, url } = await loginWith(
      (u) => callbackOf(u, '&iss=https%3A%2F%2Fattacker.example'),
      'https://idp.example',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webapi-credential: the browser came back from the issuer "https://attacker.example", not https://idp.example (RFC 9207): nothing was exchanged\n',
    );
    expect(api.requests.length).toBe(before);
    expect(leaked(result, url)).toEqual([]);
  });

  it('no iss where the config names the issuer (RFC 9207 §2.4: it said it sends one): exit 2, the code is not exchanged', async () => {
    answer = (nonce) => ({ status: 200, body: { id_token: idToken(nonce) } });
    const before = api.requests.length;
    const { result, url } = await loginWith((u) => callbackOf(u), 'https://idp.example');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webapi-credential: the browser came back without the iss of https://idp.example (RFC 9207), which the issuer says it sends: nothing was exchanged\n',
    );
    expect(api.requests.length).toBe(before);
    expect(leaked(result, url)).toEqual([]);
  });

  it("a secret in the authorization URL is refused before anything listens or opens: a browser URL is seen in the process list, the history and the IdP's logs", async () => {
    const secret = 'login-hint-secret-31337';
    const withSecret = JSON.parse(config()) as {
      webAPIProviderConfig: { login: { authorizationCode: { query: Record<string, string> } } };
    };
    withSecret.webAPIProviderConfig.login.authorizationCode.query['login_hint'] = '{{ env.HINT }}';
    const opened: string[] = [];
    const result = await runInProcess(
      ['login', '--config-inline', JSON.stringify(withSecret), '--no-cache', '--no-browser'],
      { env: { HINT: secret }, onStderr: (text) => opened.push(text) },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "webapi-credential: login.authorizationCode puts a secret in the browser's URL, where the process list, the browser's history and the identity provider's logs show it: give its url and query as plain text (a client secret belongs in the token request's form)\n",
    );
    expect(result.stdout).toBe('');
    expect(opened.join('')).not.toContain(secret);
    expect(
      await new Promise((resolve) =>
        httpRequest({ host: '127.0.0.1', port, path: '/' })
          .on('error', (error: NodeJS.ErrnoException) => resolve(error.code))
          .end(),
      ),
    ).toBe('ECONNREFUSED');
  });

  it('a one-letter value a secret decides in the authorization URL is refused as a secret is, whichever it is: the redactor does not look for one letter, the taint does', async () => {
    const secret = 'hunter2-decides-31337';
    const decided = JSON.parse(config()) as {
      webAPIProviderConfig: { login: { authorizationCode: { query: Record<string, string> } } };
    };
    decided.webAPIProviderConfig.login.authorizationCode.query['x'] = "{{ env.SECRET < vars.t ? 'a' : 'b' }}";
    const refusal =
      "webapi-credential: login.authorizationCode puts a secret in the browser's URL, where the process list, the browser's history and the identity provider's logs show it: give its url and query as plain text (a client secret belongs in the token request's form)\n";
    // Two thresholds on either side of the secret: the answers must not differ, and neither says a or b.
    for (const t of ['a', 'z']) {
      const said: string[] = [];
      const result = await runInProcess(
        ['login', '--config-inline', JSON.stringify(decided), '--no-cache', '--no-browser', '--set', `t=${t}`],
        { env: { SECRET: secret }, onStderr: (text) => said.push(text) },
      );
      expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
        code: 2,
        stdout: '',
        stderr: refusal,
      });
      expect(said.join('')).not.toMatch(/x=[ab]/);
      expect(leaks(result, [secret])).toEqual([]);
    }
  });

  it('an error the identity provider sends back through the browser is redacted on the page too', () => {
    const state = 'state-value-long-enough';
    const { answer } = answerCallback(
      {
        method: 'GET',
        target: `/?state=${state}&error=invalid_request&error_description=${encodeURIComponent('bad hint hunter2-secret')}`,
        host: `localhost:${port}`,
        fetchMode: 'navigate',
      },
      { host: `localhost:${port}`, path: '', state },
      (text) => text.replaceAll('hunter2-secret', '[REDACTED]'),
    );
    expect(answer.body).toContain('bad hint [REDACTED]');
    expect(answer.body).not.toContain('hunter2-secret');
  });

  it('the token endpoint refuses the code: exit 3, its error shown, the code not', async () => {
    answer = () => ({ status: 400, body: { error: 'invalid_grant', error_description: `code ${CODE} was used` } });
    const { result, url } = await loginWith((u) => callbackOf(u));
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(
      'webapi-credential: the token endpoint refused the authorization code with 400: "invalid_grant" ("code [REDACTED] was used")\n',
    );
    expect(leaked(result, url)).toEqual([]);
  });

  it.each([
    [
      'error=access_denied',
      2,
      'webapi-credential: the login was denied at the identity provider; run the command again to log in anew\n',
    ],
    [
      'error=invalid_scope&error_description=unknown%20scope%20%1B%5B2J',
      2,
      'webapi-credential: the authorization endpoint answered "invalid_scope" ("unknown scope \\u001b[2J"); check login.authorizationCode and the client\'s registration\n',
    ],
  ])('the browser comes back with %s: exit %i', async (query, code, line) => {
    const before = api.requests.length;
    const { result, url, answered } = await loginWith(
      (u) => `${query}&state=${encodeURIComponent(u.searchParams.get('state')!)}`,
    );
    expect(result.code).toBe(code);
    expect(await answered).toBe(200);
    expect(result.stderr).toContain(line);
    expect(api.requests.length).toBe(before);
    expect(leaked(result, url)).toEqual([]);
  });

  it('never when nobody can answer (interactiveMode: Never, as Argo CD forces): exit 2, no listener, no browser, no request', async () => {
    const before = api.requests.length;
    let url = false;
    const execInfo = JSON.stringify({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    const result = await runInProcess(['get-token', '--config-inline', config(), '--no-cache'], {
      env: { KUBERNETES_EXEC_INFO: execInfo, BROWSER: '/nonexistent/browser' },
      onStderr: (text) => void (url ||= text.includes('to log in, open')),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^webapi-credential: a login is needed and nobody can answer its prompt here \(client-go says the call is not interactive\)/,
    );
    expect(url).toBe(false);
    expect(api.requests.length).toBe(before);
  });
});
