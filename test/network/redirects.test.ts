// Redirects between real token APIs: what is followed, what is refused, and what a request keeps
// when it moves to another origin. (test/request/request.test.ts covers the basic cases: a
// same-origin redirect, Authorization dropped across origins, a 307 body refused, http:// refused.)
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TOKEN_BODY, answer, apis, call, config, expectFailure, expectSuccess, traceLines } from './support.js';

const startApi = apis();
const issueToken = (options?: Parameters<typeof startApi>[1]) =>
  startApi((_req, res) => answer(res, 200, TOKEN_BODY), options);
const redirect = (res: ServerResponse, status: number, location: string) => {
  res.writeHead(status, { location });
  res.end();
};
const redirectTo = (location: string, status = 302) => startApi((_req, res) => redirect(res, status, location));
/** Headers as the config sets them: a secret, a cookie and a fixed value, all templates. */
const headers = {
  Authorization: 'Bearer {{ env.API_KEY }}',
  Cookie: 'session=s-{{ env.CLIENT_SECRET }}',
  'X-Tenant': 'acme',
};
const get = (url: string) => config(url, { method: 'GET', form: undefined, headers });

describe.concurrent('redirects', () => {
  it('keeps Cookie and every configured header on a same-origin redirect', async () => {
    const api = await startApi((req, res) =>
      req.path === '/token' ? answer(res, 200, TOKEN_BODY) : redirect(res, 302, '/token'),
    );
    expectSuccess(await call(get(`${api.url}/old`)));
    expect(
      api.requests.map((r) => [
        r.path,
        r.headers['cookie'] !== undefined,
        r.headers['authorization'] !== undefined,
        r.headers['x-tenant'],
      ]),
    ).toEqual([
      ['/old', true, true, 'acme'],
      ['/token', true, true, 'acme'],
    ]);
  });

  it('drops Cookie, Authorization and every configured header when the redirect changes origin', async () => {
    const target = await issueToken();
    const origin = await redirectTo(`${target.url}/token`);
    expectSuccess(await call(get(`${origin.url}/token`)));
    const sent = target.requests[0]!.headers;
    expect([sent['cookie'], sent['authorization'], sent['x-tenant'], sent['accept']]).toEqual([
      undefined,
      undefined,
      undefined,
      'application/json',
    ]);
  });

  it('counts the same server under another name as another origin', async () => {
    const api = await startApi((req, res) =>
      req.path === '/token' ? answer(res, 200, TOKEN_BODY) : redirect(res, 302, `https://127.0.0.1:${api.port}/token`),
    );
    expectSuccess(await call(get(`${api.url}/old`)));
    expect(api.requests.map((r) => [r.path, r.headers['authorization'] !== undefined])).toEqual([
      ['/old', true],
      ['/token', false],
    ]);
  });

  it.each([301, 302, 307, 308])(
    'refuses with exit 3 to resend a form body to another origin on a %i',
    async (status) => {
      const target = await issueToken();
      const origin = await redirectTo(`${target.url}/token`, status);
      const result = await call(config(`${origin.url}/token`));
      expectFailure(
        result,
        3,
        `the token API redirected the request body to another origin (${target.url}); refusing to resend it: point url at the final location`,
      );
      expect(target.requests).toHaveLength(0);
    },
  );

  it('resends the body on a same-origin 307', async () => {
    const api = await startApi((req, res) =>
      req.path === '/token' ? answer(res, 200, TOKEN_BODY) : redirect(res, 307, '/token'),
    );
    expectSuccess(await call(config(`${api.url}/old`)));
    expect(api.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/old', api.requests[0]!.body],
      ['POST', '/token', api.requests[0]!.body],
    ]);
    expect(api.requests[0]!.body).toMatch(/^client_secret=/);
  });

  it('follows a 303 after a POST to another origin as a GET without the body or its content-type', async () => {
    const target = await issueToken();
    const origin = await redirectTo(`${target.url}/token`, 303);
    expectSuccess(await call(config(`${origin.url}/token`)));
    const [request] = target.requests;
    expect([
      request!.method,
      request!.body,
      request!.headers['content-type'],
      request!.headers['authorization'],
    ]).toEqual(['GET', '', undefined, undefined]);
  });

  it('stops after 5 redirects', async () => {
    let hop = 0;
    const api = await startApi((_req, res) => redirect(res, 302, `/hop${++hop}`));
    const result = await call(get(`${api.url}/token`));
    expectFailure(result, 3, `more than 5 redirects from ${api.url}/hop5`);
    expect(api.requests).toHaveLength(6);
  });

  it('follows a redirect to plain http:// when allowInsecureHTTP is true, without the credentials', async () => {
    const target = await issueToken({ insecure: true });
    const origin = await redirectTo(`${target.url}/token`);
    expectSuccess(
      await call(config(`${origin.url}/token`, { method: 'GET', form: undefined, headers, allowInsecureHTTP: true })),
    );
    expect(target.requests[0]!.headers['authorization']).toBeUndefined();
  });

  it.each(['ftp://example.com/token', 'file:///etc/passwd'])(
    'refuses with exit 3 a redirect to %s',
    async (location) => {
      const origin = await redirectTo(location);
      const protocol = new URL(location).protocol;
      expectFailure(
        await call(get(`${origin.url}/token`)),
        3,
        `the token API at ${origin.url}/token redirected to a location that is not an http(s) URL (Unsupported protocol: ${protocol})`,
      );
    },
  );

  it('refuses with exit 3 a redirect whose Location is not a URL', async () => {
    const origin = await redirectTo('https://[not-a-host');
    expectFailure(
      await call(get(`${origin.url}/token`)),
      3,
      `the token API at ${origin.url}/token redirected to a location that is not an http(s) URL (Invalid URL)`,
    );
  });

  it('traces every hop under --verbose, with the secrets of the new URL redacted', async () => {
    const target = await issueToken();
    const origin = await startApi((req, res) =>
      redirect(res, 302, `${target.url}/token?echo=${encodeURIComponent(String(req.headers['authorization']))}`),
    );
    const result = await call(get(`${origin.url}/token`), ['--verbose']);
    expect(result.code).toBe(0);
    expect(traceLines(result)).toContain(`redirect 302 -> ${target.url}/token?echo=Bearer%20[REDACTED]`);
    expect(result.stderr).not.toContain('net-apikey');
  });
});
