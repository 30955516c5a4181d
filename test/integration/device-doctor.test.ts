// doctor on a login config, against the real oidc-provider: the login stage shows the refresh token
// the cache holds and its age (never the token) and runs no login; with nobody logged in it fails
// with exit 2 and the line a person needs, without a device request; once the credential expired it
// says it was refreshed; `doctor --login` logs in, only at a terminal (util-linux `script` gives it one).
// Each test has a provider of its own (its requests, its token lifetime), so the tests run at the same
// time: one waits out a credential's life.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { baseEnv, leaks, runCli, type CliResult } from '../helpers/cli.js';
import { deviceConfig } from '../helpers/device-config.js';
import { actAsPerson, ownDeviceProvider } from '../helpers/device-provider.js';
import { approvedLogin, cliAtTerminal } from '../helpers/device-run.js';
import { expectFailure } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';
import { describeWith, SCRIPT } from '../helpers/tools.js';

const pki = makePki();

/** The test's own provider, closed when it finishes, with the config for it and its count of device requests. */
async function provider({ onTestFinished }: TestContext) {
  const idp = await ownDeviceProvider(pki, onTestFinished);
  return {
    idp,
    config: () => deviceConfig(idp.issuer, pki.ca.certFile, { provider: { expiryMargin: '8s' } }),
    deviceRequests: () => idp.requests.filter((r) => r.path === '/device/auth').length,
  };
}
const line = (result: CliResult, name: string) =>
  result.stdout.split('\n').find((l) => l.slice(2).startsWith(`${name} `)) ?? '';

async function loggedIn(args: string[]): Promise<number> {
  const result = await approvedLogin(args, pki.ca.cert);
  return Date.parse(/good until (\S+Z)/.exec(result.stderr)?.[1] ?? '');
}

describe.concurrent('doctor on a login config', () => {
  // Two halves of one story, apart so that they run at the same time: this one waits out a credential's
  // short life (12 s, reported 6 s early: expiryMargin 8s is at most half of it), the next needs one that
  // is still good (the provider's 600 s).
  it('once the credential expired, says it was refreshed with the refresh token the cache holds', async (context) => {
    const { expect } = context;
    const { idp, config, deviceRequests } = await provider(context);
    idp.tokenTtl(12);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-login-'));
    const args = ['--config-inline', config(), '--cache', '--cache-dir', cacheDir];
    const expiry = await loggedIn(args);
    const devices = deviceRequests();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiry - Date.now() + 300)));
    const refreshed = await runCli(['doctor', ...args]);
    expect(refreshed.code, refreshed.stdout + refreshed.stderr).toBe(0);
    expect(line(refreshed, 'login')).toMatch(
      /^✓ login +the credential had expired: refreshed with the refresh token the cache holds, no person needed; a refresh token held, kept \d+ s ago/,
    );
    expect(line(refreshed, 'token API')).toMatch(/^✓ token API +POST \S+\/token: 200 in /);
    expect(line(refreshed, 'credential')).toMatch(
      /^✓ credential +token, JWT, .*expires at \S+Z \(in \d+ s\), reported to kubectl as \S+Z/,
    );
    expect(deviceRequests()).toBe(devices);
    expect(leaks(refreshed, [...idp.issued])).toEqual([]);
  }, 60_000);

  it('shows the refresh token held and its age, and runs no login', async (context) => {
    const { expect } = context;
    const { idp, config, deviceRequests } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-login-'));
    const args = ['--config-inline', config(), '--cache', '--cache-dir', cacheDir];
    await loggedIn(args);
    const devices = deviceRequests();
    const result = await runCli(['doctor', ...args]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.split('\n').map((l) => l.slice(2).split(' ')[0])).toEqual([
      'source',
      'config',
      'login',
      'token',
      'credential',
      'cache',
      'cluster',
      '',
    ]);
    expect(line(result, 'login')).toMatch(
      /^✓ login +no login run \(doctor --login logs in now at a terminal\); a refresh token held, kept \d+ s ago: it serves without a prompt once the credential expires$/,
    );
    expect(deviceRequests()).toBe(devices);
    expect(leaks(result, [...idp.issued])).toEqual([]);

    const json = await runCli(['doctor', ...args, '-o', 'json']);
    const stages = (JSON.parse(json.stdout) as { stages: Array<{ name: string; details: Record<string, unknown> }> })
      .stages;
    const login = stages.find((s) => s.name === 'login')!;
    expect(login.details).toMatchObject({
      loggedIn: false,
      refreshed: false,
      refreshToken: { keptAt: expect.stringMatching(/Z$/) },
    });
    expect(leaks(json, [...idp.issued])).toEqual([]);
  }, 60_000);

  it('nobody logged in: the login stage fails with exit 2 and the line a person needs, and no device request is made', async (context) => {
    const { expect } = context;
    const { config, deviceRequests } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-login-'));
    const devices = deviceRequests();
    const result = await runCli(['doctor', '--config-inline', config(), '--cache', '--cache-dir', cacheDir]);
    expect(result.code).toBe(2);
    expect(line(result, 'login')).toMatch(
      /^✗ login +a login is needed and nobody can answer its prompt here \(stdin or stderr is no terminal\); log in once at a terminal/,
    );
    expect(line(result, 'token API')).toMatch(/^– token API +not run: login failed/);
    expect(deviceRequests()).toBe(devices);
  });

  it('a config without login has no login stage', async ({ expect }) => {
    const result = await runCli([
      'doctor',
      '--config-inline',
      JSON.stringify({ webAPIProviderConfig: { method: 'POST', url: 'https://localhost:1/token', tokenPath: '$.t' } }),
      '--timeout',
      '2s',
    ]);
    expect(result.stdout).not.toMatch(/^. login /m);
    expect(result.stdout).toMatch(/^. token API /m);
  });

  it('doctor --login without a terminal is exit 2, before any request', async (context) => {
    const { expect } = context;
    const { config, deviceRequests } = await provider(context);
    const devices = deviceRequests();
    expectFailure(
      await runCli(['doctor', '--login', '--config-inline', config()]),
      2,
      'doctor --login runs a login, and nobody can answer its prompt here (stdin or stderr is no terminal); run it at a terminal, or leave --login out to see the login stage',
    );
    expect(deviceRequests()).toBe(devices);
  });
});

describeWith(SCRIPT).concurrent('doctor --login at a terminal', () => {
  it('doctor without --login at a terminal, nobody logged in: exit 2, and the login stage points at --login', async (context) => {
    const { expect } = context;
    const { config, deviceRequests } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-terminal-'));
    const devices = deviceRequests();
    const { code: exit, output } = await cliAtTerminal([
      'doctor',
      '--config-inline',
      config(),
      '--cache',
      '--cache-dir',
      cacheDir,
    ]).done;
    expect(exit, output).toBe(2);
    expect(output).toMatch(
      /✗ login +a login is needed, and doctor runs none unless asked: run this doctor command again with --login to log in at this terminal \(or webapi-credential login\)\r?\n/,
    );
    expect(output).not.toContain('nobody can answer');
    expect(deviceRequests()).toBe(devices);
  }, 60_000);

  // Its words are the plugin's frame: a word of them a comparison in the config chose reads the same.
  it.for([
    ['login', 'other'],
    ['terminal', 'other'],
  ])(
    'that login stage reads the same whether a secret chose %s or %s',
    { timeout: 60_000 },
    async ([yes, no], context) => {
      const { expect } = context;
      const { idp } = await provider(context);
      const decided = deviceConfig(idp.issuer, pki.ca.certFile, {
        provider: { headers: { 'X-Word': `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}` } },
      });
      const lines: string[] = [];
      for (const t of ['a', 'z']) {
        const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-terminal-'));
        const { code: exit, output } = await cliAtTerminal(
          ['doctor', '--config-inline', decided, '--set', `t=${t}`, '--cache', '--cache-dir', cacheDir],
          baseEnv({ TERM: 'dumb', SECRET: 'hunter2-decides-31337' }),
        ).done;
        expect(exit, output).toBe(2);
        expect(output).not.toContain('hunter2-decides-31337');
        lines.push(/✗ login .*/.exec(output)?.[0] ?? '');
      }
      expect(lines[0]).toMatch(/^✗ login +a login is needed, and doctor runs none unless asked: /);
      expect(lines[1]).toBe(lines[0]);
    },
  );

  it('logs in now (the person approves), caches the refresh token, and reports it', async (context) => {
    const { expect } = context;
    const { idp, config, deviceRequests } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-login-'));
    const devices = deviceRequests();
    const run = cliAtTerminal(['doctor', '--login', '--config-inline', config(), '--cache', '--cache-dir', cacheDir]);
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const { code: exit, output } = await run.done;
    expect(exit, output).toBe(0);
    expect(output).toMatch(
      /✓ login +logged in now \(device authorization grant\); a refresh token held, kept \d+ s ago/,
    );
    // The report does not contradict itself: the login's own token request gave the credential.
    expect(output).toMatch(/✓ token API +called by the login above: its token endpoint gave the credential\r?\n/);
    expect(output).not.toContain('not called');
    expect(deviceRequests()).toBe(devices + 1);
    for (const secret of idp.issued)
      expect(output.includes(secret), 'a device code or token on the terminal').toBe(false);
  }, 60_000);
});
