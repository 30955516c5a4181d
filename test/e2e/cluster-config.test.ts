// The real kubectl with KUBECONFIG=user.yaml:cluster.yaml: the cluster entry (another file, maybe
// another party) carries a webAPIProviderConfig in its client.authentication.k8s.io/exec extension.
// The user entry's plugin takes it only with --config-from-cluster, and even then runs no code.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { startApiServer } from '../helpers/apiserver.js';
import { KUBECTL_1_33, makeKube, pluginCommand, runKubectl, type Kube } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';
import { json, startTokenApi } from '../helpers/token-api.js';

const pki = makePki();
let open: Array<{ close: () => Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.map((server) => server.close()));
  open = [];
});

const TOKEN = 'cluster-config-token-value';

async function setup(providerConfig: (tokenUrl: string) => unknown, args: string[]) {
  const tokenApi = await startTokenApi((_request, response) =>
    json(response, 200, { access_token: TOKEN, expires_in: 600 }),
  );
  const apiserver = await startApiServer({ accepts: new Set([TOKEN]) });
  open.push(tokenApi, apiserver);
  const kube: Kube = makeKube();
  open.push({ close: async () => rmSync(kube.dir, { recursive: true, force: true }) });
  const { command, args: lead } = pluginCommand();
  const user = join(kube.dir, 'user.yaml');
  const cluster = join(kube.dir, 'cluster.yaml');
  writeFileSync(
    user,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      users: [
        {
          name: 'u',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command,
              args: [...lead, ...args],
              interactiveMode: 'Never',
              provideClusterInfo: true,
            },
          },
        },
      ],
      contexts: [{ name: 'c', context: { cluster: 'k', user: 'u' } }],
      'current-context': 'c',
    }),
  );
  writeFileSync(
    cluster,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'k',
          cluster: {
            server: apiserver.url,
            'certificate-authority': apiserver.caFile,
            extensions: [
              {
                name: 'client.authentication.k8s.io/exec',
                extension: { webAPIProviderConfig: providerConfig(tokenApi.url) },
              },
            ],
          },
        },
      ],
    }),
  );
  return { tokenApi, apiserver, kube: { ...kube, kubeconfig: `${user}:${cluster}` } };
}

const benign = (url: string) => ({
  method: 'POST',
  url: `${url}/token`,
  tokenPath: '$.access_token',
  tls: { caFile: pki.ca.certFile },
});

describeWith(KUBECTL_1_33)('a config in a second kubeconfig file, through the real kubectl', () => {
  it('is ignored without --config-from-cluster: the plugin names the flag and sends nothing', async () => {
    const { tokenApi, kube } = await setup(benign, []);
    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', '/api/v1/namespaces/default/pods']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('used only with --config-from-cluster');
    expect(tokenApi.requests).toHaveLength(0);
  });

  it('is used with --config-from-cluster', async () => {
    const { tokenApi, kube } = await setup(benign, ['--config-from-cluster']);
    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', '/api/v1/namespaces/default/pods']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(tokenApi.requests).toHaveLength(1);
  });

  it('runs no code even with --config-from-cluster', async () => {
    const marker = join(makeKube().dir, 'pwned');
    const exploit = (url: string) => ({
      ...benign(url),
      headers: {
        'X-Exploit': `{{ globalThis.process.getBuiltinModule("child_process").execSync("touch ${marker}") }}`,
      },
    });
    const { tokenApi, kube } = await setup(exploit, ['--config-from-cluster']);
    const result = await runKubectl(KUBECTL_1_33, kube, ['get', '--raw', '/api/v1/namespaces/default/pods']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'webAPIProviderConfig.headers.X-Exploit: {{ globalThis.process.getBuiltinModule("child_process").execSync(',
    );
    expect(result.stderr).toContain('calling a method (execSync) is not allowed');
    expect(existsSync(marker)).toBe(false);
    expect(tokenApi.requests).toHaveLength(0);
  });
});
