// A login that survives the day (issue 36), against the real oidc-provider with strict rotation (a
// reuse of a consumed refresh token revokes the grant) behind a gateway stand-in: a small real HTTPS
// reverse proxy that answers a refresh with a 404/403/407/401 page on demand (the issuer never sees
// it), strips the id_token from an answer, holds an answer back, or passes it on. The token endpoint
// of the config is the gateway's; the server counts what reached it. The tests run concurrently, so
// that their waits (a token's expiry, failureTTL, an answer held back) overlap: each has an issuer and
// a gateway of its own (their counters, token lifetime and queue its own), closed when it ends.
import { readdirSync, mkdtempSync } from 'node:fs';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { deviceConfig, execInfoEnv } from '../helpers/device-config.js';
import { ownDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { approvedLogin } from '../helpers/device-run.js';
import { cacheEntries } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();

/** What the gateway does with the next refresh grant (the others pass). */
type Act = { page: number; type: string; body: string } | { strip: true } | { holdMs: number };

interface Gateway {
  url: string;
  /** The next refresh grant gets `act`. */
  next: (act: Act) => void;
  /** Refresh grants the gateway got (answered itself or passed on). */
  refreshes: () => number;
  close: () => Promise<void>;
}

async function startGateway(upstream: string): Promise<Gateway> {
  const server: Server = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const queue: Act[] = [];
  let refreshes = 0;
  const pending = new Set<NodeJS.Timeout>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const refresh =
        (req.url ?? '').startsWith('/token') &&
        new URLSearchParams(body.toString()).get('grant_type') === 'refresh_token';
      if (refresh) refreshes++;
      const act = refresh ? queue.shift() : undefined;
      if (act && 'page' in act) {
        res.writeHead(act.page, { 'content-type': act.type });
        res.end(act.body);
        return;
      }
      const target = new URL(req.url ?? '/', upstream);
      const forwarded = httpsRequest(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host }, ca: pki.ca.cert },
        (answer) => {
          const parts: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => parts.push(chunk));
          answer.on('end', () => {
            let text = Buffer.concat(parts).toString();
            if (act && 'strip' in act) {
              const document = JSON.parse(text) as Record<string, unknown>;
              delete document['id_token'];
              text = JSON.stringify(document);
            }
            const reply = () => {
              res.writeHead(answer.statusCode ?? 502, {
                'content-type': answer.headers['content-type'] ?? 'application/json',
              });
              res.end(text);
            };
            if (act && 'holdMs' in act) {
              const timer = setTimeout(() => {
                pending.delete(timer);
                reply();
              }, act.holdMs);
              pending.add(timer);
            } else reply();
          });
        },
      );
      forwarded.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      forwarded.end(body);
    });
  });
  return {
    url: `https://localhost:${(server.address() as AddressInfo).port}`,
    next: (act) => void queue.push(act),
    refreshes: () => refreshes,
    close: () => {
      for (const timer of pending) clearTimeout(timer);
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Remembered as the ordinary rules say: a refusal or an unusable answer is served again, nothing sent,
 * for cache.failureTTL. 8 s: the call after a failure must read it within that, on a machine where a
 * CLI call takes 2-3 s with five tests' calls beside it; the waits overlap, so it costs the file 8 s once.
 */
const FAILURE_TTL_MS = 8_000;
const NOT_INTERACTIVE = execInfoEnv(false);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenOf = (stdout: string) => (JSON.parse(stdout) as { status: { token: string } }).status.token;

interface World {
  idp: DeviceProvider;
  gateway: Gateway;
  /** Refresh grants that reached the issuer. */
  refreshGrants: () => number;
  /** `webapi-credential login` (caching by default: no --cache), as a person at a terminal. */
  loggedIn: (scope?: string, extra?: string[]) => Promise<{ cacheDir: string; args: string[]; stderr: string }>;
}

/** An issuer and its gateway for one test alone, closed when it ends. */
async function world({ expect, onTestFinished }: TestContext): Promise<World> {
  const idp = await ownDeviceProvider(pki, onTestFinished);
  const gateway = await startGateway(idp.issuer);
  onTestFinished(() => gateway.close());
  /** id_tokens of 12 s reported 8 s early: served from the cache for 4 s, then refreshed. */
  const config = (scope: string) =>
    deviceConfig(gateway.url, pki.ca.certFile, {
      deviceUrl: `${idp.issuer}/device/auth`,
      scope,
      provider: { expiryMargin: '8s', cache: { failureTTL: `${FAILURE_TTL_MS / 1_000}s` } },
    });
  return {
    idp,
    gateway,
    refreshGrants: () => idp.requests.filter((r) => r.grant === 'refresh_token').length,
    loggedIn: async (scope = 'openid offline_access', extra = []) => {
      idp.tokenTtl(12);
      const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-refresh-gateway-'));
      const text = config(scope);
      const result = await approvedLogin(['--config-inline', text, '--cache-dir', cacheDir, ...extra], pki.ca.cert);
      expect(leaks(result, [...idp.issued])).toEqual([]);
      return { cacheDir, args: ['--config-inline', text, '--cache', '--cache-dir', cacheDir], stderr: result.stderr };
    },
  };
}

/** Past the reported expiry of what the entry holds (the credential, or the one beside a failure). */
async function expired(cacheDir: string): Promise<void> {
  const times = [...cacheEntries(cacheDir).matchAll(/"expirationTimestamp":"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
  const until = Math.max(Date.now(), ...times);
  await sleep(until - Date.now() + 300);
}

/** Pages a gateway answers a refresh with itself, and what the plugin says of each. */
const PAGES = [
  {
    page: 404,
    type: 'text/html',
    body: '<html><body><h1>404 Not Found</h1>nginx</body></html>',
    said: /^webapi-credential: the token endpoint answered 404 Not Found/,
  },
  {
    page: 403,
    type: 'text/html',
    body: '<html><body>Forbidden: deploy in progress</body></html>',
    said: /^webapi-credential: the token endpoint answered 403 Forbidden/,
  },
  {
    page: 407,
    type: 'text/html',
    body: '<html><body>Proxy Authentication Required</body></html>',
    said: /^webapi-credential: the token endpoint answered 407 Proxy Authentication Required/,
  },
  {
    page: 401,
    type: 'application/json',
    body: JSON.stringify({ error: 'invalid_client', error_description: 'client authentication failed' }),
    said: /^webapi-credential: the token endpoint refused the refresh with 401: "invalid_client"/,
  },
];

// Concurrently (vitest runs five at a time, in this order): the longest wait first.
describe.concurrent("a refresh token survives every failure but the issuer's invalid_grant", () => {
  it('an answer held back 11 s, past the 10 s per-attempt timeout, within --timeout 30s: sent once, taken', async (t) => {
    const { expect } = t;
    const { idp, gateway, refreshGrants, loggedIn } = await world(t);
    const { cacheDir, args } = await loggedIn();
    await expired(cacheDir);
    idp.tokenTtl(60);
    gateway.next({ holdMs: 11_000 });
    const atServer = refreshGrants();
    const slow = await runCli([...args, '--timeout', '30s'], { env: NOT_INTERACTIVE, timeoutMs: 45_000 });
    expect(slow.code, slow.stderr).toBe(0);
    expect(refreshGrants()).toBe(atServer + 1);
    expect(idp.isIdToken(tokenOf(slow.stdout))).toBe(true);
    expect(cacheEntries(cacheDir)).toContain(idp.refreshTokens.at(-1)!);
    // Still logged in: the next call is served from the cache, nothing sent.
    const again = await runCli(args, { env: NOT_INTERACTIVE });
    expect(again.code, again.stderr).toBe(0);
    expect(tokenOf(again.stdout)).toBe(tokenOf(slow.stdout));
    expect(refreshGrants()).toBe(atServer + 1);
  }, 60_000);

  it('login caches by default and says nothing of a missing refresh token when one came', async (t) => {
    const { expect } = t;
    const { idp, loggedIn } = await world(t);
    const { cacheDir, stderr } = await loggedIn();
    expect(stderr).toMatch(
      /^webapi-credential: to log in, open \S+\n.*\nwebapi-credential: logged in; the credential is good until \S+Z, and cached in (\S+): kubectl uses it with the same config and --cache\n$/,
    );
    expect(stderr).toContain(`cached in ${cacheDir}:`);
    expect(cacheEntries(cacheDir)).toContain(idp.refreshTokens.at(-1)!);
  }, 60_000);

  it('login without offline_access says that no refresh token came back and what it means; --no-cache keeps nothing', async (t) => {
    const { expect } = t;
    const { loggedIn } = await world(t);
    const { cacheDir, stderr } = await loggedIn('openid', ['--no-cache']);
    expect(stderr).toMatch(
      /\nwebapi-credential: logged in; the credential is good until (\S+Z); not cached \(--no-cache\): kubectl will ask for a login of its own\nwebapi-credential: no refresh token came back \(the issuer may not have granted offline_access, or gives none to this client\): a new login is needed when the credential expires at \1\n$/,
    );
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.json'))).toEqual([]);
  }, 60_000);

  for (const { said, ...page } of PAGES)
    it(`a ${page.page} page from the gateway: exit 3, the token kept, the failure remembered, then refreshed with the kept token`, async (t) => {
      const { expect } = t;
      const { idp, gateway, refreshGrants, loggedIn } = await world(t);
      const { cacheDir, args } = await loggedIn();
      const held = idp.refreshTokens.at(-1)!;
      await expired(cacheDir);
      gateway.next(page);
      const [atServer, atGateway] = [refreshGrants(), gateway.refreshes()];
      const failed = await runCli(args, { env: NOT_INTERACTIVE });
      expect(failed.code, failed.stderr).toBe(3);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(said);
      expect(failed.stderr.split('\n')).toHaveLength(2);
      expect(leaks(failed, [...idp.issued])).toEqual([]);
      // One POST, answered by the gateway: the issuer never saw it, and the token is kept.
      expect(gateway.refreshes()).toBe(atGateway + 1);
      expect(refreshGrants()).toBe(atServer);
      expect(cacheEntries(cacheDir)).toContain(held);
      // Remembered for cache.failureTTL: served again, nothing sent.
      const recalled = await runCli(args, { env: NOT_INTERACTIVE });
      expect(recalled.code).toBe(3);
      expect(recalled.stderr).toMatch(
        /\(remembered from \d+s ago until \S+Z; webapi-credential cache clear retries now\)\n$/,
      );
      expect(gateway.refreshes()).toBe(atGateway + 1);
      // The gateway is well again: the next call, still not interactive, refreshes with the kept token.
      await sleep(FAILURE_TTL_MS + 100);
      const next = await runCli(args, { env: NOT_INTERACTIVE });
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).toBe('');
      expect(idp.isIdToken(tokenOf(next.stdout))).toBe(true);
      expect(refreshGrants()).toBe(atServer + 1);
      expect(leaks(next, [...idp.issued], [tokenOf(next.stdout)])).toEqual([]);
    }, 60_000);

  it('a 2xx that gives no credential (no id_token) but a rotated refresh token: the rotated one kept at once', async (t) => {
    const { expect } = t;
    const { idp, gateway, refreshGrants, loggedIn } = await world(t);
    const { cacheDir, args } = await loggedIn();
    const held = idp.refreshTokens.at(-1)!;
    await expired(cacheDir);
    gateway.next({ strip: true });
    const atServer = refreshGrants();
    const unusable = await runCli(args, { env: NOT_INTERACTIVE });
    expect(unusable.code, unusable.stderr).toBe(4);
    expect(unusable.stderr).toBe(
      'webapi-credential: the token endpoint answered the refresh without an id_token (OpenID Connect lets an issuer leave it out of a refresh answer; the refresh token it sent is kept): set tokenPath: $.access_token if the cluster takes the access token, else have the issuer return an id_token on refresh\n',
    );
    expect(leaks(unusable, [...idp.issued])).toEqual([]);
    expect(refreshGrants()).toBe(atServer + 1);
    const rotated = idp.refreshTokens.at(-1)!;
    expect(rotated).not.toBe(held);
    expect(cacheEntries(cacheDir)).toContain(rotated);
    expect(cacheEntries(cacheDir)).not.toContain(held);
    // The old one was consumed: had it been kept, this refresh would be a reuse and the grant revoked.
    await sleep(FAILURE_TTL_MS + 100);
    const next = await runCli(args, { env: NOT_INTERACTIVE });
    expect(next.code, next.stderr).toBe(0);
    expect(idp.isIdToken(tokenOf(next.stdout))).toBe(true);
  }, 60_000);

  it("the issuer's invalid_grant drops the token: exit 2 with the line a person needs", async (t) => {
    const { expect } = t;
    const { idp, gateway, loggedIn } = await world(t);
    const { cacheDir, args } = await loggedIn();
    const held = idp.refreshTokens.at(-1)!;
    await expired(cacheDir);
    gateway.next({
      page: 400,
      type: 'application/json',
      body: JSON.stringify({ error: 'invalid_grant', error_description: 'grant request is invalid' }),
    });
    const result = await runCli(args, { env: NOT_INTERACTIVE });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^webapi-credential: the token endpoint refused the refresh with 400: "invalid_grant" \("grant request is invalid"\), so the kept refresh token was dropped; a login is needed/,
    );
    expect(leaks(result, [...idp.issued])).toEqual([]);
    expect(cacheEntries(cacheDir)).not.toContain(held);
  }, 60_000);
});
