// Through a real CONNECT proxy (the npm package proxy, on loopback): which variable is read, which hosts
// NO_PROXY sends around it (curl's rules, decided by src/request/proxy.ts), the proxy's own credentials
// kept out of every message and trace, and what the user is told when the proxy is the problem.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';
import type { TokenApi } from '../helpers/token-api.js';
import {
  ALL_SECRETS,
  CREDENTIAL,
  SECRET,
  TOKEN_BODY,
  answer,
  apis,
  call,
  closedPort,
  config,
  expectFailure,
  expectSuccess,
  pki,
  traceLines,
} from './support.js';

const startApi = apis();
const USER = 'proxy-user';
let proxy: Proxy;
let authProxy: Proxy;

beforeAll(async () => {
  [proxy, authProxy] = await Promise.all([
    startProxy(),
    startProxy({ auth: { user: USER, password: SECRET.proxyPassword } }),
  ]);
});
afterAll(async () => {
  await Promise.all([proxy?.close(), authProxy?.close()]);
});

const issueToken = (options?: Parameters<typeof startApi>[1]) =>
  startApi((_req, res) => answer(res, 200, TOKEN_BODY), options);
/** The proxy credentials in every form a careless message would show them. */
const proxySecrets = [
  ...ALL_SECRETS,
  `${USER}:${SECRET.proxyPassword}`,
  Buffer.from(`${USER}:${SECRET.proxyPassword}`).toString('base64'),
];

/** The proxy records a CONNECT before it connects on: by the time the CLI has an answer, the line is there. */
function tunnelled(api: TokenApi, through: Proxy = proxy, host = 'localhost'): boolean {
  return through.connects().includes(`${host}:${api.port}`);
}

describe.concurrent('the proxy variables', () => {
  it('tunnels through the proxy in HTTPS_PROXY with CONNECT, the token API receiving the request', async () => {
    const api = await issueToken();
    expectSuccess(await call(config(`${api.url}/token`), [], { HTTPS_PROXY: proxy.url }));
    expect(tunnelled(api)).toBe(true);
    expect(api.requests.map((r) => [r.method, r.path, r.headers['authorization'], r.body])).toEqual([
      ['POST', '/token', `Bearer ${SECRET.apiKey}`, `client_secret=${SECRET.client}`],
    ]);
  });

  it('prefers https_proxy to HTTPS_PROXY, as curl does', async () => {
    const api = await issueToken();
    const dead = `http://127.0.0.1:${await closedPort()}`;
    expectSuccess(await call(config(`${api.url}/token`), [], { https_proxy: proxy.url, HTTPS_PROXY: dead }));
    expect(tunnelled(api)).toBe(true);
  });

  it('falls back to ALL_PROXY when no https proxy variable is set', async () => {
    const api = await issueToken();
    expectSuccess(await call(config(`${api.url}/token`), [], { ALL_PROXY: proxy.url }));
    expect(tunnelled(api)).toBe(true);
  });

  it('takes a proxy written without a scheme as http://', async () => {
    const api = await issueToken();
    expectSuccess(await call(config(`${api.url}/token`), [], { HTTPS_PROXY: `127.0.0.1:${proxy.port}` }));
    expect(tunnelled(api)).toBe(true);
  });

  it('does not send an https:// request through HTTP_PROXY', async () => {
    const api = await issueToken();
    expectSuccess(await call(config(`${api.url}/token`), [], { HTTP_PROXY: proxy.url }));
    expect(api.requests).toHaveLength(1);
    expect(tunnelled(api)).toBe(false);
  });

  it('sends a plain http:// request (allowInsecureHTTP) through HTTP_PROXY in absolute form', async () => {
    const api = await issueToken({ insecure: true });
    expectSuccess(
      await call(config(`${api.url}/token`, { allowInsecureHTTP: true, tls: {} }), [], { HTTP_PROXY: proxy.url }),
    );
    expect(proxy.requests()).toContain(`POST http://localhost:${api.port}/token`);
    expect(api.requests).toHaveLength(1);
  });

  it('reaches the proxy from the real environment of the built CLI', async () => {
    const api = await issueToken();
    const result = await runCli(['--config-inline', config(`${api.url}/token`)], {
      env: { API_KEY: SECRET.apiKey, CLIENT_SECRET: SECRET.client, HTTPS_PROXY: proxy.url },
    });
    expectSuccess(result);
    expect(tunnelled(api)).toBe(true);
  });
});

describe.concurrent('NO_PROXY, as curl reads it', () => {
  // `port` is the token API's: entries with a port match only that one.
  const cases: Array<{ noProxy: (port: number) => string; host: 'localhost' | '127.0.0.1'; bypass: boolean }> = [
    { noProxy: () => 'localhost', host: 'localhost', bypass: true },
    { noProxy: () => 'LOCALHOST', host: 'localhost', bypass: true },
    { noProxy: () => '.localhost', host: 'localhost', bypass: true },
    { noProxy: () => '*', host: 'localhost', bypass: true },
    { noProxy: () => 'example.com, localhost', host: 'localhost', bypass: true },
    { noProxy: () => 'example.com localhost', host: 'localhost', bypass: true },
    { noProxy: (port) => `localhost:${port}`, host: 'localhost', bypass: true },
    { noProxy: () => '127.0.0.1', host: '127.0.0.1', bypass: true },
    { noProxy: () => '127.0.0.0/8', host: '127.0.0.1', bypass: true },
    { noProxy: () => '127.0.0.1/32', host: '127.0.0.1', bypass: true },
    { noProxy: (port) => `127.0.0.1:${port}`, host: '127.0.0.1', bypass: true },
    { noProxy: () => 'example.com', host: 'localhost', bypass: false },
    { noProxy: () => 'calhost', host: 'localhost', bypass: false },
    { noProxy: () => 'localhost.example', host: 'localhost', bypass: false },
    { noProxy: () => 'localhost:1', host: 'localhost', bypass: false },
    { noProxy: () => '127.0.0.2', host: '127.0.0.1', bypass: false },
    { noProxy: () => '10.0.0.0/8', host: '127.0.0.1', bypass: false },
    // No DNS lookups: a name is not matched against address blocks, nor an address against names.
    { noProxy: () => '127.0.0.0/8', host: 'localhost', bypass: false },
    { noProxy: () => 'localhost', host: '127.0.0.1', bypass: false },
  ];

  const sentence = (c: (typeof cases)[number]) =>
    `NO_PROXY=${c.noProxy(12345).replace('12345', '<port>')} ${c.bypass ? 'bypasses' : 'does not bypass'} the proxy for ${c.host}`;
  it.each(cases.map((c) => [sentence(c), c] as const))('%s', async (_name, { noProxy, host, bypass }) => {
    const api = await issueToken();
    const result = await call(config(`https://${host}:${api.port}/token`), [], {
      HTTPS_PROXY: proxy.url,
      NO_PROXY: noProxy(api.port),
    });
    expectSuccess(result);
    expect(api.requests).toHaveLength(1);
    expect(tunnelled(api, proxy, host)).toBe(!bypass);
  });

  it('prefers no_proxy to NO_PROXY', async () => {
    const api = await issueToken();
    expectSuccess(
      await call(config(`${api.url}/token`), [], {
        HTTPS_PROXY: proxy.url,
        no_proxy: 'example.com',
        NO_PROXY: 'localhost',
      }),
    );
    expect(tunnelled(api)).toBe(true);
  });

  it('decides again for every host a redirect leads to', async () => {
    const target = await issueToken();
    const origin = await startApi((_req, res) => {
      res.writeHead(302, { location: `https://127.0.0.1:${target.port}/token` });
      res.end();
    });
    const result = await call(
      config(`${origin.url}/start`, { method: 'GET', form: undefined, headers: {} }),
      ['--verbose'],
      { HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1' },
    );
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: CREDENTIAL });
    expect(tunnelled(origin)).toBe(true);
    expect(tunnelled(target, proxy, '127.0.0.1')).toBe(false);
    expect(target.requests).toHaveLength(1);
    expect(traceLines(result)).toEqual(
      expect.arrayContaining([
        `through the proxy http://127.0.0.1:${proxy.port} from HTTPS_PROXY to localhost:${origin.port}`,
        `redirect 302 -> https://127.0.0.1:${target.port}/token`,
        `directly to 127.0.0.1:${target.port}, not through the proxy from HTTPS_PROXY: NO_PROXY entry "127.0.0.1"`,
      ]),
    );
  });
});

describe.concurrent('a proxy that wants credentials', () => {
  it('sends the user and password from the proxy URL and never shows them, not even under --verbose', async () => {
    const api = await issueToken();
    const result = await call(config(`${api.url}/token`), ['--verbose'], { HTTPS_PROXY: authProxy.url });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: CREDENTIAL });
    expect(traceLines(result)).toContain(
      `through the proxy http://[REDACTED]@127.0.0.1:${authProxy.port} from HTTPS_PROXY to localhost:${api.port}`,
    );
    expect(result.stderr).not.toContain(SECRET.proxyPassword);
    expect(result.stderr).not.toContain(Buffer.from(`${USER}:${SECRET.proxyPassword}`).toString('base64'));
    expect(tunnelled(api, authProxy)).toBe(true);
  });

  it('says the proxy refused the tunnel and to check the credentials when the password is wrong', async () => {
    const api = await issueToken();
    const wrong = `http://${USER}:wrong-${SECRET.proxyPassword}@127.0.0.1:${authProxy.port}`;
    const result = await call(config(`${api.url}/token`), [], { HTTPS_PROXY: wrong });
    expectFailure(
      result,
      3,
      `the proxy http://[REDACTED]@127.0.0.1:${authProxy.port} (from HTTPS_PROXY) did not open a tunnel to localhost:${api.port}: ` +
        'HTTP/1.1 407 Proxy Authentication Required; check the user and password in HTTPS_PROXY',
      [...proxySecrets, `wrong-${SECRET.proxyPassword}`],
    );
    expect(api.requests).toHaveLength(0);
  });

  it('keeps the wrong password out of the --verbose trace too', async () => {
    const api = await issueToken();
    const wrong = `http://${USER}:wrong-${SECRET.proxyPassword}@127.0.0.1:${authProxy.port}`;
    const result = await call(config(`${api.url}/token`), ['--verbose'], { https_proxy: wrong });
    expect(result.code).toBe(3);
    // The trace names the proxy; an ordinary failure (exit 3) has no stack to show.
    expect(result.stderr).toContain('through the proxy http://[REDACTED]@127.0.0.1:');
    expect(result.stderr).not.toContain('caused by: ');
    expect(result.stderr).not.toContain(SECRET.proxyPassword);
  });
});

describe.concurrent('when the proxy is the problem', () => {
  it('names the proxy, without its password, when it refuses connections', async () => {
    const api = await issueToken();
    const port = await closedPort();
    const result = await call(config(`${api.url}/token`, { retry: { limit: 0 } }), [], {
      HTTPS_PROXY: `http://${USER}:${SECRET.proxyPassword}@127.0.0.1:${port}`,
    });
    expectFailure(
      result,
      3,
      `the proxy http://[REDACTED]@127.0.0.1:${port} (from HTTPS_PROXY) refused the connection (ECONNREFUSED)`,
      proxySecrets,
    );
  });

  it('retries, then reports the status line, when the proxy cannot reach the token API', async () => {
    const port = await closedPort();
    const result = await call(config(`https://localhost:${port}/token`, { retry: { limit: 1 } }), [], {
      HTTPS_PROXY: proxy.url,
    });
    expectFailure(
      result,
      3,
      `the proxy http://127.0.0.1:${proxy.port} (from HTTPS_PROXY) did not open a tunnel to localhost:${port}: HTTP/1.1 500 Internal Server Error after 2 attempts`,
    );
    expect(proxy.connects().filter((c) => c === `localhost:${port}`)).toHaveLength(2);
  });

  it.each([
    {
      value: 'socks5://user:pw-Zq81@127.0.0.1:1080',
      message: 'HTTPS_PROXY names a socks5:// proxy; only http:// and https:// proxies (CONNECT) are supported',
    },
    {
      value: 'http://user:pw-Zq81@[bad',
      message: 'HTTPS_PROXY is not a proxy URL; expected http://[user:password@]host:port',
    },
    {
      value: 'http://user:%zz-pw-Zq81@127.0.0.1:1',
      message: 'HTTPS_PROXY has a user or password with a bad %-escape; percent-encode it',
    },
  ])(
    'fails with exit 2, before any request and without showing it, on HTTPS_PROXY=$value',
    async ({ value, message }) => {
      const api = await issueToken();
      expectFailure(await call(config(`${api.url}/token`), [], { HTTPS_PROXY: value }), 2, message, [
        ...ALL_SECRETS,
        'pw-Zq81',
      ]);
      expect(api.requests).toHaveLength(0);
    },
  );
});

describe.concurrent('TLS through the tunnel', () => {
  it('still verifies the token API certificate end to end', async () => {
    const api = await issueToken({ serverCert: pki.wrongHost });
    const result = await call(config(`${api.url}/token`), [], { HTTPS_PROXY: proxy.url });
    expectFailure(
      result,
      3,
      `TLS handshake with ${api.url}/token failed: the server certificate is for DNS:elsewhere.example, not localhost; fix url or set tls.serverName to one of those names (ERR_TLS_CERT_ALTNAME_INVALID)`,
    );
    expect(tunnelled(api)).toBe(true);
  });

  it('verifies against tls.serverName through the tunnel', async () => {
    const api = await issueToken({ serverCert: pki.wrongHost });
    expectSuccess(
      await call(
        config(`${api.url}/token`, { tls: { caFile: pki.ca.certFile, serverName: 'elsewhere.example' } }),
        [],
        { HTTPS_PROXY: proxy.url },
      ),
    );
    expect(tunnelled(api)).toBe(true);
  });
});
