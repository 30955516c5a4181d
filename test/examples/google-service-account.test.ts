// examples/google-service-account against a stand-in of Google's token endpoint, reached by its real
// name through a proxy: it verifies the assertion's RS256 signature with the key's public half, the
// kid, iss, aud, iat/exp and refuses a jti it has seen. Two calls in a row sign two assertions.
import { describe, expect, it } from 'vitest';
import { CLOUD_PLATFORM, JWT_BEARER, USERINFO_EMAIL, googleOAuth, serviceAccountKey } from '../helpers/google-apis.js';
import { decodeJws } from '../helpers/signed-jwt.js';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  pemSecrets,
  realHosts,
  run,
  scratchFile,
  standIns,
  V1BETA1,
} from '../helpers/examples.js';

const CONFIG = examplePath('google-service-account', 'config.yaml');
const CLIENT_EMAIL = 'argocd-deployer@acme-prod.iam.gserviceaccount.com';
const start = standIns();
const route = realHosts();

/** A service-account key file, and what must never show: its private key. */
function keyFile(overrides: Record<string, string> = {}) {
  const { fields: key, publicKey } = serviceAccountKey(CLIENT_EMAIL, overrides);
  return {
    path: scratchFile('sa-key.json', JSON.stringify(key, null, 2)),
    key,
    publicKey,
    secrets: pemSecrets(key.private_key),
  };
}

/** Google's token endpoint knowing the key `key` (its public half under its id). */
async function google(key = keyFile()) {
  const issued: string[] = [];
  const api = await start(
    googleOAuth({ clientEmail: CLIENT_EMAIL, keys: { [key.key.private_key_id]: key.publicKey } }, issued),
  );
  const env = { GOOGLE_APPLICATION_CREDENTIALS: key.path, ...(await route({ 'oauth2.googleapis.com': api })) };
  const assertions = () => api.requests.map((r) => new URLSearchParams(r.body).get('assertion') ?? '').filter(Boolean);
  return { api, issued, env, key, assertions };
}

describe.concurrent('examples/google-service-account', () => {
  it('config.yaml signs a fresh assertion with the key on every call and gets an access token, twice in a row', async () => {
    const { api, issued, env, key, assertions } = await google();
    const window = { before: Date.now(), after: 0 };
    const first = await run(['--config', CONFIG], env);
    const second = await run(['--config', CONFIG], env);
    window.after = Date.now();
    for (const [i, result] of [first, second].entries()) {
      expectQuietSuccess(result, [...key.secrets, ...assertions()]);
      const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
      expect({ apiVersion: credential.apiVersion, token: credential.status['token'] }).toEqual({
        apiVersion: V1BETA1,
        token: issued[i],
      });
      expectExpiresIn(credential.status['expirationTimestamp'], window, 3599);
    }
    expect(api.requests.map((r) => [r.method, r.headers.host, r.path, r.headers['content-type']])).toEqual([
      ['POST', 'oauth2.googleapis.com', '/token', 'application/x-www-form-urlencoded'],
      ['POST', 'oauth2.googleapis.com', '/token', 'application/x-www-form-urlencoded'],
    ]);
    const [a, b] = assertions().map((assertion) => decodeJws(assertion)!);
    expect(Object.keys(Object.fromEntries(new URLSearchParams(api.requests[0]!.body)))).toEqual([
      'grant_type',
      'assertion',
    ]);
    expect(new URLSearchParams(api.requests[0]!.body).get('grant_type')).toBe(JWT_BEARER);
    expect(a!.header).toEqual({ alg: 'RS256', typ: 'JWT', kid: key.key.private_key_id });
    expect(a!.claims).toEqual({
      iss: CLIENT_EMAIL,
      aud: 'https://oauth2.googleapis.com/token',
      scope: `${CLOUD_PLATFORM} ${USERINFO_EMAIL}`,
      iat: expect.any(Number),
      exp: (a!.claims['iat'] as number) + 300,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(b!.claims['jti']).not.toBe(a!.claims['jti']);
  });

  it('--set scope asks for other scopes', async () => {
    const { env, assertions } = await google();
    const result = await run(['--config', CONFIG, '--set', `scope=${CLOUD_PLATFORM}`], env);
    expect(result.code).toBe(0);
    expect(decodeJws(assertions()[0]!)!.claims['scope']).toBe(CLOUD_PLATFORM);
  });

  it.each<[string, (known: ReturnType<typeof keyFile>) => { path: string; secrets: string[] }, string]>([
    // The same key id with another key behind it: a key file that is not the one Google holds.
    [
      'a key Google does not hold under that id',
      (known) => keyFile({ private_key_id: known.key.private_key_id }),
      'Invalid JWT Signature.',
    ],
    ['a deleted key (an id Google does not know)', () => keyFile(), 'Invalid JWT Signature.'],
    [
      'another service account',
      (known) =>
        keyFile({
          private_key_id: known.key.private_key_id,
          client_email: 'intruder@acme-prod.iam.gserviceaccount.com',
        }),
      'Invalid grant: account not found',
    ],
    [
      'an old key file whose token_uri is not the token endpoint',
      (known) => ({
        path: scratchFile(
          'sa-key.json',
          JSON.stringify({ ...known.key, token_uri: 'https://accounts.google.com/o/oauth2/token' }),
        ),
        secrets: known.secrets,
      }),
      'Invalid JWT: Failed audience check.',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer, nothing of the key shown', async (_what, other, description) => {
    const known = keyFile();
    const { env, assertions } = await google(known);
    const file = other(known);
    const result = await run(['--config', CONFIG], { ...env, GOOGLE_APPLICATION_CREDENTIALS: file.path });
    const answer = JSON.stringify({ error: 'invalid_grant', error_description: description });
    expectFailure(result, 3, `the token API answered 400 Bad Request: ${answer}`, [
      ...known.secrets,
      ...file.secrets,
      ...assertions(),
    ]);
  });

  it.each<[string, string, string]>([
    [
      'an assertion that lives two hours',
      'exp: now() + 7200',
      'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    ],
    [
      'an expired assertion',
      'iat: 1700000000, exp: 1700000300',
      'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
    ],
  ])('the stand-in refuses %s', async (_what, claims, description) => {
    const { env, key, assertions } = await google();
    const config = mutated('google-service-account', (c) => {
      const form = c['form'] as Record<string, string>;
      form['assertion'] = form['assertion']!.replace(
        'jwt({ iss: sa.client_email,',
        `jwt({ ${claims}, iss: sa.client_email,`,
      );
    });
    const result = await run(['--config-inline', config], env);
    expectFailure(
      result,
      3,
      `the token API answered 400 Bad Request: {"error":"invalid_grant","error_description":${JSON.stringify(description)}}`,
      [...key.secrets, ...assertions()],
    );
  });

  it('the stand-in refuses a replayed jti: an assertion with a fixed jti works once', async () => {
    const { env, key, assertions } = await google();
    const config = mutated('google-service-account', (c) => {
      const form = c['form'] as Record<string, string>;
      form['assertion'] = form['assertion']!.replace(
        'jwt({ iss: sa.client_email,',
        'jwt({ jti: "pre-signed-1", iss: sa.client_email,',
      );
    });
    const first = await run(['--config-inline', config], env);
    expectQuietSuccess(first, [...key.secrets, ...assertions()]);
    const second = await run(['--config-inline', config], env);
    expectFailure(
      second,
      3,
      'the token API answered 400 Bad Request: {"error":"invalid_grant","error_description":"Invalid JWT: this jti was used before."}',
      [...key.secrets, ...assertions()],
    );
  });

  it('a key file without a usable private key is a config error naming jwt(), never showing the key; nothing is sent', async () => {
    const { api, env } = await google();
    const broken =
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDbrokenbrokenbroken\n-----END PRIVATE KEY-----\n';
    const path = scratchFile('sa-key.json', JSON.stringify({ ...keyFile().key, private_key: broken }));
    const result = await run(['--config', CONFIG], { ...env, GOOGLE_APPLICATION_CREDENTIALS: path });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^webapi-credential: webAPIProviderConfig\.form\.assertion: .*jwt\(\): the key is not a PEM private key \(PKCS#8, PKCS#1 or SEC1\) or a private JWK\n$/,
    );
    expect(result.stderr).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDbrokenbrokenbroken');
    expect(api.requests).toHaveLength(0);
  });

  it('without GOOGLE_APPLICATION_CREDENTIALS: exit 2 saying so, nothing sent', async () => {
    const { api, env } = await google();
    const result = await run(['--config', CONFIG], { HTTPS_PROXY: env.HTTPS_PROXY });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toContain('env.GOOGLE_APPLICATION_CREDENTIALS is not set');
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(api.requests).toHaveLength(0);
  });

  it('render shows the request without the key or the assertion, sending nothing', async () => {
    const { api, env, key } = await google();
    const result = await run(['render', '--config', CONFIG], env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toContain(
      'grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=[REDACTED]\n',
    );
    for (const secret of key.secrets) expect(result.stdout).not.toContain(secret);
    expect(api.requests).toHaveLength(0);
  });
});
