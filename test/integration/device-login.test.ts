// The RFC 8628 device login against a real OIDC server (oidc-provider with features.deviceFlow and
// refresh tokens): the test plays the person, reading the prompt from the plugin's stderr and
// approving or denying at the server's own verification page. Each way a login ends has its exit
// code, its one line, and no device code or token on stdout or stderr. Each test has a provider of its
// own (its requests, tokens and lifetimes), so the tests run at the same time: most of their time is
// waiting on the provider's clock (a code's life, slow_down's interval, the person's delay).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { cliAtTerminal, startPlugin } from '../helpers/device-run.js';
import { expectExpiresIn } from '../helpers/examples.js';
import { expectFailure } from '../helpers/integration.js';
import { deviceConfig, execInfoEnv } from '../helpers/device-config.js';
import { actAsPerson, ownDeviceProvider } from '../helpers/device-provider.js';
import { makePki } from '../helpers/pki.js';
import { describeWith, SCRIPT } from '../helpers/tools.js';

const pki = makePki();

/** The test's own provider, closed when it finishes, and what the tests read of it. */
async function provider({ onTestFinished }: TestContext) {
  const idp = await ownDeviceProvider(pki, onTestFinished);
  return {
    idp,
    loginConfig: (fields: Record<string, unknown> = {}) =>
      deviceConfig(idp.issuer, pki.ca.certFile, { provider: fields }),
    deviceRequests: () => idp.requests.filter((r) => r.path === '/device/auth').length,
    secrets: () => [...idp.issued],
  };
}

const start = startPlugin;

// A worker runs five tests at a time: the three that wait longest come first.
describe.concurrent('the device login against oidc-provider', () => {
  it('slow_down adds 5 s to the interval, then the login goes on', async (context) => {
    const { expect } = context;
    const { idp, loginConfig, secrets } = await provider(context);
    idp.slowDown(1);
    const run = start(['--config-inline', loginConfig()], execInfoEnv(true));
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    const polls = idp.requests.filter((r) => r.grant === 'urn:ietf:params:oauth:grant-type:device_code').slice(-2);
    expect(polls[1]!.at - polls[0]!.at).toBeGreaterThanOrEqual(5_900);
    expect(leaks(result, secrets(), [JSON.parse(result.stdout).status.token])).toEqual([]);
  }, 60_000);

  it('the code expires before anyone approves: exit 2, one line, no poll past its life', async (context) => {
    const { expect } = context;
    const { idp, loginConfig, secrets } = await provider(context);
    idp.deviceCodeTtl(3);
    const run = start(['--config-inline', loginConfig()], execInfoEnv(true));
    await run.prompt();
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(1)).toEqual([
      'webapi-credential: and check that it shows the code ' +
        /the code (\S+) /.exec(result.stderr)![1] +
        ' (within 1 minute; Ctrl-C cancels)',
      'webapi-credential: the login code expired before it was approved; run the command again for a new code',
      '',
    ]);
    expect(leaks(result, secrets())).toEqual([]);
  }, 60_000);

  it('--timeout 1s does not bound the login: the person approves after 3 s, exit 0 with the credential', async (context) => {
    const { expect } = context;
    const { idp, loginConfig, secrets } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-device-timeout-'));
    const started = Date.now();
    const run = start(
      ['--config-inline', loginConfig(), '--timeout', '1s', '--cache', '--cache-dir', cacheDir],
      execInfoEnv(true),
    );
    const { url, code } = await run.prompt();
    // The person reads, opens the page and types: three times --timeout.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    const token = (JSON.parse(result.stdout) as { status: { token: string } }).status.token;
    expect(idp.isIdToken(token)).toBe(true);
    expect(result.stderr).toBe(
      `webapi-credential: to log in, open ${url}\nwebapi-credential: and check that it shows the code ${code} (within 10 minutes; Ctrl-C cancels)\n`,
    );
    expect(leaks(result, secrets(), [token])).toEqual([]);
  }, 60_000);

  it('login: the person approves at the verification page; the credential is the id_token, cached; the next call needs nobody', async (context) => {
    const { expect } = context;
    const { idp, loginConfig, secrets } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-device-cache-'));
    const config = loginConfig();
    const run = start(['login', '--config-inline', config, '--cache', '--cache-dir', cacheDir]);
    const { url, code } = await run.prompt();
    expect(url).toBe(`${idp.issuer}/device?user_code=${encodeURIComponent(code)}`);
    const page = await actAsPerson(url, code, pki.ca.cert, 'approve');
    expect(page.body, page.body).toContain('Sign-in Success');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n');
    expect(lines[0]).toBe(`webapi-credential: to log in, open ${url}`);
    expect(lines[1]).toBe(
      `webapi-credential: and check that it shows the code ${code} (within 10 minutes; Ctrl-C cancels)`,
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^webapi-credential: logged in; the credential is good until \\S+Z, and cached in ${cacheDir}: kubectl uses it with the same config and --cache$`,
      ),
    );
    expect(leaks(result, secrets())).toEqual([]);

    // kubectl's next call, with nobody at a terminal: served from the cache, no request at all.
    const before = idp.requests.length;
    const again = await start(['--config-inline', config, '--cache', '--cache-dir', cacheDir]).done;
    expect(again.code, again.stderr).toBe(0);
    const token = (JSON.parse(again.stdout) as { status: { token: string } }).status.token;
    expect(idp.isIdToken(token)).toBe(true);
    expect(idp.requests.length).toBe(before);
    expect(leaks(again, secrets(), [token])).toEqual([]);
  }, 60_000);

  it('access_token when tokenPath says so, its expiry from expires_in', async (context) => {
    const { expect } = context;
    const { idp, loginConfig, secrets } = await provider(context);
    const window = { before: Date.now(), after: 0 };
    const run = start(['--config-inline', loginConfig({ tokenPath: '$.access_token' })], execInfoEnv(true));
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const result = await run.done;
    window.after = Date.now();
    expect(result.code, result.stderr).toBe(0);
    const { token, expirationTimestamp } = (
      JSON.parse(result.stdout) as { status: { token: string; expirationTimestamp?: string } }
    ).status;
    // An opaque access token: its expiry is the answer's expires_in (600 s here), reported 60 s early,
    // from the plugin's clock between the test's two reads (not the time left now: a busy machine eats that).
    expectExpiresIn(expirationTimestamp, window, 600);
    expect(idp.issued.has(token)).toBe(true);
    expect(idp.isIdToken(token)).toBe(false);
    expect(leaks(result, secrets(), [token])).toEqual([]);
  }, 60_000);

  it.for([
    ['no exec info and no terminal', {}, 'stdin or stderr is no terminal'],
    ['KUBERNETES_EXEC_INFO interactive: false', execInfoEnv(false), 'client-go says the call is not interactive'],
  ] as const)(
    'nobody can answer (%s): exit 2 with the login command to paste, and no device request',
    async ([, env, why], context) => {
      const { expect } = context;
      const { loginConfig, deviceRequests, secrets } = await provider(context);
      const cacheDir = mkdtempSync(join(tmpdir(), 'wc-'));
      const result = await start(['--config-inline', loginConfig(), '--cache', '--cache-dir', cacheDir], env).done;
      expectFailure(
        result,
        2,
        `a login is needed and nobody can answer its prompt here (${why}); log in once at a terminal: kubectl get ns (with interactiveMode: IfAvailable and --cache in the exec entry), or webapi-credential login --config-inline <this command's --config-inline> --cache --cache-dir ${cacheDir}`,
        secrets(),
      );
      expect(deviceRequests()).toBe(0);
    },
  );

  it('denied at the verification page: exit 2, one line', async (context) => {
    const { expect } = context;
    const { loginConfig, secrets } = await provider(context);
    const run = start(['--config-inline', loginConfig()], execInfoEnv(true));
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'deny');
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(2)).toEqual([
      'webapi-credential: the login was denied at the identity provider; run the command again to log in anew',
      '',
    ]);
    expect(result.stdout).toBe('');
    expect(leaks(result, secrets())).toEqual([]);
  }, 60_000);

  it('Ctrl-C ends the login: exit 2, one line, nothing cached', async (context) => {
    const { expect } = context;
    const { loginConfig, secrets } = await provider(context);
    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-device-cache-'));
    const config = loginConfig();
    const run = start(['--config-inline', config, '--cache', '--cache-dir', cacheDir], execInfoEnv(true));
    const { url, code } = await run.prompt();
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n').slice(2)).toEqual([
      'webapi-credential: the login was cancelled (Ctrl-C); nothing was cached',
      '',
    ]);
    // Approved after all, too late: nothing was kept, so the next call without a person cannot log in.
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const next = await start(['--config-inline', config, '--cache', '--cache-dir', cacheDir]).done;
    expect(next.code).toBe(2);
    expect(next.stderr).toContain('a login is needed');
    expect(leaks(result, secrets())).toEqual([]);
  }, 60_000);
});

describeWith(SCRIPT).concurrent('at a terminal, without kubectl', () => {
  it('run by hand with stdin and stderr terminals, get-token prompts and prints the credential', async (context) => {
    const { expect } = context;
    const { idp, loginConfig } = await provider(context);
    const run = cliAtTerminal(['--config-inline', loginConfig(), '-o', 'token']);
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const result = await run.done;
    expect(result.code, result.output).toBe(0);
    const token = result.output.trim().split(/\r?\n/).at(-1)!;
    expect(idp.isIdToken(token)).toBe(true);
  }, 60_000);

  it('doctor runs no login, even at a terminal: no device request, and it points at doctor --login', async (context) => {
    const { expect } = context;
    const { loginConfig, deviceRequests } = await provider(context);
    const result = await cliAtTerminal(['doctor', '--config-inline', loginConfig()]).done;
    expect(result.code).toBe(2);
    expect(result.output).toContain(
      'a login is needed, and doctor runs none unless asked: run this doctor command again with --login to log in at this terminal (or webapi-credential login)',
    );
    expect(result.output).not.toContain('nobody can answer');
    expect(deviceRequests()).toBe(0);
  }, 60_000);
});
