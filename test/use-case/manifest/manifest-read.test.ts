// The reading side of the manifests (use-case/manifest/manifest-read.ts), tested as a pair with the writing side
// (use-case/manifest/manifests.ts): what the generators build, doctor reads back as kubectl and Argo CD would.
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildArgoCdClusterSecret, buildKubeconfig } from '../../../src/use-case/manifest/manifests.js';
import { execInfoFor, readArgoCdSecret, readKubeconfigExec } from '../../../src/use-case/manifest/manifest-read.js';
import { UsageError } from '../../../src/errors.js';

const DOCUMENT = {
  webAPIProviderConfig: { method: 'POST', url: 'https://auth.example.com/token', tokenPath: '$.access_token' },
};
const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';
const CA_PEM = '-----BEGIN CERTIFICATE-----\nQ0E=\n-----END CERTIFICATE-----\n';
const CA_DATA = Buffer.from(CA_PEM).toString('base64');

describe('readKubeconfigExec reads back what buildKubeconfig wrote', () => {
  it('the exec entry and the cluster of the current context', async () => {
    const written = YAML.stringify(
      buildKubeconfig({
        name: 'prod',
        server: 'https://k8s.example.com',
        caData: CA_DATA,
        plugin: { command: 'webapi-credential', args: ['--config', '/etc/wc.yaml', '--cache'], apiVersion: V1 },
      }),
    );
    expect(await readKubeconfigExec(written, '/home/me/.kube/config')).toEqual({
      origin: 'kubeconfig /home/me/.kube/config, context prod (user prod)',
      kind: 'kubeconfig',
      command: 'webapi-credential',
      args: ['--config', '/etc/wc.yaml', '--cache'],
      env: {},
      apiVersion: V1,
      provideClusterInfo: false,
      interactiveMode: 'Never',
      baseDir: '/home/me/.kube',
      cluster: { server: 'https://k8s.example.com', caPem: CA_PEM },
    });
  });

  it('an embedded config: provideClusterInfo and the extension, sent as spec.cluster.config', async () => {
    const written = YAML.stringify(
      buildKubeconfig({
        name: 'prod',
        server: 'https://k8s.example.com',
        caData: CA_DATA,
        plugin: {
          command: 'webapi-credential',
          args: ['--config-from-cluster'],
          apiVersion: V1,
          embeddedConfig: DOCUMENT,
        },
      }),
    );
    const source = await readKubeconfigExec(written, 'kubeconfig', 'prod');
    expect(source.provideClusterInfo).toBe(true);
    expect(source.cluster.config).toEqual(DOCUMENT);
    expect(JSON.parse(execInfoFor(source, CA_PEM))).toEqual({
      apiVersion: V1,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: { server: 'https://k8s.example.com', 'certificate-authority-data': CA_DATA, config: DOCUMENT },
      },
    });
  });

  it('sends no spec.cluster without provideClusterInfo, as client-go', async () => {
    const source = await readKubeconfigExec(
      YAML.stringify(
        buildKubeconfig({ name: 'p', server: 'https://k', plugin: { command: 'c', args: [], apiVersion: V1BETA1 } }),
      ),
      'k',
    );
    expect(JSON.parse(execInfoFor(source, undefined))).toEqual({
      apiVersion: V1BETA1,
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it.each([
    ['no such context', { 'current-context': 'x', contexts: [] }, 'k', 'kubeconfig k: no context "x"'],
    ['no current context', { contexts: [] }, 'k', 'kubeconfig k: no current-context: pass --context'],
    [
      'a user without exec',
      {
        'current-context': 'a',
        contexts: [{ name: 'a', context: { user: 'u', cluster: 'c' } }],
        users: [{ name: 'u', user: { token: 'x' } }],
      },
      'k',
      'kubeconfig k: user u has no exec entry: kubectl does not run a credential plugin for it',
    ],
    [
      'a user that is not there',
      { 'current-context': 'a', contexts: [{ name: 'a', context: { user: 'u' } }], users: [] },
      'k',
      'kubeconfig k: context a names user "u", which is not in users',
    ],
  ])('refuses %s with a usage error naming it', async (_what, document, path, message) => {
    await expect(readKubeconfigExec(JSON.stringify(document), path)).rejects.toThrow(new UsageError('SOURCE', message));
  });
});

describe('readArgoCdSecret reads back what buildArgoCdClusterSecret wrote', () => {
  it('execProviderConfig, its env and the cluster', async () => {
    const written = YAML.stringify(
      buildArgoCdClusterSecret({
        name: 'prod',
        server: 'https://k8s.example.com',
        namespace: 'argocd',
        caData: CA_DATA,
        plugin: { command: '/custom-tools/webapi-credential', args: ['--config-inline', '{}'], apiVersion: V1BETA1 },
        env: { CLIENT_SECRET: '<CLIENT_SECRET>' },
      }),
    );
    expect(await readArgoCdSecret(written, 'secret.yaml')).toEqual({
      origin: 'Argo CD secret secret.yaml (cluster prod)',
      kind: 'argocd-secret',
      command: '/custom-tools/webapi-credential',
      args: ['--config-inline', '{}'],
      env: { CLIENT_SECRET: '<CLIENT_SECRET>' },
      apiVersion: V1BETA1,
      provideClusterInfo: false,
      cluster: { server: 'https://k8s.example.com', caPem: CA_PEM },
    });
  });

  it("Argo CD 3.5's config and provideClusterInfo; data in base64 as kubectl get shows it", async () => {
    const built = buildArgoCdClusterSecret({
      name: 'prod',
      server: 'https://k8s.example.com',
      namespace: 'argocd',
      plugin: { command: '/c', args: ['--config-from-cluster'], apiVersion: V1BETA1, embeddedConfig: DOCUMENT },
      env: {},
    });
    const stringData = built['stringData'] as Record<string, string>;
    const asStored = {
      ...built,
      stringData: undefined,
      data: Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    };
    const source = await readArgoCdSecret(JSON.stringify(asStored), 's');
    expect(source.provideClusterInfo).toBe(true);
    expect(source.cluster.config).toEqual(DOCUMENT);
  });

  it('refuses a secret without execProviderConfig', async () => {
    const secret = { kind: 'Secret', stringData: { name: 'a', server: 'https://k', config: '{"bearerToken":"x"}' } };
    await expect(readArgoCdSecret(JSON.stringify(secret), 's')).rejects.toThrow(
      'Argo CD secret s: config has no execProviderConfig: Argo CD does not run a credential plugin for this cluster',
    );
  });
});
