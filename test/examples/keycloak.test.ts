// examples/keycloak, both configs, against a Keycloak stand-in: a client_credentials token with
// HTTP Basic and with form client authentication; a request of another shape is refused.
import { describe, expect, it } from 'vitest';
import { expectExpiresIn, expectFailure, expectQuietSuccess, examplePath, mutated, run, standIns, V1BETA1 } from '../helpers/examples.js';
import { keycloak } from '../helpers/provider-apis.js';

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
    ['config.yaml', 'HTTP Basic', `Basic ${Buffer.from(`${CLIENT_ID}:${new URLSearchParams({ s: SECRET }).toString().slice(2)}`).toString('base64')}`, { grant_type: 'client_credentials' }],
    ['config-client-secret-post.yaml', 'the form', undefined, { grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: SECRET }],
  ])('%s gets a client_credentials token, the client authenticating with %s', async (file, _how, authorization, form) => {
    const { api, issued, sets } = await keycloakApi();
    const window = { before: Date.now(), after: 0 };
    const result = await run(['--config', examplePath('keycloak', file), ...sets()], { CLIENT_SECRET: SECRET });
    window.after = Date.now();
    expectQuietSuccess(result, [SECRET]);
    const credential = JSON.parse(result.stdout) as { apiVersion: string; kind: string; status: Record<string, string> };
    expect({ apiVersion: credential.apiVersion, kind: credential.kind, token: credential.status['token'] }).toEqual({ apiVersion: V1BETA1, kind: 'ExecCredential', token: issued[0] });
    expectExpiresIn(credential.status['expirationTimestamp'], window, 300);
    const [request] = api.requests;
    expect({ method: request?.method, path: request?.path, authorization: request?.headers.authorization, type: request?.headers['content-type'] }).toEqual({
      method: 'POST',
      path: `/realms/${REALM}/protocol/openid-connect/token`,
      authorization,
      type: 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(new URLSearchParams(request?.body))).toEqual(form);
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    ['a GET', (c) => ((c['method'] = 'GET'), delete c['form']), '405 Method Not Allowed: {"error":"HTTP 405 Method Not Allowed"}'],
    ['a JSON body', (c) => ((c['json'] = c['form']), delete c['form']), '415 Unsupported Media Type: {"error":"Cannot consume content type"}'],
    ['the password grant', (c) => (c['form'] = { grant_type: 'password' }), '400 Bad Request: {"error":"unsupported_grant_type","error_description":"Unsupported grant_type"}'],
    ['no client authentication', (c) => delete c['headers'], '401 Unauthorized: {"error":"unauthorized_client","error_description":"Invalid client or Invalid client credentials"}'],
    [
      'both client authentication methods',
      (c) => (c['form'] = { grant_type: 'client_credentials', client_id: '{{ vars.clientId }}', client_secret: '{{ env.CLIENT_SECRET }}' }),
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
    const realm = await run(['--config', examplePath('keycloak', 'config.yaml'), ...sets('other')], { CLIENT_SECRET: SECRET });
    expectFailure(realm, 3, 'the token API answered 404 Not Found: {"error":"Realm does not exist"}', [SECRET]);
    const wrong = `${SECRET}-rotated`;
    const secret = await run(['--config', examplePath('keycloak', 'config-client-secret-post.yaml'), ...sets()], { CLIENT_SECRET: wrong });
    expectFailure(secret, 3, 'the token API answered 401 Unauthorized: {"error":"unauthorized_client","error_description":"Invalid client or Invalid client credentials"}', [wrong, SECRET]);
  });
});
