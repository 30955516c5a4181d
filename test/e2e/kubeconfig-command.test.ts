// End to end: `webapi-credential kubeconfig` writes the kubeconfig, and the real kubectl 1.33 uses it
// as is: it runs the CLI under test, found by name on the PATH as an installed one would be (or by
// the path --command wrote), with the example Keycloak config, which gets a token from a Keycloak
// stand-in, and the apiserver stand-in accepts that token. Without it on the PATH, kubectl shows
// the installHint.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, runCli, runCommand, type CliResult } from '../helpers/cli.js';
import { installedDir } from '../helpers/installed.js';
import { TRUST_TEST_CA } from '../helpers/examples.js';
import { KUBECTL_1_33, makeKube, requireKubectl, type Kube } from '../helpers/kubectl.js';
import { describeWith } from '../helpers/tools.js';
import { keycloakCluster } from '../helpers/keycloak-cluster.js';

const SECRET = 'e2e-client-secret-6Hm';
const CONFIG = `${ROOT}examples/keycloak/config-client-secret-post.yaml`;
const cluster = keycloakCluster(SECRET);

const INSTALLED = installedDir();

/** kubectl in a clean environment, as a person who exported the secret (and trusts the test CA) runs it. */
function kubectl(
  kube: Kube,
  args: string[],
  path = `${INSTALLED}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
): Promise<CliResult> {
  return runCommand(requireKubectl(KUBECTL_1_33), args, {
    PATH: path,
    HOME: kube.home,
    KUBECONFIG: kube.kubeconfig,
    CLIENT_SECRET: SECRET,
    ...TRUST_TEST_CA,
  });
}

describeWith(KUBECTL_1_33)('the kubeconfig that `webapi-credential kubeconfig` prints', () => {
  it.each([
    ['with the config file in args, webapi-credential found on the PATH', []],
    ['with the config embedded in the cluster extension, webapi-credential found on the PATH', ['--embed-config']],
    ['with --command naming the installed path', ['--command', join(INSTALLED, 'webapi-credential')]],
  ])('drives the real kubectl 1.33 %s', async (_how, flags) => {
    const sets = ['--set', `issuer=${cluster.tokenApi.url}/realms/platform`, '--set', 'clientId=kubectl'];
    // The operator's machine has no secret: the kubeconfig is written without it.
    const printed = await runCli([
      'kubeconfig',
      '--server',
      cluster.apiserver.url,
      '--ca-file',
      cluster.apiserver.caFile,
      '--name',
      'e2e',
      '--config',
      CONFIG,
      ...sets,
      ...flags,
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    const kube = makeKube();
    writeFileSync(kube.kubeconfig, printed.stdout);
    const before = cluster.issued.length;

    const pods = await kubectl(kube, ['get', '--raw', '/api/v1/namespaces/default/pods']);
    expect({ code: pods.code, stderr: pods.stderr }).toEqual({ code: 0, stderr: '' });
    expect(
      (JSON.parse(pods.stdout) as { items: Array<{ metadata: { name: string } }> }).items.map((p) => p.metadata.name),
    ).toEqual(['web-0', 'web-1']);
    const whoami = await kubectl(kube, ['auth', 'whoami', '-o', 'json']);
    expect((JSON.parse(whoami.stdout) as { status: unknown }).status).toEqual({
      userInfo: { username: 'service-account-kubectl', groups: ['system:authenticated'] },
    });

    // One token for both kubectl commands: the kubeconfig writes --cache (HOME is the run's own).
    const tokens = cluster.issued.slice(before);
    expect(tokens).toHaveLength(1);
    const seen = cluster.apiserver.requests.filter((r) => tokens.includes(r.token ?? ''));
    expect(seen.map(({ method, path, auth, status }) => ({ method, path, auth, status }))).toEqual([
      { method: 'GET', path: '/api/v1/namespaces/default/pods', auth: 'bearer', status: 200 },
      { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', auth: 'bearer', status: 201 },
    ]);
  });

  it('shows the installHint when webapi-credential is not on the PATH', async () => {
    const printed = await runCli([
      'kubeconfig',
      '--server',
      cluster.apiserver.url,
      '--ca-file',
      cluster.apiserver.caFile,
      '--name',
      'e2e',
      '--config',
      CONFIG,
      '--set',
      'issuer=https://kc.example/realms/r',
      '--set',
      'clientId=kubectl',
    ]);
    expect(printed.code, printed.stderr).toBe(0);
    const kube = makeKube();
    writeFileSync(kube.kubeconfig, printed.stdout);
    const result = await kubectl(kube, ['get', '--raw', '/version'], '/usr/bin:/bin');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'webapi-credential was not found on the PATH: install a release binary as webapi-credential in a directory of the PATH, or npm i -g webapi-credential (Node >= 22)',
    );
  });
});
