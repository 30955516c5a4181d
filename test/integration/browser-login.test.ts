// The browser login against real parts: oidc-provider (a public client for loopback redirects, PKCE
// required) and Debian's chromium, headless, opened through $BROWSER as any browser would be, where
// a scripted person signs in on oidc-provider's own login and consent pages. Then the hostile cases:
// callbacks with a wrong state, no code, a foreign Host, a second one; a port taken, all taken; a
// browser that never comes back; a page that tries to read the callback; the person denying.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BROWSER_CLIENT_ID, startBrowserProvider, type BrowserProvider } from '../helpers/browser-provider.js';
import { CHROMIUM, startBrowserDriver, type BrowserDriver } from '../helpers/chromium.js';
import { baseEnv, cliCommand, leaks, runCli, type CliResult } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';

const pki = makePki();
let idp: BrowserProvider;
let driver: BrowserDriver;
let ports: number[];
const dirs: string[] = [];

/** Ports free now, for the listener and the client's registration. */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const found = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return found;
}

beforeAll(async () => {
  if (!CHROMIUM.path) return;
  ports = await freePorts(3);
  idp = await startBrowserProvider(
    pki,
    ports.map((port) => `http://localhost:${port}`),
  );
  driver = await startBrowserDriver();
}, 60_000);
afterAll(async () => {
  await Promise.all([idp?.close(), driver?.close()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function config(extra: Record<string, unknown> = {}, redirectPorts = ports.slice(0, 2)): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${idp.issuer}/token`,
      form: { client_id: BROWSER_CLIENT_ID },
      tls: { caFile: pki.ca.certFile },
      login: {
        authorizationCode: {
          url: `${idp.issuer}/auth`,
          query: { scope: 'openid offline_access', prompt: 'consent' },
          issuer: idp.issuer,
          redirectPorts,
        },
        ...extra,
      },
    },
  });
}

function cacheDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-browser-cache-'));
  dirs.push(dir);
  return dir;
}

/** The plugin as a child, its stderr watched: `url()` resolves once it printed the URL to open. */
function startLogin(args: string[], env: Record<string, string> = {}) {
  const [command, ...lead] = cliCommand();
  const started = Date.now();
  const child = spawn(command!, [...lead, ...args], {
    env: baseEnv({ BROWSER: driver.script, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting: Array<() => void> = [];
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const wake of waiting.splice(0)) wake();
  });
  const done = new Promise<CliResult & { ms: number }>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const wake of waiting.splice(0)) wake();
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
  const url = async (): Promise<URL> => {
    for (;;) {
      const found = /to log in, open (\S+)/.exec(stderr);
      if (found) return new URL(found[1]!);
      if (child.exitCode !== null) throw new Error(`the plugin ended without a URL: ${stderr}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  return { url, done, child };
}

/** A request to the loopback listener as any local program (or a rebinding page) could send it. */
function callback(
  port: number,
  target: string,
  host = `localhost:${port}`,
  method = 'GET',
): Promise<{ status: number; body: string } | 'refused'> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: target, method, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET' ? resolve('refused') : reject(error),
    );
    req.end();
  });
}

/** Every secret of a login: what the IdP issued, the code and state the browser carried back, the nonce it was sent. */
function secrets(): string[] {
  const fromCallbacks = driver.callbacks.flatMap(({ url }) => {
    if (url === 'error') return [];
    const params = new URL(url).searchParams;
    return ['code', 'state']
      .map((name) => params.get(name))
      .filter((value): value is string => value !== null && value.length > 8);
  });
  const nonces = driver.opened.map((url) => new URL(url).searchParams.get('nonce')!);
  return [...idp.issued, ...fromCallbacks, ...nonces];
}

/**
 * No secret on stdout or stderr, but for the one line that gives the person the URL to open: state
 * and nonce are in it, as in the browser's address bar, and nowhere else.
 */
function leaked(result: CliResult): string[] {
  const lines = result.stderr.split('\n');
  const url = lines.filter((line) => line.startsWith('webapi-credential: to log in, open '));
  expect(url.length).toBeLessThanOrEqual(1);
  return leaks({ ...result, stderr: lines.filter((line) => !url.includes(line)).join('\n') }, secrets());
}

describeWith(CHROMIUM)('a browser login with a real browser against oidc-provider', () => {
  it("login opens the browser, the person signs in on the IdP's pages, the credential is cached; the next call is a hit", async () => {
    const dir = cacheDir();
    const run = startLogin(['login', '--config-inline', config(), '--cache', '--cache-dir', dir]);
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('opener-');
    expect(result.stderr).toMatch(/^webapi-credential: to log in, open https:\/\/localhost:\d+\/auth\?/m);
    expect(result.stderr).toContain('logged in');
    const state = /[?&]state=([^&\s]+)/.exec(result.stderr)![1]!;
    const page = await driver.callbackWhere((url) => url.searchParams.get('state') === state);
    expect(page.page).toContain('Logged in');
    expect(new URL(page.url).port).toBe(String(ports[0]));
    const shownOnPage = secrets().filter((secret) => page.page.includes(secret));
    expect(shownOnPage).toEqual([]);
    expect(leaked(result)).toEqual([]);
    // What a person waits: from the command to the credential, with the scripted browser.
    process.stderr.write(`browser login: ${result.ms} ms from the command to the credential\n`);

    const requests = idp.requests.length;
    const hit = await runCli(['get-token', '--config-inline', config(), '--cache', '--cache-dir', dir]);
    expect(hit.code, hit.stderr).toBe(0);
    const token = (JSON.parse(hit.stdout) as { status: { token: string } }).status.token;
    expect(idp.isIdToken(token)).toBe(true);
    expect(idp.requests.length).toBe(requests);
  }, 90_000);

  it('the person denies: exit 2, denied, nothing cached', async () => {
    driver.next('deny');
    const dir = cacheDir();
    const result = await startLogin(['login', '--config-inline', config(), '--cache', '--cache-dir', dir]).done;
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'webapi-credential: the login was denied at the identity provider; run the command again to log in anew\n',
    );
    expect(leaked(result)).toEqual([]);
  }, 60_000);

  it('no browser comes back: exit 2 at login.timeout, the listener closed', async () => {
    driver.next('away');
    const result = await startLogin(['login', '--config-inline', config({ timeout: '2s' }), '--no-cache']).done;
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'webapi-credential: the browser did not come back within 2 seconds (login.timeout); run the command again to log in anew\n',
    );
    expect(await callback(ports[0]!, '/')).toBe('refused');
  }, 60_000);

  it('a local program holding a silent connection to the listener does not keep the login past login.timeout', async () => {
    driver.next('away');
    const run = startLogin(['login', '--config-inline', config({ timeout: '2s' }), '--no-cache']);
    const url = await run.url();
    const port = Number(new URL(url.searchParams.get('redirect_uri')!).port);
    // Connected, one byte of a request line, then nothing: neither idle nor a request to answer.
    const silent = connect(port, '127.0.0.1', () => silent.write('G'));
    silent.on('error', () => {});
    const result = await run.done;
    silent.destroy();
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      'webapi-credential: the browser did not come back within 2 seconds (login.timeout); run the command again to log in anew\n',
    );
    expect(await callback(port, '/')).toBe('refused');
  }, 60_000);

  it('Ctrl-C while the browser is out: exit 2, cancelled, the listener closed, the process gone at once', async () => {
    driver.next('away');
    const run = startLogin(['login', '--config-inline', config(), '--no-cache']);
    const url = await run.url();
    const port = Number(new URL(url.searchParams.get('redirect_uri')!).port);
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('webapi-credential: the login was cancelled (Ctrl-C); nothing was cached\n');
    expect(await callback(port, '/')).toBe('refused');
  }, 60_000);

  it('hostile callbacks are 404 and leave the login waiting; a page cannot read the listener; the real one is taken once', async () => {
    driver.next('away');
    const run = startLogin(['login', '--config-inline', config(), '--no-cache']);
    const url = await run.url();
    const state = url.searchParams.get('state')!;
    const port = Number(new URL(url.searchParams.get('redirect_uri')!).port);
    expect(port).toBe(ports[0]);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{43}$/);

    // A wrong state, no code, a foreign Host (DNS rebinding), another method, another path.
    for (const [target, host, method] of [
      [`/?state=wrong&code=stolen`, undefined, 'GET'],
      [`/?state=${state}`, undefined, 'GET'],
      [`/?state=${state}&code=stolen`, `attacker.example:${port}`, 'GET'],
      [`/?state=${state}&code=stolen`, `127.0.0.1:${port}`, 'GET'],
      [`/?state=${state}&code=stolen`, undefined, 'POST'],
      [`/callback?state=${state}&code=stolen`, undefined, 'GET'],
      [`/?state=${state}&state=${state}&code=stolen`, undefined, 'GET'],
    ] as const) {
      const answer = await callback(port, target, host, method);
      expect(answer, `${method} ${target} Host ${host}`).not.toBe('refused');
      if (answer !== 'refused') {
        expect(answer.status, `${method} ${target} Host ${host}`).toBe(404);
        expect(answer.body).not.toContain(state);
      }
    }

    // A page of another origin in the same browser tries to read what the listener answers.
    const hostile = createServer((_req, res) => res.end('<!doctype html><title>hostile</title>'));
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    const page = await driver.page();
    await page.goto(`http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`);
    // Even one that knew the state: a fetch() is no navigation, it is not taken, and its answer cannot be read.
    for (const target of [
      `http://localhost:${port}/?state=guess&code=x`,
      `http://localhost:${port}/?state=${state}&code=x`,
    ]) {
      const read = await page.evaluate(
        async (to) =>
          fetch(to).then(
            (r) => r.text(),
            (e: unknown) => `blocked: ${String(e)}`,
          ),
        target,
      );
      expect(read).toMatch(/^blocked/);
      const blind = await page.evaluate(
        async (to) =>
          fetch(to, { mode: 'no-cors' }).then(
            (r) => `opaque ${r.type} ${r.status}`,
            (e: unknown) => `blocked: ${String(e)}`,
          ),
        target,
      );
      expect(blind).toMatch(/^(opaque opaque 0|blocked)/);
    }
    await page.close();
    hostile.close();

    // The person signs in now: the login takes that callback, and no other after it.
    await driver.act(url.toString(), 'approve');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(await callback(port, `/?state=${state}&code=again`)).toBe('refused');
    expect(leaked(result)).toEqual([]);
  }, 90_000);

  it('a port taken: the next one is used; all taken: exit 2 naming them', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(ports[0], '127.0.0.1', resolve));
    try {
      const next = await startLogin(['login', '--config-inline', config(), '--no-cache']).done;
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toContain(`redirect_uri=http%3A%2F%2Flocalhost%3A${ports[1]}&`);
      const page = await driver.callbackWhere((url) => url.port === String(ports[1]));
      expect(page.page).toContain('Logged in');

      const other = createServer();
      await new Promise<void>((resolve) => other.listen(ports[1], '127.0.0.1', resolve));
      try {
        const opened = driver.opened.length;
        const none = await startLogin(['login', '--config-inline', config(), '--no-cache']).done;
        expect(none.code, none.stderr).toBe(2);
        expect(none.stderr).toBe(
          `webapi-credential: every port of login.authorizationCode.redirectPorts is taken on the loopback address (${ports[0]}, ${ports[1]}); free one, or add a port the identity provider accepts in its redirect URIs\n`,
        );
        expect(driver.opened.length).toBe(opened);
      } finally {
        other.close();
      }
    } finally {
      holder.close();
    }
  }, 90_000);
});
