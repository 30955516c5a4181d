// examples/keycloak, every config, against a Keycloak stand-in: a client_credentials token with
// HTTP Basic and with form client authentication, and with a client assertion signed by the client's
// key (private_key_jwt), which the stand-in verifies with the client's registered JWK, with aud, exp
// and a jti it has not seen; a request of another shape is refused.
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_ASSERTION_TYPE } from '../helpers/client-assertions.js';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  pemSecrets,
  run,
  scratchFile,
  standIns,
  V1BETA1,
} from '../helpers/examples.js';
import { keycloak } from '../helpers/provider-apis.js';
import { decodeJws } from '../helpers/signed-jwt.js';

// Characters that Basic and form encoding treat differently.
const SECRET = 'kc-secret-Zq8!&=+ x/%';
const REALM = 'platform';
const CLIENT_ID = 'argocd';
const start = standIns();

async function keycloakApi() {
  const issued: string[] = [];
  const api = await start(keycloak({ realm: REALM, clientId: CLIENT_ID, clientSecret: SECRET }, issued));
  const sets = (realm = REALM) => ['--set', `issuer=${api.url}/realms/${realm}`, '--set', `clientId=${CLIENT_ID}`];
  return { api, issued, sets };
}

describe.concurrent('examples/keycloak', () => {
  it.each([
    // RFC 6749 §2.3.1: both parts form-encoded, then base64.
    [
      'config.yaml',
      'HTTP Basic',
      `Basic ${Buffer.from(`${CLIENT_ID}:${new URLSearchParams({ s: SECRET }).toString().slice(2)}`).toString('base64')}`,
      { grant_type: 'client_credentials' },
    ],
    [
      'config-client-secret-post.yaml',
      'the form',
      undefined,
      { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: SECRET },
    ],
  ])(
    '%s gets a client_credentials token, the client authenticating with %s',
    async (file, _how, authorization, form) => {
      const { api, issued, sets } = await keycloakApi();
      const window = { before: Date.now(), after: 0 };
      const result = await run(['--config', examplePath('keycloak', file), ...sets()], { CLIENT_SECRET: SECRET });
      window.after = Date.now();
      expectQuietSuccess(result, [SECRET]);
      const credential = JSON.parse(result.stdout) as {
        apiVersion: string;
        kind: string;
        status: Record<string, string>;
      };
      expect({ apiVersion: credential.apiVersion, kind: credential.kind, token: credential.status['token'] }).toEqual({
        apiVersion: V1BETA1,
        kind: 'ExecCredential',
        token: issued[0],
      });
      expectExpiresIn(credential.status['expirationTimestamp'], window, 300);
      const [request] = api.requests;
      expect({
        method: request?.method,
        path: request?.path,
        authorization: request?.headers.authorization,
        type: request?.headers['content-type'],
      }).toEqual({
        method: 'POST',
        path: `/realms/${REALM}/protocol/openid-connect/token`,
        authorization,
        type: 'application/x-www-form-urlencoded',
      });
      expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual(form);
    },
  );

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['form']),
      '405 Method Not Allowed: {"error":"HTTP 405 Method Not Allowed"}',
    ],
    [
      'a JSON body',
      (c) => ((c['json'] = c['form']), delete c['form']),
      '415 Unsupported Media Type: {"error":"Cannot consume content type"}',
    ],
    [
      'the password grant',
      (c) => (c['form'] = { grant_type: 'password' }),
      '400 Bad Request: {"error":"unsupported_grant_type","error_description":"Unsupported grant_type"}',
    ],
    [
      'no client authentication',
      (c) => delete c['headers'],
      '401 Unauthorized: {"error":"unauthorized_client","error_description":"Invalid client or Invalid client credentials"}',
    ],
    [
      'both client authentication methods',
      (c) =>
        (c['form'] = {
          grant_type: 'client_credentials',
          client_id: '{{ vars.clientId }}',
          client_secret: '{{ env.CLIENT_SECRET }}',
        }),
      '400 Bad Request: {"error":"invalid_request","error_description":"Multiple client authentication methods"}',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { api, sets } = await keycloakApi();
    const result = await run(['--config-inline', mutated('keycloak', mutate), ...sets()], { CLIENT_SECRET: SECRET });
    expectFailure(result, 3, `the token API answered ${answer}`, [SECRET]);
    expect(api.requests).toHaveLength(1);
  });

  it('the stand-in refuses another realm and a wrong secret, and the secret appears nowhere', async () => {
    const { sets } = await keycloakApi();
    const realm = await run(['--config', examplePath('keycloak', 'config.yaml'), ...sets('other')], {
      CLIENT_SECRET: SECRET,
    });
    expectFailure(realm, 3, 'the token API answered 404 Not Found: {"error":"Realm does not exist"}', [SECRET]);
    const wrong = `${SECRET}-rotated`;
    const secret = await run(['--config', examplePath('keycloak', 'config-client-secret-post.yaml'), ...sets()], {
      CLIENT_SECRET: wrong,
    });
    expectFailure(
      secret,
      3,
      'the token API answered 401 Unauthorized: {"error":"unauthorized_client","error_description":"Invalid client or Invalid client credentials"}; check env.CLIENT_SECRET and vars.clientId',
      [wrong, SECRET],
    );
  });
});

describe.concurrent('examples/keycloak/config-private-key-jwt.yaml', () => {
  // The client's key pair (EC P-256, SEC1 PEM as openssl ecparam writes it); Keycloak holds the public half.
  const client = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = (key: KeyObject) => key.export({ type: 'sec1', format: 'pem' }).toString();
  const KEY_FILE = scratchFile('client.key', pem(client.privateKey));
  const OTHER_KEY_FILE = scratchFile('other.key', pem(other.privateKey));
  const CONFIG = examplePath('keycloak', 'config-private-key-jwt.yaml');
  const keySecrets = pemSecrets(pem(client.privateKey), pem(other.privateKey));

  async function signedJwtClient() {
    const issued: string[] = [];
    const keys = [
      { ...client.publicKey.export({ format: 'jwk' }), kid: 'argocd-1', use: 'sig' },
      {
        ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
        kid: 'argocd-0',
        use: 'sig',
      },
    ];
    const api = await start(keycloak({ realm: REALM, clientId: CLIENT_ID, clientKeys: keys }, issued));
    const issuer = `${api.url}/realms/${REALM}`;
    const sets = (keyFile = KEY_FILE) => [
      '--set',
      `issuer=${issuer}`,
      '--set',
      `clientId=${CLIENT_ID}`,
      '--set',
      `keyFile=${keyFile}`,
    ];
    const assertions = () =>
      api.requests.map((r) => new URLSearchParams(r.body).get('client_assertion') ?? '').filter(Boolean);
    return { api, issued, issuer, sets, assertions, secrets: () => [...keySecrets, ...assertions()] };
  }
  const withAssertion = (edit: (template: string) => string) =>
    mutated(
      'keycloak',
      (c) => {
        const form = c['form'] as Record<string, string>;
        form['client_assertion'] = edit(form['client_assertion']!);
      },
      'config-private-key-jwt.yaml',
    );
  const refused = (description: string) =>
    `the token API answered 400 Bad Request: ${JSON.stringify({ error: 'invalid_client', error_description: description })}`;

  it('signs a fresh ES256 assertion for the realm with the client key and gets a token, twice in a row', async () => {
    const { api, issued, issuer, sets, assertions, secrets } = await signedJwtClient();
    const window = { before: Date.now(), after: 0 };
    const first = await run(['--config', CONFIG, ...sets()]);
    const second = await run(['--config', CONFIG, ...sets()]);
    window.after = Date.now();
    for (const [i, result] of [first, second].entries()) {
      expectQuietSuccess(result, secrets());
      const credential = JSON.parse(result.stdout) as { status: Record<string, string> };
      expect(credential.status['token']).toBe(issued[i]);
      expectExpiresIn(credential.status['expirationTimestamp'], window, 300);
    }
    const request = api.requests[0]!;
    expect({
      path: request.path,
      authorization: request.headers.authorization,
      type: request.headers['content-type'],
    }).toEqual({
      path: `/realms/${REALM}/protocol/openid-connect/token`,
      authorization: undefined,
      type: 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      grant_type: 'client_credentials',
      client_assertion_type: CLIENT_ASSERTION_TYPE,
      client_assertion: assertions()[0],
    });
    const [a, b] = assertions().map((assertion) => decodeJws(assertion)!);
    expect(a!.header).toEqual({ alg: 'ES256' });
    const iat = a!.claims['iat'] as number;
    expect(a!.claims).toEqual({
      iss: CLIENT_ID,
      sub: CLIENT_ID,
      aud: issuer,
      iat,
      exp: iat + 300,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(b!.claims['jti']).not.toBe(a!.claims['jti']);
  });

  it.each<[string, (template: string) => string]>([
    ['the key named by its kid', (t) => t.replace('client.key"))', 'client.key"), { kid: "argocd-1" })')],
    [
      'the token endpoint as the audience',
      (t) => t.replace('aud: vars.issuer }', 'aud: vars.issuer + "/protocol/openid-connect/token" }'),
    ],
  ])('the stand-in accepts %s too', async (_what, edit) => {
    const { issued, sets, secrets } = await signedJwtClient();
    const result = await run(['--config-inline', withAssertion(edit), ...sets()]);
    expectQuietSuccess(result, secrets());
    expect((JSON.parse(result.stdout) as { status: { token: string } }).status.token).toBe(issued[0]);
  });

  it.each<[string, (template: string) => string, string]>([
    [
      'a kid the client does not have',
      (t) => t.replace('client.key"))', 'client.key"), { kid: "argocd-2" })'),
      'Unable to load public key',
    ],
    [
      'an assertion for another realm',
      (t) => t.replace('aud: vars.issuer }', 'aud: "https://keycloak.example.com/realms/master" }'),
      'Invalid token audience',
    ],
    [
      'an expired assertion',
      (t) => t.replace('aud: vars.issuer }', 'aud: vars.issuer, iat: 1700000000, exp: 1700000300 }'),
      'Token is not active',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, edit, description) => {
    const { sets, secrets } = await signedJwtClient();
    const result = await run(['--config-inline', withAssertion(edit), ...sets()]);
    expectFailure(result, 3, refused(description), secrets());
  });

  it('the stand-in refuses an assertion another key signed', async () => {
    const { sets, secrets } = await signedJwtClient();
    const result = await run(['--config', CONFIG, ...sets(OTHER_KEY_FILE)]);
    expectFailure(
      result,
      3,
      refused('Client authentication with signed JWT failed: Signature on JWT token failed validation'),
      secrets(),
    );
  });

  it('the stand-in refuses a replayed jti: an assertion with a fixed jti works once', async () => {
    const { sets, secrets } = await signedJwtClient();
    const config = withAssertion((t) => t.replace('aud: vars.issuer }', 'aud: vars.issuer, jti: "pre-signed-1" }'));
    expectQuietSuccess(await run(['--config-inline', config, ...sets()]), secrets());
    expectFailure(await run(['--config-inline', config, ...sets()]), 3, refused('Token reuse detected'), secrets());
  });

  it("the stand-in refuses the client's old secret (config.yaml): a Signed JWT client has none", async () => {
    const { issuer, secrets } = await signedJwtClient();
    const result = await run(
      [
        '--config',
        examplePath('keycloak', 'config.yaml'),
        '--set',
        `issuer=${issuer}`,
        '--set',
        `clientId=${CLIENT_ID}`,
      ],
      { CLIENT_SECRET: SECRET },
    );
    expectFailure(result, 3, refused('Parameter client_assertion_type is missing'), [SECRET, ...secrets()]);
  });

  it('without --set clientId: exit 2 naming it, and no assertion without iss is sent', async () => {
    const { api, issuer } = await signedJwtClient();
    const result = await run(['--config', CONFIG, '--set', `issuer=${issuer}`, '--set', `keyFile=${KEY_FILE}`]);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(
      /^webapi-credential: webAPIProviderConfig\.form\.client_assertion: .*: vars\.clientId is not set \(pass --set clientId=…, or give a default: vars\.clientId \?\? "…"\)\n$/,
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe('examples/keycloak/README.md', () => {
  // Keycloak's token path is its own: a reader with another server who "changes the URL" guesses
  // a path; init oidc finds the one the server publishes.
  it('claims only Keycloak, and sends another server to init oidc with its issuer', () => {
    const readme = readFileSync(examplePath('keycloak/README.md'), 'utf8');
    const [title] = readme.split('\n');
    expect(title).toBe('# Keycloak');
    expect(readme).not.toMatch(/any OAuth 2\.0 (client credentials )?server|change the URL/i);
    expect(readme.replace(/\s+/g, ' ')).toContain('`webapi-credential init oidc --set issuer=… --set clientId=…`');
    for (const [, target] of readme.matchAll(/\]\((\.\.\/oidc\/[^)]+)\)/g))
      expect(existsSync(examplePath(`keycloak/${target}`)), target).toBe(true);
    expect(readme).toContain('](../oidc/README.md)');
  });
});
