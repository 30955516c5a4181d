// examples/vault against a stand-in of Vault's Kubernetes secrets engine: a service-account token
// valid for the lease; a request of another shape is refused.
import { describe, expect, it } from 'vitest';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  run,
  standIns,
  V1BETA1,
} from '../helpers/examples.js';
import { vault, vaultWithKubernetesAuth } from '../helpers/provider-apis.js';
import { generateKeyPairSync } from 'node:crypto';
import { signServiceAccountToken } from '../helpers/signed-jwt.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const VAULT_TOKEN = 'hvs.CAESIJ-vault-token-x7Qe';
const start = standIns();

async function vaultApi() {
  const issued: string[] = [];
  const api = await start(
    vault({ mount: 'kubernetes', role: 'argocd', namespace: 'apps', token: VAULT_TOKEN }, issued),
  );
  return {
    api,
    issued,
    env: { VAULT_TOKEN },
    sets: (role = 'argocd', namespace = 'apps') => [
      '--set',
      `vaultAddr=${api.url}`,
      '--set',
      `role=${role}`,
      '--set',
      `namespace=${namespace}`,
    ],
  };
}

describe.concurrent('examples/vault', () => {
  it('config.yaml gets data.service_account_token, expiring with the lease', async () => {
    const { api, issued, env, sets } = await vaultApi();
    const window = { before: Date.now(), after: 0 };
    const result = await run(['--config', examplePath('vault', 'config.yaml'), ...sets()], env);
    window.after = Date.now();
    expectQuietSuccess(result, [VAULT_TOKEN]);
    const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
    expect({ apiVersion: credential.apiVersion, token: credential.status['token'] }).toEqual({
      apiVersion: V1BETA1,
      token: issued[0],
    });
    expectExpiresIn(credential.status['expirationTimestamp'], window, 3600);
    const request = api.requests[0]!;
    expect({
      method: request.method,
      path: request.path,
      type: request.headers['content-type'],
      vaultToken: request.headers['x-vault-token'],
    }).toEqual({
      method: 'POST',
      path: '/v1/kubernetes/creds/argocd',
      type: 'application/json',
      vaultToken: VAULT_TOKEN,
    });
    expect(JSON.parse(request.body)).toEqual({ kubernetes_namespace: 'apps', ttl: '1h' });
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['json']),
      '405 Method Not Allowed: {"errors":["unsupported operation"]}',
    ],
    [
      'a form body',
      (c) => ((c['form'] = c['json']), delete c['json']),
      '400 Bad Request: {"errors":["failed to parse JSON input"]}',
    ],
    [
      'no kubernetes_namespace',
      (c) => (c['json'] = { ttl: '1h' }),
      `400 Bad Request: {"errors":["'kubernetes_namespace' is required"]}`,
    ],
    [
      'the token as a bearer token',
      (c) => (c['headers'] = { Authorization: 'Bearer {{ env.VAULT_TOKEN }}' }),
      '403 Forbidden: {"errors":["permission denied"]}; check env.VAULT_TOKEN, vars.namespace and vars.ttl',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { env, sets } = await vaultApi();
    const result = await run(['--config-inline', mutated('vault', mutate), ...sets()], env);
    expectFailure(result, 3, `the token API answered ${answer}`, [VAULT_TOKEN]);
  });

  it('the stand-in refuses another mount, role and namespace, and the Vault token appears nowhere', async () => {
    const { env, sets } = await vaultApi();
    const config = examplePath('vault', 'config.yaml');
    const mount = await run(['--config', config, ...sets(), '--set', 'mount=k8s'], env);
    expectFailure(
      mount,
      3,
      'the token API answered 404 Not Found: {"errors":["no handler for route \\"k8s/creds/argocd\\""]}',
      [VAULT_TOKEN],
    );
    const role = await run(['--config', config, ...sets('admin')], env);
    expectFailure(role, 3, `the token API answered 400 Bad Request: {"errors":["role 'admin' does not exist"]}`, [
      VAULT_TOKEN,
    ]);
    const namespace = await run(['--config', config, ...sets('argocd', 'kube-system')], env);
    expectFailure(
      namespace,
      3,
      `the token API answered 403 Forbidden: {"errors":["kubernetes_namespace 'kube-system' is not allowed by role"]}; check env.VAULT_TOKEN, vars.namespace and vars.ttl`,
      [VAULT_TOKEN],
    );
  });
});

describe('examples/vault/config-kubernetes-auth.yaml', () => {
  // The cluster's service-account issuer, and a projected token it signed for argocd/argocd-server.
  const issuer = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const saToken = (sub: string, key = issuer.privateKey) =>
    signServiceAccountToken(
      { iss: 'https://kubernetes.default.svc', sub, exp: Math.floor(Date.now() / 1000) + 3600 },
      key,
    );
  const tokenFile = (token: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'webapi-credential-sa-')), 'token');
    writeFileSync(path, `${token}\n`);
    return path;
  };
  const login = async () => {
    const issued: string[] = [];
    const api = await start(
      vaultWithKubernetesAuth(
        {
          mount: 'kubernetes',
          role: 'argocd',
          namespace: 'apps',
          serviceAccount: 'argocd-server',
          issuerKey: issuer.publicKey,
        },
        issued,
      ),
    );
    return {
      api,
      issued,
      sets: (file: string) => [
        '--set',
        `vaultAddr=${api.url}`,
        '--set',
        'role=argocd',
        '--set',
        'namespace=apps',
        '--set',
        `tokenFile=${file}`,
      ],
    };
  };

  it('logs in with the service-account token, then gets a token from the secrets engine with the client token', async () => {
    const { api, issued, sets } = await login();
    const sa = saToken('system:serviceaccount:apps:argocd-server');
    const result = await run(
      ['--config', examplePath('vault', 'config-kubernetes-auth.yaml'), ...sets(tokenFile(sa))],
      {},
    );
    expectQuietSuccess(result, [sa]);
    expect((JSON.parse(result.stdout) as { status: { token: string } }).status.token).toBe(issued[0]);
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/auth/kubernetes/login', '/v1/kubernetes/creds/argocd']);
  });

  it('fails at the login step, named, for a token the cluster did not sign; the secrets engine is never asked', async () => {
    const { api, sets } = await login();
    const forged = saToken(
      'system:serviceaccount:apps:argocd-server',
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
    );
    const result = await run(
      ['--config', examplePath('vault', 'config-kubernetes-auth.yaml'), ...sets(tokenFile(forged))],
      {},
    );
    expectFailure(
      result,
      3,
      'steps.login: the token API answered 403 Forbidden: {"errors":["permission denied"]}; check vars.role and vars.tokenFile',
      [forged],
    );
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/auth/kubernetes/login']);
  });
});
