// End to end: `webapi-credential kubeconfig` writes the kubeconfig, and the real kubectl 1.33 uses it
// as is: it runs this CLI (by the absolute path the command wrote) with the example Keycloak config,
// which gets a token from a Keycloak stand-in, and the apiserver stand-in accepts that token.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { TRUST_TEST_CA } from '../helpers/examples.js';
import { KUBECTL_1_33, makeKube, requireKubectl, type Kube } from '../helpers/kubectl.js';
import { describeWith } from '../helpers/tools.js';
import { keycloak } from '../helpers/provider-apis.js';
import { startTokenApi, type TokenApi } from '../helpers/token-api.js';

const SECRET = 'e2e-client-secret-6Hm';
const CONFIG = `${ROOT}examples/keycloak/config-client-secret-post.yaml`;
const issued: string[] = [];
let tokenApi: TokenApi;
let apiserver: ApiServer;

beforeAll(async () => {
  tokenApi = await startTokenApi(keycloak({ realm: 'platform', clientId: 'kubectl', clientSecret: SECRET }, issued));
  apiserver = await startApiServer({ accepts: (token) => (issued.includes(token) ? 'service-account-kubectl' : undefined) });
});

afterAll(async () => {
  await Promise.all([tokenApi?.close(), apiserver?.close()]);
});

/** kubectl in a clean environment, as a person who exported the secret (and trusts the test CA) runs it. */
function kubectl(kube: Kube, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: kube.home, KUBECONFIG: kube.kubeconfig, CLIENT_SECRET: SECRET, ...TRUST_TEST_CA };
  return new Promise((resolve, reject) => {
    const child = spawn(requireKubectl(KUBECTL_1_33), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describeWith(KUBECTL_1_33)('the kubeconfig that `webapi-credential kubeconfig` prints', () => {
  it.each([
    ['with the config file in args', []],
    ['with the config embedded in the cluster extension', ['--embed-config']],
  ])('drives the real kubectl 1.33 %s', async (_how, flags) => {
    const sets = ['--set', `issuer=${tokenApi.url}/realms/platform`, '--set', 'clientId=kubectl'];
    const printed = await runCli(['kubeconfig', '--server', apiserver.url, '--ca-file', apiserver.caFile, '--name', 'e2e', '--config', CONFIG, ...sets, ...flags], { env: { CLIENT_SECRET: SECRET } });
    expect(printed.code, printed.stderr).toBe(0);
    const kube = makeKube();
    writeFileSync(kube.kubeconfig, printed.stdout);
    const before = issued.length;

    const pods = await kubectl(kube, ['get', '--raw', '/api/v1/namespaces/default/pods']);
    expect({ code: pods.code, stderr: pods.stderr }).toEqual({ code: 0, stderr: '' });
    expect((JSON.parse(pods.stdout) as { items: Array<{ metadata: { name: string } }> }).items.map((p) => p.metadata.name)).toEqual(['web-0', 'web-1']);
    const whoami = await kubectl(kube, ['auth', 'whoami', '-o', 'json']);
    expect((JSON.parse(whoami.stdout) as { status: unknown }).status).toEqual({ userInfo: { username: 'service-account-kubectl', groups: ['system:authenticated'] } });

    // One token per kubectl command (no --cache), each one issued by the token API for this run.
    const tokens = issued.slice(before);
    expect(tokens).toHaveLength(2);
    const seen = apiserver.requests.filter((r) => tokens.includes(r.token ?? ''));
    expect(seen.map(({ method, path, auth, status }) => ({ method, path, auth, status }))).toEqual([
      { method: 'GET', path: '/api/v1/namespaces/default/pods', auth: 'bearer', status: 200 },
      { method: 'POST', path: '/apis/authentication.k8s.io/v1/selfsubjectreviews', auth: 'bearer', status: 201 },
    ]);
  });
});
