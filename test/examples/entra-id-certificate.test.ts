// examples/entra-id-certificate against a stand-in of Entra ID's v2.0 token endpoint, reached by its
// real name through a proxy, with the application's certificate uploaded: it finds the certificate by
// the assertion's x5t#S256 (or x5t), verifies the PS256 (or RS256) signature with its key, checks
// iss/sub, aud, nbf/exp and refuses a jti it has seen. Two calls in a row sign two assertions.
import { createHash, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLIENT_ASSERTION_TYPE } from '../helpers/client-assertions.js';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  pemSecrets,
  realHosts,
  run,
  standIns,
  V1,
} from '../helpers/examples.js';
import { selfSignedRsa } from '../helpers/pki.js';
import { AKS_SCOPE, azureAd } from '../helpers/provider-apis.js';
import { decodeJws } from '../helpers/signed-jwt.js';

const CONFIG = examplePath('entra-id-certificate', 'config.yaml');
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT_ID = '0f9d5c1e-2b3a-4c4d-8e5f-6a7b8c9d0e1f';
const TOKEN_URL = `https://login.microsoftonline.com/${TENANT}/oauth2/v2.0/token`;
const start = standIns();
const route = realHosts();

const uploaded = selfSignedRsa('argocd-aks');
const notUploaded = selfSignedRsa('argocd-aks-other');

async function entraId() {
  const issued: string[] = [];
  const api = await start(azureAd({ tenant: TENANT, clientId: CLIENT_ID, certificate: uploaded.cert }, issued));
  const env = await route({ 'login.microsoftonline.com': api });
  const sets = (files: { keyFile?: string; certFile?: string } = {}) => [
    '--set',
    `tenantId=${TENANT}`,
    '--set',
    `clientId=${CLIENT_ID}`,
    '--set',
    `keyFile=${files.keyFile ?? uploaded.keyFile}`,
    '--set',
    `certFile=${files.certFile ?? uploaded.certFile}`,
  ];
  const assertions = () =>
    api.requests.map((r) => new URLSearchParams(r.body).get('client_assertion') ?? '').filter(Boolean);
  return {
    api,
    issued,
    env,
    sets,
    assertions,
    secrets: () => [...pemSecrets(uploaded.key, notUploaded.key), ...assertions()],
  };
}

/** The config with the client_assertion template changed by `edit`. */
const withAssertion = (edit: (template: string) => string) =>
  mutated('entra-id-certificate', (c) => {
    const form = c['form'] as Record<string, string>;
    form['client_assertion'] = edit(form['client_assertion']!);
  });

const refused = (status: string, error: string, description: string) =>
  `the token API answered ${status}: ${JSON.stringify({ error, error_description: description })}`;

describe.concurrent('examples/entra-id-certificate', () => {
  it('config.yaml signs a fresh PS256 assertion naming the certificate by x5t#S256 and gets a token for AKS, twice in a row', async () => {
    const { api, issued, env, sets, assertions, secrets } = await entraId();
    const window = { before: Date.now(), after: 0 };
    const info = JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    const first = await run(['--config', CONFIG, ...sets()], { ...env, KUBERNETES_EXEC_INFO: info });
    const second = await run(['--config', CONFIG, ...sets()], { ...env, KUBERNETES_EXEC_INFO: info });
    window.after = Date.now();
    for (const [i, result] of [first, second].entries()) {
      expectQuietSuccess(result, secrets());
      const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
      expect({ apiVersion: credential.apiVersion, token: credential.status['token'] }).toEqual({
        apiVersion: V1,
        token: issued[i],
      });
      expectExpiresIn(credential.status['expirationTimestamp'], window, 3599);
    }
    expect(api.requests.map((r) => [r.method, r.headers.host, r.path, r.headers['content-type']])).toEqual([
      ['POST', 'login.microsoftonline.com', `/${TENANT}/oauth2/v2.0/token`, 'application/x-www-form-urlencoded'],
      ['POST', 'login.microsoftonline.com', `/${TENANT}/oauth2/v2.0/token`, 'application/x-www-form-urlencoded'],
    ]);
    expect(Object.fromEntries(new URLSearchParams(api.requests[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      scope: AKS_SCOPE,
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: assertions()[0],
    });
    const [a, b] = assertions().map((assertion) => decodeJws(assertion)!);
    const thumbprint = createHash('sha256').update(new X509Certificate(uploaded.cert).raw).digest('base64url');
    expect(a!.header).toEqual({ alg: 'PS256', typ: 'JWT', 'x5t#S256': thumbprint });
    const iat = a!.claims['iat'] as number;
    expect(a!.claims).toEqual({
      iss: CLIENT_ID,
      sub: CLIENT_ID,
      aud: TOKEN_URL,
      nbf: expect.any(Number),
      iat,
      exp: iat + 300,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    // now() and jwt()'s iat read the clock apart: the same second, or the next.
    expect(iat - (a!.claims['nbf'] as number)).toBeOneOf([0, 1]);
    expect(b!.claims['jti']).not.toBe(a!.claims['jti']);
  });

  it('the classic form, RS256 with the SHA-1 thumbprint in x5t, is accepted too', async () => {
    const { env, sets, assertions, secrets } = await entraId();
    const config = withAssertion((t) => t.replace('{ alg: "PS256", typ: "JWT", "x5t#S256":', '{ typ: "JWT", x5t:'));
    const result = await run(['--config-inline', config, ...sets()], env);
    expectQuietSuccess(result, secrets());
    expect(decodeJws(assertions()[0]!)!.header).toEqual({
      alg: 'RS256',
      typ: 'JWT',
      x5t: createHash('sha1').update(new X509Certificate(uploaded.cert).raw).digest('base64url'),
    });
  });

  it.each<[string, { keyFile?: string; certFile?: string }, string]>([
    [
      'a certificate the application does not have',
      { keyFile: notUploaded.keyFile, certFile: notUploaded.certFile },
      'AADSTS700027: Client assertion contains an invalid signature. [Reason - The key was not found.]',
    ],
    [
      "the uploaded certificate's thumbprint on an assertion another key signed",
      { keyFile: notUploaded.keyFile },
      'AADSTS700027: Client assertion contains an invalid signature. [Reason - The signature does not verify.]',
    ],
  ])('the stand-in refuses %s: exit 3, 401 invalid_client', async (_what, files, description) => {
    const { env, sets, secrets } = await entraId();
    const result = await run(['--config', CONFIG, ...sets(files)], env);
    expectFailure(
      result,
      3,
      `${refused('401 Unauthorized', 'invalid_client', description)}; check vars.authorityHost, vars.certFile, vars.clientId, vars.keyFile and vars.tenantId`,
      secrets(),
    );
  });

  it.each<[string, (template: string) => string, string]>([
    [
      'an assertion issued by another application',
      (t) => t.replace('iss: vars.clientId,', 'iss: "11111111-1111-1111-1111-111111111111",'),
      "AADSTS700021: Client assertion application identifier doesn't match 'client_id' parameter.",
    ],
    [
      'an assertion for another audience',
      (t) => t.replace('aud: tokenUrl,', 'aud: "https://login.microsoftonline.com/common/oauth2/v2.0/token",'),
      'AADSTS700023: Client assertion audience claim does not match Realm issuer.',
    ],
    [
      'an expired assertion',
      (t) => t.replace('nbf: now() }', 'nbf: 1700000000, iat: 1700000000, exp: 1700000300 }'),
      'AADSTS700024: Client assertion is not within its valid time range.',
    ],
  ])('the stand-in refuses %s: exit 3, 400 invalid_client', async (_what, edit, description) => {
    const { env, sets, secrets } = await entraId();
    const result = await run(['--config-inline', withAssertion(edit), ...sets()], env);
    expectFailure(result, 3, refused('400 Bad Request', 'invalid_client', description), secrets());
  });

  it('the stand-in refuses a replayed jti: an assertion with a fixed jti works once', async () => {
    const { env, sets, secrets } = await entraId();
    const config = withAssertion((t) => t.replace('nbf: now() }', 'nbf: now(), jti: "pre-signed-1" }'));
    expectQuietSuccess(await run(['--config-inline', config, ...sets()], env), secrets());
    const second = await run(['--config-inline', config, ...sets()], env);
    expectFailure(
      second,
      3,
      refused('400 Bad Request', 'invalid_client', 'Client assertion was used before: its jti is not new.'),
      secrets(),
    );
  });

  it('a certificate file that is no certificate is a config error naming jwt(), not showing the file; nothing is sent', async () => {
    const { api, env, sets, secrets } = await entraId();
    const result = await run(['--config', CONFIG, ...sets({ certFile: uploaded.keyFile })], env);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^webapi-credential: webAPIProviderConfig\.form\.client_assertion: .*jwt\(\): options\["x5t#S256"\] is not a PEM certificate\n$/,
    );
    for (const secret of secrets()) expect(result.stderr).not.toContain(secret);
    expect(api.requests).toHaveLength(0);
  });
});
