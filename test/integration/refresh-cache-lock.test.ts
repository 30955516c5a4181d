// A refresh token kept in the cache, against the real oidc-provider, with the CLI as processes (SPEC
// "Cache" and "Interactive login"): a refreshed credential keeps its real expiry (its margin window
// serves through an outage as a fetched one's does); the credential of a refresh token the issuer
// refused is never served again, by the fast path or the full one, while a login runs in another
// terminal; and an interactive call that only refreshes holds a fetch's lock, which a waiter takes
// over past its deadline (a kubectl stopped with Ctrl-Z blocks nobody). Who waited on whom is told
// by exit codes and the server's request counts, never by a duration.
import { mkdtempSync, readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { deviceConfig } from '../helpers/device-config.js';
import { actAsPerson, ownDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { startPlugin } from '../helpers/device-run.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();

/** id_tokens of 12 s reported 8 s early: 4 s served as they are, then 8 s in the margin window. */
const TOKEN_TTL_S = 12;
const MARGIN_MS = 8_000;
const PREFIX = 'webapi-credential: ';
const exec = (interactive: boolean) => ({
  KUBERNETES_EXEC_INFO: JSON.stringify({
    kind: 'ExecCredential',
    apiVersion: 'client.authentication.k8s.io/v1',
    spec: { interactive },
  }),
});
const NOT_INTERACTIVE = exec(false);
const INTERACTIVE = exec(true);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenOf = (stdout: string) =>
  (JSON.parse(stdout) as { status: { token: string; expirationTimestamp: string } }).status;

/**
 * A test's own issuer (closed when the test ends): the tests run at once, each waiting out its own
 * tokens' expiry, so none reads another's request counts or sets another's failures, holds or lifetimes.
 * The test's context gives expect and onTestFinished: the global ones cannot tell concurrent tests apart.
 */
async function issuer({ expect, onTestFinished }: TestContext) {
  const idp: DeviceProvider = await ownDeviceProvider(pki, onTestFinished);
  const config = deviceConfig(idp.issuer, pki.ca.certFile, { provider: { expiryMargin: '8s' } });
  return {
    idp,
    refreshGrants: () => idp.requests.filter((r) => r.grant === 'refresh_token').length,
    deviceRequests: () => idp.requests.filter((r) => r.path === '/device/auth').length,
    /** A person logs in once (`webapi-credential login --cache`); the entry then holds the refresh token. */
    loggedIn: async (): Promise<{ cacheDir: string; args: string[]; reportedExpiry: number }> => {
      idp.tokenTtl(TOKEN_TTL_S);
      const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-refresh-lock-'));
      const args = ['--config-inline', config, '--cache', '--cache-dir', cacheDir];
      const run = startPlugin(['login', ...args]);
      const { url, code } = await run.prompt();
      await actAsPerson(url, code, pki.ca.cert, 'approve');
      const result = await run.done;
      expect(result.code, result.stderr).toBe(0);
      const until = /good until (\S+Z)/.exec(result.stderr)?.[1];
      return { cacheDir, args, reportedExpiry: Date.parse(until ?? '') };
    },
    past: async (time: number): Promise<void> => {
      expect(Number.isFinite(time)).toBe(true);
      await sleep(Math.max(0, time - Date.now() + 300));
    },
  };
}

/** The entries' files as text (the test's own directory). */
function entries(cacheDir: string): string {
  return readdirSync(cacheDir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readFileSync(join(cacheDir, name), 'utf8'))
    .join('\n');
}

describe.concurrent('a refresh token kept in the cache, and the lock of who uses it', () => {
  it('a refreshed credential keeps its real expiry: past its reported one, an outage is served through, as for a fetched one', async (context) => {
    const { expect } = context;
    const { idp, refreshGrants, loggedIn, past } = await issuer(context);
    const { args, reportedExpiry } = await loggedIn();
    await past(reportedExpiry);
    const refreshed = await runCli(args, { env: NOT_INTERACTIVE });
    expect(refreshed.code, refreshed.stderr).toBe(0);
    const status = tokenOf(refreshed.stdout);
    await past(Date.parse(status.expirationTimestamp));
    idp.failRefresh(10);
    try {
      const refreshes = refreshGrants();
      // A refresh starts only with half the --timeout left (at most 10 s), counted from the process's
      // start: 10 s leaves room for a start that takes seconds beside the other tests' calls.
      const result = await runCli([...args, '--timeout', '10s'], { env: NOT_INTERACTIVE });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(
        /^webapi-credential: [^\n]*; served through an outage: the cached credential, which really expires at \S+Z\n$/,
      );
      const served = tokenOf(result.stdout);
      expect(served.token).toBe(status.token);
      // The real expiry, later than the reported one: the margin window the refresh kept.
      const really = Date.parse(/which really expires at (\S+Z)/.exec(result.stderr)![1]!);
      expect(really).toBeGreaterThan(Date.parse(status.expirationTimestamp));
      expect(refreshGrants()).toBe(refreshes + 1);
      expect(leaks(result, [...idp.issued], [status.token])).toEqual([]);
    } finally {
      idp.failRefresh(0);
    }
  }, 60_000);

  it('the credential of a refused refresh token is never served again, by the fast path or the full one, while a login runs in another terminal: exit 2, the login-in-progress line', async (context) => {
    const { expect } = context;
    const { idp, deviceRequests, loggedIn, past } = await issuer(context);
    const { cacheDir, args, reportedExpiry } = await loggedIn();
    const revoked = /"token":"([^"]+)"/.exec(entries(cacheDir))![1]!;
    await idp.revoke(idp.refreshTokens.at(-1)!);
    await past(reportedExpiry);
    // In the margin window, the issuer refuses the refresh: the token is dropped, nobody can log in here.
    const refused = await runCli(args, { env: NOT_INTERACTIVE });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^webapi-credential: the token endpoint refused the refresh with 400: "invalid_grant" [^\n]*, so the kept refresh token was dropped; a login is needed/,
    );

    // A person starts a login in another terminal; it waits at the prompt.
    const devices = deviceRequests();
    const login = startPlugin(args, INTERACTIVE);
    try {
      await login.prompt();
      expect(deviceRequests()).toBe(devices + 1);
      const waiting = new RegExp(
        `^${PREFIX}warning: waiting for the login in another terminal \\(pid ${login.child.pid}, since \\S+Z\\)$`,
      );
      const expected = [
        'WAITING',
        `${PREFIX}a login is in progress in another terminal (pid ${login.child.pid}): finish it there, then run again`,
      ];
      const lines = (stderr: string) =>
        stderr
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => line.replace(waiting, 'WAITING'));
      const fast = await runCli([...args, '--timeout', '2s'], { env: NOT_INTERACTIVE });
      expect(fast.code, fast.stderr).toBe(2);
      expect(fast.stdout).toBe('');
      expect(lines(fast.stderr)).toEqual(expected);
      expect(leaks(fast, [...idp.issued, revoked])).toEqual([]);
      // Without a ref the fast path misses: the full path reads the entry and judges the lock itself.
      for (const name of readdirSync(cacheDir).filter((name) => name.endsWith('.ref')))
        unlinkSync(join(cacheDir, name));
      const full = await runCli([...args, '--timeout', '2s'], { env: NOT_INTERACTIVE });
      expect(full.code, full.stderr).toBe(2);
      expect(full.stdout).toBe('');
      expect(lines(full.stderr)).toEqual(expected);
      expect(leaks(full, [...idp.issued, revoked])).toEqual([]);
      expect(deviceRequests()).toBe(devices + 1);
      // The entry no longer holds that credential.
      expect(entries(cacheDir)).not.toContain(revoked);
    } finally {
      login.child.kill('SIGINT');
      await login.done;
    }
  }, 60_000);

  it("an interactive call that only refreshes holds a fetch's lock: stopped (Ctrl-Z) while it refreshes, a waiter takes it over past its deadline and refreshes", async (context) => {
    const { expect } = context;
    const { idp, refreshGrants, deviceRequests, loggedIn, past } = await issuer(context);
    const { cacheDir, args, reportedExpiry } = await loggedIn();
    // Past the real expiry: nothing to serve while another refreshes.
    await past(reportedExpiry + MARGIN_MS);
    const held = idp.holdRefresh();
    // Room for a slow start (a refresh starts only with half the --timeout left: 5 s here); the waiter
    // takes over past the stopped call's deadline and then needs that half of its own: 30 s.
    const stopped = startPlugin([...args, '--timeout', '10s'], INTERACTIVE);
    try {
      // Had the call ended without a refresh, the test says why rather than wait for its own timeout.
      const ended = await Promise.race([held.arrived.then(() => undefined), stopped.done]);
      expect(ended, 'the stopped call ended before its refresh reached the issuer').toBeUndefined();
      stopped.child.kill('SIGSTOP');
      expect(readdirSync(cacheDir).filter((name) => name.endsWith('.lock'))).toHaveLength(1);
      const [devices, refreshes] = [deviceRequests(), refreshGrants()];
      const waiter = await runCli([...args, '--timeout', '30s'], { env: NOT_INTERACTIVE });
      expect(waiter.code, waiter.stderr).toBe(0);
      expect(waiter.stderr).toBe('');
      const { token } = tokenOf(waiter.stdout);
      expect(idp.isIdToken(token)).toBe(true);
      expect(refreshGrants()).toBe(refreshes + 1);
      expect(deviceRequests()).toBe(devices);
      expect(leaks(waiter, [...idp.issued], [token])).toEqual([]);
    } finally {
      held.release();
      stopped.child.kill('SIGKILL');
      stopped.child.kill('SIGCONT');
      await stopped.done;
    }
  }, 90_000);
});
