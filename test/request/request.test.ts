// What reaches the token API: each body form, the query, templated headers and the method, as the
// real CLI sends them over real HTTPS.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, type TokenApi } from '../helpers/token-api.js';
import {
  SECRET,
  SECRET_ENV,
  basic,
  execCredential,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
  writeTemp,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const issueToken = () => startApi((_req, res) => json(res, 200, { access_token: SECRET.token }));
const ca = { caFile: pki.ca.certFile };

/** Runs get-token with `config` and the secrets in the environment; expects the token back. */
async function call(api: TokenApi, config: Record<string, unknown>, args: string[] = []) {
  const result = await runInProcess(['--config-inline', provider({ tls: ca, ...config }), ...args], {
    env: SECRET_ENV,
  });
  expectSuccess(result, execCredential({ token: SECRET.token }));
  expect(api.requests).toHaveLength(1);
  return api.requests[0]!;
}

describe.concurrent('the request the token API receives', () => {
  it('sends a raw body byte for byte, with only the interpolations replaced', async () => {
    const api = await issueToken();
    const body = 'grant=client_credentials&key={{ urlencode(env.FORM_SECRET) }}\n  raw "as is" {"x": 1}\t';
    const request = await call(api, basic(`${api.url}/token`, { body, headers: { 'Content-Type': 'text/plain' } }));
    expect(request.method).toBe('POST');
    expect(request.body).toBe(
      `grant=client_credentials&key=${encodeURIComponent(SECRET.form)}\n  raw "as is" {"x": 1}\t`,
    );
    expect(request.headers['content-type']).toBe('text/plain');
  });

  it('sends a raw body without a content-type when the config names none', async () => {
    const api = await issueToken();
    const request = await call(api, basic(`${api.url}/token`, { body: 'plain' }));
    expect(request.body).toBe('plain');
    expect(request.headers['content-type']).toBeUndefined();
  });

  it('form-encodes every form value, repeats the key for a list and sets the content-type', async () => {
    const api = await issueToken();
    const request = await call(
      api,
      basic(`${api.url}/token`, {
        form: {
          grant_type: 'client_credentials',
          client_secret: '{{ env.FORM_SECRET }}',
          audience: ['a b', 'c&d=e', 'ü'],
        },
      }),
    );
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body).toBe(
      'grant_type=client_credentials&client_secret=f0rm+p%40ss%21w0rd%7Eit%27s%28x%29*%26%3D%2BZt&audience=a+b&audience=c%26d%3De&audience=%C3%BC',
    );
    const form = new URLSearchParams(request.body);
    expect(form.get('client_secret')).toBe(SECRET.form);
    expect(form.getAll('audience')).toEqual(['a b', 'c&d=e', 'ü']);
  });

  it('renders json string leaves as templates and JSON-escapes quotes, backslashes and newlines', async () => {
    const api = await issueToken();
    const request = await call(
      api,
      basic(`${api.url}/token`, {
        json: {
          kind: 'TokenRequest',
          spec: {
            secret: '{{ env.JSON_SECRET }}',
            audiences: ['{{ vars.aud }}', 'fixed'],
            ttl: 3600,
            renew: true,
            none: null,
          },
        },
      }),
      ['--set', 'aud=aud-1'],
    );
    expect(request.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request.body)).toEqual({
      kind: 'TokenRequest',
      spec: { secret: SECRET.json, audiences: ['aud-1', 'fixed'], ttl: 3600, renew: true, none: null },
    });
  });

  it('appends the query to a URL that already has one, encoding spaces, &, = and unicode and repeating list keys', async () => {
    const api = await issueToken();
    const request = await call(
      api,
      basic(`${api.url}/token?existing=1`, {
        method: 'GET',
        query: { q: 'a b&c=d ü', aud: ['x', 'y z'], key: '{{ env.FORM_SECRET }}' },
      }),
    );
    expect(request.method).toBe('GET');
    expect(request.url).toBe(
      '/token?existing=1&q=a+b%26c%3Dd+%C3%BC&aud=x&aud=y+z&key=f0rm+p%40ss%21w0rd%7Eit%27s%28x%29*%26%3D%2BZt',
    );
    expect(request.query.get('q')).toBe('a b&c=d ü');
    expect(request.query.getAll('aud')).toEqual(['x', 'y z']);
    expect(request.query.get('key')).toBe(SECRET.form);
    expect(request.body).toBe('');
  });

  it('sends templated headers, a user Accept replacing the default, and its own user agent', async () => {
    const api = await issueToken();
    const request = await call(
      api,
      basic(`${api.url}/token`, {
        headers: {
          Authorization: 'Bearer {{ env.API_KEY }}',
          'X-Org': '{{ vars.org }}',
          Accept: 'application/vnd.token+json',
        },
      }),
      ['--set', 'org=acme corp'],
    );
    expect(request.headers['authorization']).toBe(`Bearer ${SECRET.apiKey}`);
    expect(request.headers['x-org']).toBe('acme corp');
    expect(request.headers['accept']).toBe('application/vnd.token+json');
    expect(request.headers['user-agent']).toBe('webapi-credential/0.1.0');
  });

  it('templates the url itself from vars and env, with file() reading a mounted secret', async () => {
    const api = await issueToken();
    const secretFile = writeTemp('org', `${SECRET.file}\n`);
    const request = await call(
      api,
      basic(`${api.url}/{{ vars.tenant }}/token`, {
        headers: { 'X-Secret': `{{ file(${JSON.stringify(secretFile)}) }}` },
      }),
      ['--set', 'tenant=team-a'],
    );
    expect(request.path).toBe('/team-a/token');
    expect(request.headers['x-secret']).toBe(SECRET.file);
  });

  it.each([
    { method: 'GET', body: '' },
    { method: 'POST', body: '' },
    { method: 'PUT', body: '' },
  ])('sends a $method request without a body when no body form is set', async ({ method, body }) => {
    const api = await issueToken();
    const request = await call(api, basic(`${api.url}/token`, { method }));
    expect(request.method).toBe(method);
    expect(request.body).toBe(body);
    expect(request.headers['accept']).toBe('application/json');
  });
});

describe.concurrent('redirects', () => {
  const redirectTo = (location: string, status = 302) =>
    startApi((_req, res) => {
      res.writeHead(status, { location });
      res.end();
    });
  const templated = { Authorization: 'Bearer {{ env.API_KEY }}', 'X-Org': '{{ vars.org }}', 'X-Fixed': 'fixed' };

  it('follows a same-origin redirect with every header', async () => {
    const api = await startApi((req, res) => {
      if (req.path === '/token') return json(res, 200, { access_token: SECRET.token });
      res.writeHead(307, { location: '/token' });
      res.end();
    });
    const result = await runInProcess(
      [
        '--config-inline',
        provider(basic(`${api.url}/old`, { tls: ca, method: 'GET', headers: templated })),
        '--set',
        'org=acme',
      ],
      { env: SECRET_ENV },
    );
    expectSuccess(result, execCredential({ token: SECRET.token }));
    expect(api.requests.map((r) => [r.path, r.headers['authorization'], r.headers['x-org']])).toEqual([
      ['/old', `Bearer ${SECRET.apiKey}`, 'acme'],
      ['/token', `Bearer ${SECRET.apiKey}`, 'acme'],
    ]);
  });

  it('drops Authorization and every templated header when a redirect changes origin', async () => {
    const target = await issueToken();
    const origin = await redirectTo(`${target.url}/token`);
    const result = await runInProcess(
      [
        '--config-inline',
        provider(basic(`${origin.url}/token`, { tls: ca, method: 'GET', headers: templated })),
        '--set',
        'org=acme',
      ],
      { env: SECRET_ENV },
    );
    expectSuccess(result, execCredential({ token: SECRET.token }));
    expect(origin.requests[0]!.headers['authorization']).toBe(`Bearer ${SECRET.apiKey}`);
    const forwarded = target.requests[0]!.headers;
    expect([forwarded['authorization'], forwarded['x-org'], forwarded['x-fixed']]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('refuses with exit 3 to resend a request body to another origin', async () => {
    const target = await issueToken();
    const origin = await redirectTo(`${target.url}/token`, 307);
    const config = basic(`${origin.url}/token`, { tls: ca, form: { secret: '{{ env.FORM_SECRET }}' } });
    const result = await runInProcess(['--config-inline', provider(config)], { env: SECRET_ENV });
    expectFailure(
      result,
      3,
      `the token API redirected the request body to another origin (${target.url}); refusing to resend it: point url at the final location`,
    );
    expect(target.requests).toHaveLength(0);
  });

  it('refuses with exit 3 a redirect to plain http:// without allowInsecureHTTP', async () => {
    const target = await startApi((_req, res) => json(res, 200, { access_token: SECRET.token }), { insecure: true });
    const origin = await redirectTo(`${target.url}/token?key=abc`);
    const result = await runInProcess(
      ['--config-inline', provider(basic(`${origin.url}/token`, { tls: ca, method: 'GET' }))],
      { env: SECRET_ENV },
    );
    expectFailure(
      result,
      3,
      `the token API redirected to http:// (${target.url}/token); refusing without allowInsecureHTTP`,
    );
    expect(target.requests).toHaveLength(0);
  });
});
