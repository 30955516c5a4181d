// Every example's kubeconfig.yaml and both Argo CD cluster secrets, run the way client-go runs them:
// the manifest's own command, args and env, KUBERNETES_EXEC_INFO with its apiVersion and, with
// provideClusterInfo, spec.cluster (with execProviderConfig.config for Argo CD >= 3.5). Nothing in
// the manifests is changed: the plugin path and the files they name are mapped to ours, and the
// plugin reaches the example hosts through an HTTPS proxy that routes them to local stand-ins.
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { startConnectProxy } from '../helpers/example-hosts.js';
import { clientGoStatus, runExecEntry, type ExecEntry } from '../helpers/exec-plugin.js';
import {
  PROVIDERS,
  TRUST_TEST_CA,
  examplePath,
  readArgoCdSecret,
  readKubeconfig,
  readText,
  readYaml,
  rfc3339,
  scratchFile,
  scratchHome,
  standIns,
  type Provider,
} from '../helpers/examples.js';
import { makePki } from '../helpers/pki.js';
import { azureAd, keycloak, pinniped, rancher, tokenExchange, upbound, vault } from '../helpers/provider-apis.js';
import { fakeJwt, type Handler } from '../helpers/token-api.js';

const pki = makePki();
const SA_TOKEN = fakeJwt(Math.floor(Date.now() / 1000) + 3600, { sub: 'system:serviceaccount:argocd:argocd-application-controller' });
const SA_TOKEN_FILE = scratchFile('projected-token', SA_TOKEN);
const PLUGIN = { argocd: '/custom-tools/webapi-credential', kubeconfig: 'webapi-credential' };
/** What a person exports before running kubectl with the example kubeconfig. */
const SHELL: Record<string, string> = {
  UPBOUND_TOKEN: 'shell-upbound-token-8Hn',
  CLIENT_SECRET: 'shell-client-secret-3Kd',
  AZURE_CLIENT_SECRET: 'shell-azure-secret-7Lq',
  VAULT_TOKEN: 'hvs.shell-vault-token-2Wp',
  PINNIPED_TOKEN: SA_TOKEN,
  RANCHER_PASSWORD: 'shell-rancher-password-5Rt',
};
const start = standIns();

/** What the manifest hands the plugin: --set values and the environment. */
interface Inputs {
  vars: Record<string, string>;
  env: Record<string, string>;
  server: string;
}

interface StandIn {
  /** Host and port the plugin must connect to. */
  target: (inputs: Inputs) => string;
  handler: (inputs: Inputs, issued: string[]) => Handler;
}

const hostOf = (url: string) => {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '443'}`;
};
const RANCHER_EXPIRES = rfc3339(Date.now() + 8 * 3600_000);

const STAND_INS: Record<Provider, StandIn> = {
  upbound: { target: () => 'auth.upbound.io:443', handler: ({ vars, env }, issued) => upbound({ org: vars['org']!, token: env['UPBOUND_TOKEN']! }, issued) },
  keycloak: {
    target: ({ vars }) => hostOf(vars['issuer']!),
    handler: ({ vars, env }, issued) => keycloak({ realm: vars['issuer']!.split('/realms/')[1]!, clientId: vars['clientId']!, clientSecret: env['CLIENT_SECRET']! }, issued),
  },
  'azure-ad': {
    target: () => 'login.microsoftonline.com:443',
    handler: ({ vars, env }, issued) => azureAd({ tenant: vars['tenantId']!, clientId: vars['clientId']!, clientSecret: env['AZURE_CLIENT_SECRET']! }, issued),
  },
  'rfc8693-token-exchange': {
    target: ({ vars }) => hostOf(vars['tokenUrl']!),
    handler: ({ vars }, issued) => tokenExchange({ path: new URL(vars['tokenUrl']!).pathname, subjectToken: SA_TOKEN, audience: vars['audience']! }, issued),
  },
  vault: {
    target: ({ vars }) => hostOf(vars['vaultAddr']!),
    handler: ({ vars, env }, issued) => vault({ mount: vars['mount'] ?? 'kubernetes', role: vars['role']!, namespace: vars['namespace']!, token: env['VAULT_TOKEN']! }, issued),
  },
  pinniped: {
    target: ({ vars, server }) => hostOf(vars['conciergeUrl'] ?? server),
    handler: ({ vars }, issued) =>
      pinniped({ token: SA_TOKEN, authenticator: vars['authenticator']!, certificate: pki.client, expirationTimestamp: rfc3339(Date.now() + 300_000) }, issued),
  },
  rancher: {
    target: ({ vars }) => hostOf(vars['rancherUrl']!),
    handler: ({ vars, env }, issued) => rancher({ username: vars['username']!, password: env['RANCHER_PASSWORD']!, expiresAt: RANCHER_EXPIRES }, issued),
  },
};

function setValues(args: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  args.forEach((arg, i) => {
    if (args[i - 1] === '--set') vars[arg.slice(0, arg.indexOf('='))] = arg.slice(arg.indexOf('=') + 1);
  });
  return vars;
}

/** Runs `entry` as client-go would, against the provider's stand-in behind the proxy; the credential. */
async function runAgainstStandIn(provider: Provider, entry: ExecEntry, plugin: string, cluster: { server: string; caData?: string }, shell: Record<string, string>) {
  const entryEnv = Array.isArray(entry.env) ? Object.fromEntries(entry.env.map((e) => [e.name, e.value])) : (entry.env ?? {});
  const inputs: Inputs = { vars: setValues(entry.args ?? []), env: { ...shell, ...entryEnv }, server: cluster.server };
  const issued: string[] = [];
  const api = await start(STAND_INS[provider].handler(inputs, issued));
  const target = STAND_INS[provider].target(inputs);
  const proxy = await startConnectProxy({ [target.replace(/:\d+$/, '')]: api.port });
  try {
    const result = await runExecEntry(entry, {
      plugin,
      paths: {
        [`/etc/webapi-credential/${provider}.yaml`]: examplePath(provider, 'config.yaml'),
        '/var/run/secrets/tokens/token-exchange': SA_TOKEN_FILE,
        '/var/run/secrets/tokens/pinniped': SA_TOKEN_FILE,
      },
      cluster: { server: cluster.server, ...(cluster.caData !== undefined ? { 'certificate-authority-data': cluster.caData } : {}) },
      callerEnv: { ...shell, ...TRUST_TEST_CA, HTTPS_PROXY: proxy.url, HOME: scratchHome() },
    });
    const secrets = Object.values(inputs.env).filter((value) => value.length >= 4);
    expect({ stderr: result.stderr, leaks: leaks(result, secrets) }).toEqual({ stderr: '', leaks: [] });
    const status = clientGoStatus(result, entry.apiVersion);
    expect(proxy.connects).toEqual([target]);
    if (provider === 'pinniped') {
      expect({ cert: status.clientCertificateData, key: status.clientKeyData, token: status.token }).toEqual({ cert: pki.client.cert, key: pki.client.key, token: undefined });
    } else {
      expect(status.token).toBe(issued[0]);
    }
    expect(status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  } finally {
    await proxy.close();
  }
}

const configOf = (provider: Provider) => readYaml(provider, 'config.yaml');

describe.concurrent.each(PROVIDERS)('examples/%s', (provider) => {
  it('argocd-cluster-secret.yaml carries config.yaml in --config-inline and gets a credential as Argo CD runs it', async () => {
    const secret = readArgoCdSecret(provider, 'argocd-cluster-secret.yaml');
    const exec = secret.execProviderConfig;
    expect({ command: exec.command, first: exec.args[0], config: YAML.parse(exec.args[1]!), provideClusterInfo: exec.provideClusterInfo }).toEqual({
      command: PLUGIN.argocd,
      first: '--config-inline',
      config: configOf(provider),
      provideClusterInfo: undefined,
    });
    await runAgainstStandIn(provider, exec, PLUGIN.argocd, { server: secret.server }, {});
  });

  it('argocd-cluster-secret-3.5.yaml carries config.yaml in execProviderConfig.config and gets a credential through provideClusterInfo', async () => {
    const secret = readArgoCdSecret(provider, 'argocd-cluster-secret-3.5.yaml');
    const exec = secret.execProviderConfig;
    expect({ command: exec.command, config: exec.config, provideClusterInfo: exec.provideClusterInfo, configArgs: exec.args.filter((a) => a.startsWith('--config')) }).toEqual({
      command: PLUGIN.argocd,
      config: configOf(provider),
      provideClusterInfo: true,
      // The user entry must ask for the cluster entry's config.
      configArgs: ['--config-from-cluster'],
    });
    // The rest of the secret is the same as the one for every Argo CD version.
    const classic = readArgoCdSecret(provider, 'argocd-cluster-secret.yaml');
    expect({ ...secret, execProviderConfig: { ...exec, config: undefined, provideClusterInfo: undefined, args: undefined } }).toEqual({
      ...classic,
      execProviderConfig: { ...classic.execProviderConfig, args: undefined },
    });
    await runAgainstStandIn(provider, exec, PLUGIN.argocd, { server: secret.server, ...(secret.tlsClientConfig?.caData ? { caData: secret.tlsClientConfig.caData } : {}) }, {});
  });

  it('kubeconfig.yaml runs webapi-credential with config.yaml and gets a credential as kubectl runs it', async () => {
    const kubeconfig = readKubeconfig(readText(provider, 'kubeconfig.yaml'));
    const exec = kubeconfig.exec;
    expect({ command: exec.command, config: exec.args?.slice(0, 2), interactiveMode: exec.interactiveMode, apiVersion: exec.apiVersion }).toEqual({
      command: PLUGIN.kubeconfig,
      config: ['--config', `/etc/webapi-credential/${provider}.yaml`],
      interactiveMode: 'Never',
      apiVersion: 'client.authentication.k8s.io/v1',
    });
    await runAgainstStandIn(provider, exec, PLUGIN.kubeconfig, { server: kubeconfig.server }, SHELL);
  });
});
