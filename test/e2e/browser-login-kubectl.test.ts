// A person's first day with the browser login, end to end: `init oidc-login` from the issuer alone
// (oidc-provider's discovery), `kubeconfig --merge --use`, then the real kubectl 1.33 under a
// pseudo-terminal (util-linux `script`) runs `kubectl get ns`: client-go says interactive, the plugin
// opens the browser through $BROWSER (Debian's chromium, headless, driven by playwright-core), the
// person signs in on oidc-provider's own pages, and kubectl lists the namespaces with the id_token.
// The next kubectl, without a terminal, is a cache hit.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import {
  BROWSER_ACCOUNT,
  BROWSER_CLIENT_ID,
  startBrowserProvider,
  type BrowserProvider,
} from '../helpers/browser-provider.js';
import { CHROMIUM, startBrowserDriver, type BrowserDriver } from '../helpers/chromium.js';
import { runCli, runCommand } from '../helpers/cli.js';
import { installedDir } from '../helpers/installed.js';
import { KUBECTL_1_33, requireKubectl } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith, SCRIPT } from '../helpers/tools.js';

const pki = makePki();
let idp: BrowserProvider;
let api: ApiServer;
let driver: BrowserDriver;
let ports: number[];
const dirs: string[] = [];

beforeAll(async () => {
  if (!CHROMIUM.path || !KUBECTL_1_33.path || !SCRIPT.path) return;
  // Free ports now: 8000 and 18000 (init's default, kubelogin's) may be anyone's on a shared machine.
  const servers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  idp = await startBrowserProvider(
    pki,
    ports.map((port) => `http://localhost:${port}`),
  );
  api = await startApiServer({ accepts: (token) => (idp.isIdToken(token) ? BROWSER_ACCOUNT : undefined) });
  driver = await startBrowserDriver();
}, 60_000);
afterAll(async () => {
  await Promise.all([idp?.close(), api?.close(), driver?.close()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describeWith(
  CHROMIUM,
  KUBECTL_1_33,
  SCRIPT,
)('kubectl 1.33, a person and a real browser', () => {
  it('init oidc-login from the issuer alone, kubeconfig --merge --use, kubectl get ns at a terminal logs in through the browser; the next call is a hit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-browser-e2e-'));
    dirs.push(dir);
    const home = join(dir, 'home');
    mkdirSync(home);
    const PATH = `${installedDir()}:${process.env['PATH'] ?? '/usr/bin:/bin'}`;

    const init = await runCli([
      'init',
      'oidc-login',
      '--set',
      `issuer=${idp.issuer}`,
      '--set',
      `clientId=${BROWSER_CLIENT_ID}`,
      '--set',
      `caFile=${pki.ca.certFile}`,
    ]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`url: "${idp.issuer}/auth"`);
    expect(init.stdout).toContain(`issuer: ${idp.issuer}`);
    expect(init.stdout).toContain(
      `# login.deviceAuthorization: left out, the issuer ${idp.issuer} offers no device_authorization_endpoint`,
    );
    expect(init.stdout).toMatch(/revocation:\n\s+url: https:\/\/localhost:\d+\/token\/revocation/);
    // The ports the test's client is registered with, in place of init's 8000 and 18000.
    const config = join(dir, 'login.yaml');
    writeFileSync(
      config,
      init.stdout.replace(
        /^( +)url: ("https:\/\/localhost:\d+\/auth")$/m,
        `$1url: $2\n$1redirectPorts: [${ports.join(', ')}]`,
      ),
    );
    expect(readFileSync(config, 'utf8')).toContain(`redirectPorts: [${ports.join(', ')}]`);

    const kubeconfig = join(dir, 'kubeconfig');
    const merged = await runCli(
      [
        'kubeconfig',
        '--config',
        config,
        '--server',
        api.url,
        '--ca-file',
        api.caFile,
        '--name',
        'browser',
        '--merge',
        kubeconfig,
        '--use',
      ],
      { env: { HOME: home } },
    );
    expect(merged.code, merged.stderr).toBe(0);
    expect(readFileSync(kubeconfig, 'utf8')).toContain('interactiveMode: IfAvailable');

    // kubectl at a terminal, as a person runs it.
    const started = Date.now();
    const command = [requireKubectl(KUBECTL_1_33), 'get', 'ns', '-o', 'name'].map((part) => `'${part}'`).join(' ');
    const child = spawn(SCRIPT.path!, ['-qfec', command, '/dev/null'], {
      env: { PATH, HOME: home, KUBECONFIG: kubeconfig, TERM: 'dumb', BROWSER: driver.script },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
      child.on('close', (exit) => {
        clearTimeout(timer);
        child.stdin.destroy();
        resolve(exit);
      });
    });
    expect(code, output).toBe(0);
    expect(output).toContain('namespace/kube-system');
    expect(output.match(/to log in, open/g)).toHaveLength(1);
    expect(driver.opened).toHaveLength(1);
    expect(api.requests.some((r) => r.user?.username === BROWSER_ACCOUNT)).toBe(true);
    process.stderr.write(`kubectl get ns with a browser login: ${Date.now() - started} ms\n`);
    const urlLine = output.split(/\r?\n/).find((line) => line.includes('to log in, open'));
    const rest = output.replace(urlLine ?? '', '');
    for (const secret of idp.issued) expect(output.includes(secret), 'a code or token on the terminal').toBe(false);
    const callback = new URL((await driver.callback(1)).url).searchParams;
    for (const name of ['code', 'state'])
      expect(rest.includes(callback.get(name)!), `the ${name} on the terminal`).toBe(false);

    const before = idp.requests.length;
    const next = await runCommand(requireKubectl(KUBECTL_1_33), ['get', 'ns', '-o', 'name'], {
      PATH,
      HOME: home,
      KUBECONFIG: kubeconfig,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('namespace/default');
    expect(idp.requests.length).toBe(before);
    expect(driver.opened).toHaveLength(1);
  }, 120_000);
});
