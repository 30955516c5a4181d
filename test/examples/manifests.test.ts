// Every example's kubeconfig.yaml and both Argo CD cluster secrets (and a variant config's own, as
// kubeconfig-<variant>.yaml …), run the way client-go runs them:
// the manifest's own command, args and env, KUBERNETES_EXEC_INFO with its apiVersion and, with
// provideClusterInfo, spec.cluster (with execProviderConfig.config for Argo CD >= 3.5). Nothing in
// the manifests is changed: the plugin path and the files they name are mapped to ours, and the
// plugin reaches the example hosts through an HTTPS proxy that routes them to local stand-ins.
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { startConnectProxy } from '../helpers/example-hosts.js';
import { clientGoStatus, runExecEntry, type ExecEntry } from '../helpers/exec-plugin.js';
import {
  MANIFEST_SETS,
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
  type ManifestSet,
} from '../helpers/examples.js';
import { defaultAudience, googleOAuth, googleWorkloadIdentity, serviceAccountKey } from '../helpers/google-apis.js';
import { makePki, selfSignedRsa } from '../helpers/pki.js';
import {
  azureAd,
  keycloak,
  pinniped,
  rancher,
  tokenExchange,
  upbound,
  vault,
  vaultWithKubernetesAuth,
} from '../helpers/provider-apis.js';
import { signServiceAccountToken } from '../helpers/signed-jwt.js';
import { fakeJwt, type Handler } from '../helpers/token-api.js';

const pki = makePki();
const SA_TOKEN = fakeJwt(Math.floor(Date.now() / 1000) + 3600, {
  sub: 'system:serviceaccount:argocd:argocd-application-controller',
});
const SA_TOKEN_FILE = scratchFile('projected-token', SA_TOKEN);
const PLUGIN = { argocd: '/custom-tools/webapi-credential', kubeconfig: 'webapi-credential' };
/** The service-account issuer of the cluster Argo CD runs in, and the tokens it signed for the pod. */
const CLUSTER = generateKeyPairSync('rsa', { modulusLength: 2048 });
const CLUSTER_ISSUER = 'https://oidc.argocd-cluster.example.com';
const ARGOCD_SA = { namespace: 'argocd', name: 'argocd-application-controller' };
const podToken = (aud: string) =>
  signServiceAccountToken(
    {
      aud: [aud],
      exp: Math.floor(Date.now() / 1000) + 3600,
      iss: CLUSTER_ISSUER,
      sub: `system:serviceaccount:${ARGOCD_SA.namespace}:${ARGOCD_SA.name}`,
    },
    CLUSTER.privateKey,
  );
/** The workload identity pool the Google examples' manifests name. */
const POOL = {
  projectNumber: '123456789012',
  pool: 'argocd',
  provider: 'prod-cluster',
  issuer: CLUSTER_ISSUER,
  issuerKey: CLUSTER.publicKey,
};
const GOOGLE_KEY = serviceAccountKey('argocd-deployer@acme-prod.iam.gserviceaccount.com');
const GOOGLE_KEY_FILE = scratchFile('google-key.json', JSON.stringify(GOOGLE_KEY.fields));
const ENTRA_CERT = selfSignedRsa('argocd-aks');
const KEYCLOAK_CLIENT = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const KEYCLOAK_KEY_FILE = scratchFile(
  'keycloak-client.key',
  KEYCLOAK_CLIENT.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
);
/** Files the manifests name, in the pod or on the user's machine: the test's files. */
const FILES: Record<string, string> = {
  '/var/run/secrets/tokens/token-exchange': SA_TOKEN_FILE,
  '/var/run/secrets/tokens/pinniped': SA_TOKEN_FILE,
  '/var/run/secrets/tokens/gcp-workload-identity': scratchFile('gcp-token', podToken(defaultAudience(POOL))),
  '/var/run/secrets/kubernetes.io/serviceaccount/token': scratchFile(
    'pod-token',
    podToken('https://kubernetes.default.svc.cluster.local'),
  ),
  '/var/run/secrets/google/key.json': GOOGLE_KEY_FILE,
  '/var/run/secrets/entra/tls.key': ENTRA_CERT.keyFile,
  '/var/run/secrets/entra/tls.crt': ENTRA_CERT.certFile,
  '/etc/webapi-credential/entra/tls.key': ENTRA_CERT.keyFile,
  '/etc/webapi-credential/entra/tls.crt': ENTRA_CERT.certFile,
  '/var/run/secrets/keycloak/client.key': KEYCLOAK_KEY_FILE,
  '/etc/webapi-credential/keycloak-client.key': KEYCLOAK_KEY_FILE,
};
/** What a person exports before running kubectl with the example kubeconfig. */
const SHELL: Record<string, string> = {
  UPBOUND_TOKEN: 'shell-upbound-token-8Hn',
  CLIENT_SECRET: 'shell-client-secret-3Kd',
  AZURE_CLIENT_SECRET: 'shell-azure-secret-7Lq',
  VAULT_TOKEN: 'hvs.shell-vault-token-2Wp',
  PINNIPED_TOKEN: SA_TOKEN,
  RANCHER_PASSWORD: 'shell-rancher-password-5Rt',
  GOOGLE_APPLICATION_CREDENTIALS: GOOGLE_KEY_FILE,
};
const start = standIns();

/** What the manifest hands the plugin: --set values and the environment. */
interface Inputs {
  vars: Record<string, string>;
  env: Record<string, string>;
  server: string;
}

interface StandIn {
  /** Hosts and ports the plugin must connect to, in order, each once. */
  targets: (inputs: Inputs) => string[];
  handler: (inputs: Inputs, issued: string[]) => Handler;
}

const hostOf = (url: string) => {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || '443'}`;
};
const RANCHER_EXPIRES = rfc3339(Date.now() + 8 * 3600_000);

const realm = (issuer: string) => issuer.split('/realms/')[1]!;

/** The stand-in of each manifest set's API, by set name. */
const STAND_INS: Record<string, StandIn> = {
  upbound: {
    targets: () => ['auth.upbound.io:443'],
    handler: ({ vars, env }, issued) => upbound({ org: vars['org']!, token: env['UPBOUND_TOKEN']! }, issued),
  },
  keycloak: {
    targets: ({ vars }) => [hostOf(vars['issuer']!)],
    handler: ({ vars, env }, issued) =>
      keycloak(
        { realm: realm(vars['issuer']!), clientId: vars['clientId']!, clientSecret: env['CLIENT_SECRET']! },
        issued,
      ),
  },
  'keycloak-private-key-jwt': {
    targets: ({ vars }) => [hostOf(vars['issuer']!)],
    handler: ({ vars }, issued) =>
      keycloak(
        {
          realm: realm(vars['issuer']!),
          clientId: vars['clientId']!,
          clientKeys: [{ ...KEYCLOAK_CLIENT.publicKey.export({ format: 'jwk' }), kid: 'argocd-1' }],
        },
        issued,
      ),
  },
  'azure-ad': {
    targets: () => ['login.microsoftonline.com:443'],
    handler: ({ vars, env }, issued) =>
      azureAd(
        { tenant: vars['tenantId']!, clientId: vars['clientId']!, clientSecret: env['AZURE_CLIENT_SECRET']! },
        issued,
      ),
  },
  'entra-id-certificate': {
    targets: () => ['login.microsoftonline.com:443'],
    handler: ({ vars }, issued) =>
      azureAd({ tenant: vars['tenantId']!, clientId: vars['clientId']!, certificate: ENTRA_CERT.cert }, issued),
  },
  'google-service-account': {
    targets: () => ['oauth2.googleapis.com:443'],
    handler: (_inputs, issued) =>
      googleOAuth(
        {
          clientEmail: GOOGLE_KEY.fields.client_email,
          keys: { [GOOGLE_KEY.fields.private_key_id]: GOOGLE_KEY.publicKey },
        },
        issued,
      ),
  },
  'google-workload-identity': {
    targets: () => ['sts.googleapis.com:443', 'iamcredentials.googleapis.com:443'],
    handler: ({ vars }, issued) =>
      googleWorkloadIdentity(
        {
          ...POOL,
          subject: `system:serviceaccount:${ARGOCD_SA.namespace}:${ARGOCD_SA.name}`,
          serviceAccount: vars['serviceAccount']!,
        },
        issued,
      ),
  },
  'rfc8693-token-exchange': {
    targets: ({ vars }) => [hostOf(vars['tokenUrl']!)],
    handler: ({ vars }, issued) =>
      tokenExchange(
        { path: new URL(vars['tokenUrl']!).pathname, subjectToken: SA_TOKEN, audience: vars['audience']! },
        issued,
      ),
  },
  vault: {
    targets: ({ vars }) => [hostOf(vars['vaultAddr']!)],
    handler: ({ vars, env }, issued) =>
      vault(
        {
          mount: vars['mount'] ?? 'kubernetes',
          role: vars['role']!,
          namespace: vars['namespace']!,
          token: env['VAULT_TOKEN']!,
        },
        issued,
      ),
  },
  'vault-kubernetes-auth': {
    targets: ({ vars }) => [hostOf(vars['vaultAddr']!)],
    handler: ({ vars }, issued) =>
      vaultWithKubernetesAuth(
        {
          mount: vars['mount'] ?? 'kubernetes',
          role: vars['role']!,
          namespace: vars['namespace']!,
          serviceAccount: ARGOCD_SA.name,
          serviceAccountNamespace: ARGOCD_SA.namespace,
          issuerKey: CLUSTER.publicKey,
        },
        issued,
      ),
  },
  pinniped: {
    targets: ({ vars, server }) => [hostOf(vars['conciergeUrl'] ?? server)],
    handler: ({ vars }, issued) =>
      pinniped(
        {
          token: SA_TOKEN,
          authenticator: vars['authenticator']!,
          certificate: pki.client,
          expirationTimestamp: rfc3339(Date.now() + 300_000),
        },
        issued,
      ),
  },
  rancher: {
    targets: ({ vars }) => [hostOf(vars['rancherUrl']!)],
    handler: ({ vars, env }, issued) =>
      rancher({ username: vars['username']!, password: env['RANCHER_PASSWORD']!, expiresAt: RANCHER_EXPIRES }, issued),
  },
};

function setValues(args: string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  args.forEach((arg, i) => {
    if (args[i - 1] === '--set') vars[arg.slice(0, arg.indexOf('='))] = arg.slice(arg.indexOf('=') + 1);
  });
  return vars;
}

/** Runs `entry` as client-go would, against the set's stand-in behind the proxy; the credential. */
async function runAgainstStandIn(
  set: ManifestSet,
  entry: ExecEntry,
  plugin: string,
  cluster: { server: string; caData?: string },
  shell: Record<string, string>,
) {
  const entryEnv = Array.isArray(entry.env)
    ? Object.fromEntries(entry.env.map((e) => [e.name, e.value]))
    : (entry.env ?? {});
  const inputs: Inputs = { vars: setValues(entry.args ?? []), env: { ...shell, ...entryEnv }, server: cluster.server };
  const issued: string[] = [];
  const standIn = STAND_INS[set.name]!;
  const api = await start(standIn.handler(inputs, issued));
  const targets = standIn.targets(inputs);
  const proxy = await startConnectProxy(
    Object.fromEntries(targets.map((target) => [target.replace(/:\d+$/, ''), api.port])),
  );
  try {
    const result = await runExecEntry(entry, {
      plugin,
      paths: { [set.installedAt]: examplePath(set.provider, set.config), ...FILES },
      cluster: {
        server: cluster.server,
        ...(cluster.caData !== undefined ? { 'certificate-authority-data': cluster.caData } : {}),
      },
      callerEnv: { ...shell, ...TRUST_TEST_CA, HTTPS_PROXY: proxy.url, HOME: scratchHome() },
    });
    const secrets = Object.values(inputs.env).filter((value) => value.length >= 4);
    expect({ stderr: result.stderr, leaks: leaks(result, secrets) }).toEqual({ stderr: '', leaks: [] });
    const status = clientGoStatus(result, entry.apiVersion);
    // Every host in order (a host asked twice, as a step and the main request to Vault, may share a tunnel or not).
    expect([...new Set(proxy.connects)]).toEqual(targets);
    if (set.provider === 'pinniped') {
      expect({ cert: status.clientCertificateData, key: status.clientKeyData, token: status.token }).toEqual({
        cert: pki.client.cert,
        key: pki.client.key,
        token: undefined,
      });
    } else {
      expect(status.token).toBe(issued[0]);
    }
    expect(status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  } finally {
    await proxy.close();
  }
}

describe('the manifest sets', () => {
  it('cover every kubeconfig and Argo CD secret of examples/, each with a stand-in', () => {
    const onDisk = PROVIDERS.flatMap((provider) =>
      readdirSync(examplePath(provider))
        .filter((file) => /^(kubeconfig|argocd-cluster-secret).*\.yaml$/.test(file))
        .map((file) => `${provider}/${file}`),
    );
    const covered = MANIFEST_SETS.flatMap((set) =>
      [set.kubeconfig, set.argocd, set.argocd35].map((file) => `${set.provider}/${file}`),
    );
    expect(covered.sort()).toEqual(onDisk.sort());
    expect(Object.keys(STAND_INS).sort()).toEqual(MANIFEST_SETS.map((set) => set.name).sort());
  });
});

describe.concurrent.each(MANIFEST_SETS)('examples/$provider/$config', (set) => {
  const configOf = () => readYaml(set.provider, set.config);

  it(`${set.argocd} carries ${set.config} in --config-inline and gets a credential as Argo CD runs it`, async () => {
    const secret = readArgoCdSecret(set.provider, set.argocd);
    const exec = secret.execProviderConfig;
    expect({
      command: exec.command,
      first: exec.args[0],
      config: YAML.parse(exec.args[1]!),
      provideClusterInfo: exec.provideClusterInfo,
    }).toEqual({
      command: PLUGIN.argocd,
      first: '--config-inline',
      config: configOf(),
      provideClusterInfo: undefined,
    });
    await runAgainstStandIn(set, exec, PLUGIN.argocd, { server: secret.server }, {});
  });

  it(`${set.argocd35} carries ${set.config} in execProviderConfig.config and gets a credential through provideClusterInfo`, async () => {
    const secret = readArgoCdSecret(set.provider, set.argocd35);
    const exec = secret.execProviderConfig;
    expect({
      command: exec.command,
      config: exec.config,
      provideClusterInfo: exec.provideClusterInfo,
      configArgs: exec.args.filter((a) => a.startsWith('--config')),
    }).toEqual({
      command: PLUGIN.argocd,
      config: configOf(),
      provideClusterInfo: true,
      // The user entry must ask for the cluster entry's config.
      configArgs: ['--config-from-cluster'],
    });
    // The rest of the secret is the same as the one for every Argo CD version.
    const classic = readArgoCdSecret(set.provider, set.argocd);
    expect({
      ...secret,
      execProviderConfig: { ...exec, config: undefined, provideClusterInfo: undefined, args: undefined },
    }).toEqual({
      ...classic,
      execProviderConfig: { ...classic.execProviderConfig, args: undefined },
    });
    await runAgainstStandIn(
      set,
      exec,
      PLUGIN.argocd,
      { server: secret.server, ...(secret.tlsClientConfig?.caData ? { caData: secret.tlsClientConfig.caData } : {}) },
      {},
    );
  });

  it(`${set.kubeconfig} runs webapi-credential with ${set.config} and gets a credential as kubectl runs it`, async () => {
    const kubeconfig = readKubeconfig(readText(set.provider, set.kubeconfig));
    const exec = kubeconfig.exec;
    expect({
      command: exec.command,
      config: exec.args?.slice(0, 2),
      interactiveMode: exec.interactiveMode,
      apiVersion: exec.apiVersion,
    }).toEqual({
      command: PLUGIN.kubeconfig,
      config: ['--config', set.installedAt],
      interactiveMode: 'Never',
      apiVersion: 'client.authentication.k8s.io/v1',
    });
    await runAgainstStandIn(set, exec, PLUGIN.kubeconfig, { server: kubeconfig.server }, SHELL);
  });
});
