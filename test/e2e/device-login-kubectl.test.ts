// A person's first `kubectl get ns` with a device login: the real kubectl 1.33 runs the plugin with
// interactiveMode: IfAvailable under a pseudo-terminal (util-linux `script`), so client-go says
// interactive: true; the test reads the prompt from the terminal, approves at oidc-provider's own
// verification page, and kubectl lists the namespaces with the id_token. The next kubectl, without
// a terminal, is served from the cache; interactiveMode: Never (Argo CD's) never prompts. Once the
// id_token expires, a kubectl without a terminal refreshes it with the refresh token the cache kept.
// Each test has a provider and an apiserver of its own (their requests, the token lifetime), so the
// tests run at the same time: the last waits out an id_token's life.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { it, type TestContext } from 'vitest';
import { startApiServer } from '../helpers/apiserver.js';
import { deviceConfig } from '../helpers/device-config.js';
import { actAsPerson, ACCOUNT, ownDeviceProvider } from '../helpers/device-provider.js';
import { atTerminal } from '../helpers/device-run.js';
import { KUBECTL_1_33, makeKube, requireKubectl, runKubectl, writeKubeconfig, type Kube } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith, SCRIPT } from '../helpers/tools.js';

const pki = makePki();

/**
 * The test's own provider and the apiserver that takes its id_tokens, both closed when the test
 * finishes, and kubeWith: a kubectl setup (its dir removed then too) with the plugin logging in there.
 */
async function world({ onTestFinished }: TestContext) {
  const idp = await ownDeviceProvider(pki, onTestFinished);
  const api = await startApiServer({ accepts: (token) => (idp.isIdToken(token) ? ACCOUNT : undefined) });
  onTestFinished(() => api.close());
  function kubeWith(interactiveMode: 'IfAvailable' | 'Never', extra: Record<string, unknown> = {}): Kube {
    const kube = makeKube();
    onTestFinished(() => rmSync(kube.dir, { recursive: true, force: true }));
    const config = deviceConfig(idp.issuer, pki.ca.certFile, { provider: extra });
    return writeKubeconfig(kube, {
      server: api.url,
      caFile: api.caFile,
      exec: {
        apiVersion: 'client.authentication.k8s.io/v1',
        args: ['--config-inline', config, '--cache', '--cache-dir', join(kube.dir, 'cache')],
        interactiveMode,
      },
    });
  }
  return {
    idp,
    api,
    kubeWith,
    deviceRequests: () => idp.requests.filter((r) => r.path === '/device/auth').length,
    refreshGrants: () => idp.requests.filter((r) => r.grant === 'refresh_token').length,
  };
}

/** kubectl under a pseudo-terminal: stdin, stdout and stderr are the terminal, as for a person. */
function kubectlAtTerminal(kube: Kube, args: string[]) {
  return atTerminal([requireKubectl(KUBECTL_1_33), ...args], {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: kube.home,
    KUBECONFIG: kube.kubeconfig,
    TERM: 'dumb',
  });
}

// The test that waits longest comes first.
describeWith(KUBECTL_1_33, SCRIPT).concurrent('kubectl 1.33 and a person at a terminal', () => {
  it('once the id_token expires, a kubectl without a terminal refreshes it: no prompt, one refresh grant, nothing secret shown', async (context) => {
    const { expect } = context;
    const { idp, api, kubeWith, deviceRequests, refreshGrants } = await world(context);
    // id_tokens of 15 s reported early (expiryMargin 10s, at most half the lifetime): served from the cache for a few seconds, then refreshed.
    idp.tokenTtl(15);
    const kube = kubeWith('IfAvailable', { expiryMargin: '10s' });
    const devicesBefore = deviceRequests();
    const run = kubectlAtTerminal(kube, ['get', 'ns', '-o', 'name']);
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const first = await run.done;
    expect(first.code, first.output).toBe(0);
    expect(deviceRequests()).toBe(devicesBefore + 1);
    // When the id_token the cache holds was issued, at the latest.
    let issuedBy = Date.now();

    // The next calls, no terminal, no prompt (from the cache, or refreshed once it expired: then the
    // wait below is counted from that refresh, so that a busy machine's slow calls here leave the
    // refresh to the call after it all the same).
    for (const _ of [1, 2]) {
      const refreshed = refreshGrants();
      const next = await runKubectl(KUBECTL_1_33, kube, ['get', 'ns', '-o', 'name']);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stderr).not.toContain('to log in');
      if (refreshGrants() > refreshed) issuedBy = Date.now();
    }
    expect(deviceRequests()).toBe(devicesBefore + 1);

    // Past the reported expiry: kubectl without a terminal (interactive: false) refreshes.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, issuedBy + 9_000 - Date.now())));
    const refreshes = refreshGrants();
    const served = api.requests.length;
    const later = await runKubectl(KUBECTL_1_33, kube, ['get', 'ns', '-o', 'name']);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stdout).toContain('namespace/default');
    expect(later.stderr).toBe('');
    expect(refreshGrants()).toBe(refreshes + 1);
    expect(deviceRequests()).toBe(devicesBefore + 1);
    expect(api.requests.slice(served).some((r) => r.user?.username === ACCOUNT)).toBe(true);
    for (const secret of idp.issued) {
      expect(first.output.includes(secret), 'a device code or token on the terminal').toBe(false);
      expect(`${later.stdout}${later.stderr}`.includes(secret), "a token on kubectl's output").toBe(false);
    }
  }, 90_000);

  it('the first kubectl get ns prompts once; the next, without a terminal, is served from the cache', async (context) => {
    const { expect } = context;
    const { idp, api, kubeWith } = await world(context);
    const kube = kubeWith('IfAvailable');
    const run = kubectlAtTerminal(kube, ['get', 'ns', '-o', 'name']);
    const { url, code } = await run.prompt();
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const first = await run.done;
    expect(first.code, first.output).toBe(0);
    expect(first.output).toContain('namespace/kube-system');
    expect(first.output.match(/to log in, open/g)).toHaveLength(1);
    for (const secret of idp.issued)
      expect(first.output.includes(secret), 'a device code or token on the terminal').toBe(false);
    expect(api.requests.some((r) => r.user?.username === ACCOUNT)).toBe(true);

    const before = idp.requests.length;
    const next = await runKubectl(KUBECTL_1_33, kube, ['get', 'ns', '-o', 'name']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain('namespace/default');
    expect(idp.requests.length).toBe(before);
  }, 90_000);

  it('interactiveMode: Never (what Argo CD forces) never prompts: no device request, the line a person needs', async (context) => {
    const { expect } = context;
    const { idp, kubeWith, deviceRequests } = await world(context);
    const kube = kubeWith('Never');
    const before = deviceRequests();
    const run = kubectlAtTerminal(kube, ['get', 'ns']);
    const result = await run.done;
    expect(result.code, result.output).toBe(1);
    // kubectl runs the plugin once per attempt and shows its stderr each time: every line of ours is
    // the one line, and every other line is kubectl's own report of the exit 2.
    const lines = result.output
      .replaceAll('\r\n', '\n')
      .split('\n')
      .filter((line) => line !== '');
    const ours = lines.filter((line) => line.startsWith('webapi-credential: '));
    expect(ours.length).toBeGreaterThan(0);
    expect(new Set(ours)).toEqual(
      new Set([
        `webapi-credential: a login is needed and nobody can answer its prompt here (client-go says the call is not interactive); log in once at a terminal: kubectl get ns (with interactiveMode: IfAvailable and --cache in the exec entry), or webapi-credential login --config-inline <this command's --config-inline> --cache --cache-dir ${join(kube.dir, 'cache')}`,
      ]),
    );
    for (const line of lines.filter((line) => !ours.includes(line)))
      expect(line).toMatch(/^(E\d{4} .*|Unable to connect to the server: .*)failed with exit code 2"?$/);
    for (const secret of idp.issued)
      expect(result.output.includes(secret), 'a device code or token on the terminal').toBe(false);
    expect(deviceRequests()).toBe(before);
  }, 60_000);
});
