// examples/google-workload-identity against stand-ins of Google's Security Token Service and IAM
// Credentials, reached by their real names through a proxy: the STS verifies the projected token's
// signature with the cluster issuer's key, its issuer, audience and expiry; generateAccessToken
// takes only a token the STS issued, for a principal allowed to impersonate the service account.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CLOUD_PLATFORM,
  USERINFO_EMAIL,
  defaultAudience,
  googleWorkloadIdentity,
  providerName,
  type WorkloadIdentityProvider,
} from '../helpers/google-apis.js';
import { ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE, TOKEN_EXCHANGE } from '../helpers/provider-apis.js';
import { nowSeconds, signServiceAccountToken } from '../helpers/signed-jwt.js';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  realHosts,
  run,
  scratchFile,
  standIns,
  V1BETA1,
} from '../helpers/examples.js';

const CONFIG = examplePath('google-workload-identity', 'config.yaml');
const SERVICE_ACCOUNT = 'argocd-deployer@acme-prod.iam.gserviceaccount.com';
const SUBJECT = 'system:serviceaccount:argocd:argocd-application-controller';
const cluster = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PROVIDER: WorkloadIdentityProvider = {
  projectNumber: '123456789012',
  pool: 'argocd',
  provider: 'prod-cluster',
  issuer: 'https://oidc.prod.example.com',
  issuerKey: cluster.publicKey,
};
const start = standIns();
const route = realHosts();

/** A projected service-account token, as the cluster signs it for the pool's default audience. */
function projectedToken(overrides: Record<string, unknown> = {}, key = cluster.privateKey): string {
  const now = nowSeconds();
  const claims = {
    aud: [defaultAudience(PROVIDER)],
    exp: now + 3600,
    iat: now,
    nbf: now,
    iss: PROVIDER.issuer,
    sub: SUBJECT,
    ...overrides,
  };
  return signServiceAccountToken(claims, key, 'cluster-key-1');
}

async function google(token = projectedToken()) {
  const issued: string[] = [];
  const federated: string[] = [];
  const api = await start(
    googleWorkloadIdentity({ ...PROVIDER, subject: SUBJECT, serviceAccount: SERVICE_ACCOUNT }, issued, federated),
  );
  const proxy = await route({ 'sts.googleapis.com': api, 'iamcredentials.googleapis.com': api });
  const sets = (values: Record<string, string> = {}) =>
    Object.entries({
      projectNumber: PROVIDER.projectNumber,
      poolId: PROVIDER.pool,
      providerId: PROVIDER.provider,
      serviceAccount: SERVICE_ACCOUNT,
      subjectTokenFile: scratchFile('token', `${token}\n`),
      ...values,
    }).flatMap(([key, value]) => ['--set', `${key}=${value}`]);
  return { api, issued, federated, env: proxy, sets, secrets: () => [token, ...federated] };
}

describe.concurrent('examples/google-workload-identity', () => {
  it('config.yaml trades the projected token at the STS, then gets an access token of the service account with the STS token, twice in a row', async () => {
    const { api, issued, federated, env, sets, secrets } = await google();
    const window = { before: Date.now(), after: 0 };
    const first = await run(['--config', CONFIG, ...sets()], env);
    const second = await run(['--config', CONFIG, ...sets()], env);
    window.after = Date.now();
    for (const [i, result] of [first, second].entries()) {
      expectQuietSuccess(result, secrets());
      const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
      expect({ apiVersion: credential.apiVersion, token: credential.status['token'] }).toEqual({
        apiVersion: V1BETA1,
        token: issued[i],
      });
      expectExpiresIn(credential.status['expirationTimestamp'], window, 3600);
    }
    const generate = `/v1/projects/-/serviceAccounts/${SERVICE_ACCOUNT}:generateAccessToken`;
    expect(
      api.requests.map((r) => [r.method, r.headers.host, r.path, r.headers['content-type'], r.headers.authorization]),
    ).toEqual([
      ['POST', 'sts.googleapis.com', '/v1/token', 'application/x-www-form-urlencoded', undefined],
      ['POST', 'iamcredentials.googleapis.com', generate, 'application/json', `Bearer ${federated[0]}`],
      ['POST', 'sts.googleapis.com', '/v1/token', 'application/x-www-form-urlencoded', undefined],
      ['POST', 'iamcredentials.googleapis.com', generate, 'application/json', `Bearer ${federated[1]}`],
    ]);
    expect(Object.fromEntries(new URLSearchParams(api.requests[0]!.body))).toEqual({
      grant_type: TOKEN_EXCHANGE,
      audience: providerName(PROVIDER),
      scope: CLOUD_PLATFORM,
      requested_token_type: ACCESS_TOKEN_TYPE,
      subject_token_type: JWT_TOKEN_TYPE,
      subject_token: expect.stringMatching(/^eyJ/),
    });
    expect(JSON.parse(api.requests[1]!.body)).toEqual({ scope: [CLOUD_PLATFORM, USERINFO_EMAIL], lifetime: '3600s' });
  });

  it.each<[string, string, string]>([
    [
      'a token another key signed',
      projectedToken({}, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      "The ID Token signature could not be verified with the provider's keys.",
    ],
    [
      'a token of another issuer',
      projectedToken({ iss: 'https://kubernetes.default.svc.cluster.local' }),
      'The issuer in ID Token does not match the expected ones.',
    ],
    [
      "a token for the API server's audience",
      projectedToken({ aud: ['https://kubernetes.default.svc.cluster.local'] }),
      'The audience in ID Token does not match the expected audience.',
    ],
    ['an expired token', projectedToken({ exp: nowSeconds() - 60 }), 'ID Token expired.'],
  ])('the STS refuses %s: the step fails, named, exit 3; IAM is never asked', async (_what, token, description) => {
    const { api, env, sets, secrets } = await google(token);
    const result = await run(['--config', CONFIG, ...sets()], env);
    expectFailure(
      result,
      3,
      `steps.sts: the token API answered 400 Bad Request: ${JSON.stringify({ error: 'invalid_grant', error_description: description })}`,
      secrets(),
    );
    expect(api.requests.map((r) => r.headers.host)).toEqual(['sts.googleapis.com']);
  });

  it('the STS refuses a provider the pool does not have', async () => {
    const { env, sets, secrets } = await google();
    const result = await run(['--config', CONFIG, ...sets({ providerId: 'staging-cluster' })], env);
    const description =
      'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.';
    // The plugin shows the first 200 characters of an answer's error fields.
    const answer = JSON.stringify({ error: 'invalid_target', error_description: description });
    expectFailure(result, 3, `steps.sts: the token API answered 400 Bad Request: ${answer.slice(0, 200)}…`, secrets());
  });

  it('IAM refuses a service account the pod may not impersonate, with its error', async () => {
    const { env, sets, secrets } = await google();
    const result = await run(
      ['--config', CONFIG, ...sets({ serviceAccount: 'owner@acme-prod.iam.gserviceaccount.com' })],
      env,
    );
    const error = {
      code: 403,
      message: "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
      status: 'PERMISSION_DENIED',
    };
    expectFailure(
      result,
      3,
      `the token API answered 403 Forbidden: ${JSON.stringify({ error })}; check steps.sts and vars.lifetime`,
      secrets(),
    );
  });

  it('IAM takes only a token the STS issued: the projected token itself is refused', async () => {
    const { env, sets, secrets } = await google();
    const config = mutated('google-workload-identity', (c) => {
      c['headers'] = { Authorization: '{{ "Bearer " + file(vars.subjectTokenFile) }}' };
    });
    const result = await run(['--config-inline', config, ...sets()], env);
    const error = {
      code: 401,
      message:
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      status: 'UNAUTHENTICATED',
    };
    expectFailure(
      result,
      3,
      `the token API answered 401 Unauthorized: ${JSON.stringify({ error })}; check vars.lifetime and vars.subjectTokenFile`,
      secrets(),
    );
  });

  it('IAM refuses a lifetime over an hour', async () => {
    const { env, sets, secrets } = await google();
    const result = await run(['--config', CONFIG, ...sets({ lifetime: '7200s' })], env);
    const error = { code: 400, message: 'The lifetime must be between 1s and 3600s.', status: 'INVALID_ARGUMENT' };
    expectFailure(result, 3, `the token API answered 400 Bad Request: ${JSON.stringify({ error })}`, secrets());
  });

  it('render prints both requests, the STS token as a placeholder, sending nothing', async () => {
    const { api, env, sets, secrets } = await google();
    const result = await run(['render', '--config', CONFIG, ...sets()], env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toMatch(/^# steps\.sts\nPOST https:\/\/sts\.googleapis\.com\/v1\/token\n/);
    expect(result.stdout).toContain('&subject_token=[REDACTED]\n');
    expect(result.stdout).toContain(
      `\n# webAPIProviderConfig\nPOST https://iamcredentials.googleapis.com/v1/projects/-/serviceAccounts/${SERVICE_ACCOUNT}:generateAccessToken\n`,
    );
    expect(result.stdout).toContain('\nAuthorization: Bearer [steps.sts.access_token]\n');
    for (const secret of secrets()) expect(result.stdout).not.toContain(secret);
    expect(api.requests).toHaveLength(0);
  });
});
