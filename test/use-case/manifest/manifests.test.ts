// The manifests `kubeconfig` and `argocd-secret` print: plain objects, built without I/O.
import { describe, expect, it } from 'vitest';
import {
  buildArgoCdClusterSecret,
  buildKubeconfig,
  defaultName,
  resourceName,
} from '../../../src/use-case/manifest/manifests.js';

const DOCUMENT = {
  webAPIProviderConfig: { method: 'POST', url: 'https://auth.example.com/token', tokenPath: '$.access_token' },
};
const V1 = 'client.authentication.k8s.io/v1';
const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

describe('buildKubeconfig', () => {
  it('writes one cluster, one user whose exec entry runs the plugin, and a current context joining them', () => {
    expect(
      buildKubeconfig({
        name: 'prod',
        server: 'https://k8s.example.com',
        caData: 'Q0E=',
        plugin: { command: 'webapi-credential', args: ['--config', '/etc/wc.yaml'], apiVersion: V1 },
      }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'prod', cluster: { server: 'https://k8s.example.com', 'certificate-authority-data': 'Q0E=' } },
      ],
      users: [
        {
          name: 'prod',
          user: {
            exec: {
              apiVersion: V1,
              command: 'webapi-credential',
              args: ['--config', '/etc/wc.yaml'],
              interactiveMode: 'Never',
              installHint:
                'webapi-credential was not found on the PATH: install a release binary as webapi-credential in a directory of the PATH, or npm i -g webapi-credential (Node >= 22)',
            },
          },
        },
      ],
      contexts: [{ name: 'prod', context: { cluster: 'prod', user: 'prod' } }],
      'current-context': 'prod',
    });
  });

  it.each([
    [
      '/opt/tools/webapi-credential',
      'webapi-credential was not found at /opt/tools/webapi-credential: install it there, or write this kubeconfig again with webapi-credential kubeconfig --command <path>',
    ],
    [
      'C:\\tools\\webapi-credential.exe',
      'webapi-credential was not found at C:\\tools\\webapi-credential.exe: install it there, or write this kubeconfig again with webapi-credential kubeconfig --command <path>',
    ],
  ])('an installHint for the path %s says where', (command, hint) => {
    const kubeconfig = buildKubeconfig({
      name: 'p',
      server: 'https://k',
      plugin: { command, args: [], apiVersion: V1 },
    }) as { users: Array<{ user: { exec: Record<string, unknown> } }> };
    expect(kubeconfig.users[0]!.user.exec['installHint']).toBe(hint);
  });

  it('puts an embedded config in the cluster extension client-go hands to the plugin, with provideClusterInfo', () => {
    const kubeconfig = buildKubeconfig({
      name: 'p',
      server: 'https://k',
      plugin: { command: '/bin/wc', args: [], apiVersion: V1, embeddedConfig: DOCUMENT },
    }) as {
      clusters: Array<{ cluster: Record<string, unknown> }>;
      users: Array<{ user: { exec: Record<string, unknown> } }>;
    };
    expect(kubeconfig.clusters[0]!.cluster).toEqual({
      server: 'https://k',
      extensions: [{ name: 'client.authentication.k8s.io/exec', extension: DOCUMENT }],
    });
    expect(kubeconfig.users[0]!.user.exec['provideClusterInfo']).toBe(true);
  });
});

describe('buildArgoCdClusterSecret', () => {
  it('writes a declarative cluster secret whose config is JSON with the execProviderConfig', () => {
    const secret = buildArgoCdClusterSecret({
      name: 'Prod EU',
      server: 'https://k8s.example.com',
      namespace: 'argocd',
      caData: 'Q0E=',
      plugin: { command: '/custom-tools/webapi-credential', args: ['--config-inline', '{a: 1}'], apiVersion: V1BETA1 },
      env: { CLIENT_SECRET: '<CLIENT_SECRET>' },
    }) as { stringData: Record<string, string> } & Record<string, unknown>;
    expect({
      ...secret,
      stringData: { ...secret.stringData, config: JSON.parse(secret.stringData['config']!) },
    }).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'cluster-prod-eu',
        namespace: 'argocd',
        labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
      },
      type: 'Opaque',
      stringData: {
        name: 'Prod EU',
        server: 'https://k8s.example.com',
        config: {
          execProviderConfig: {
            command: '/custom-tools/webapi-credential',
            args: ['--config-inline', '{a: 1}'],
            env: { CLIENT_SECRET: '<CLIENT_SECRET>' },
            apiVersion: V1BETA1,
            installHint:
              'webapi-credential must be installed at /custom-tools/webapi-credential in argocd-server and argocd-application-controller (see examples/argocd)',
          },
          tlsClientConfig: { caData: 'Q0E=' },
        },
      },
    });
    expect(secret.stringData['config']!.endsWith('\n}\n')).toBe(true);
  });

  it('puts an embedded config in execProviderConfig.config with provideClusterInfo (Argo CD >= 3.5)', () => {
    const secret = buildArgoCdClusterSecret({
      name: 'p',
      server: 'https://k',
      namespace: 'ops',
      plugin: { command: '/t/wc', args: [], apiVersion: V1, embeddedConfig: DOCUMENT },
      env: {},
    }) as { stringData: Record<string, string> };
    expect(JSON.parse(secret.stringData['config']!)).toEqual({
      execProviderConfig: {
        command: '/t/wc',
        args: [],
        env: {},
        apiVersion: V1,
        installHint:
          'webapi-credential must be installed at /t/wc in argocd-server and argocd-application-controller (see examples/argocd)',
        provideClusterInfo: true,
        config: DOCUMENT,
      },
    });
  });
});

describe('resource names', () => {
  it.each([
    ['prod', 'prod'],
    ['Prod EU', 'prod-eu'],
    ['k8s.example.com', 'k8s-example-com'],
    ['--a__b--', 'a-b'],
    ['ÜBER', 'ber'],
    ['!!!', 'cluster'],
    ['x'.repeat(80), 'x'.repeat(55)],
  ])('%j becomes %j', (text, name) => {
    expect(resourceName(text)).toBe(name);
  });

  it('the default name of a server is its host', () => {
    expect(defaultName('https://aks-prod.hcp.westeurope.azmk8s.io:443/')).toBe('aks-prod-hcp-westeurope-azmk8s-io');
  });
});
