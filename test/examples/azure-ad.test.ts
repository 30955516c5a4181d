// examples/azure-ad against a stand-in of the Microsoft identity platform's v2.0 token endpoint:
// a token for the AKS server application; a request of another shape is refused.
import { describe, expect, it } from 'vitest';
import {
  expectExpiresIn,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  run,
  standIns,
  V1,
} from '../helpers/examples.js';
import { AKS_SCOPE, azureAd } from '../helpers/provider-apis.js';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT_ID = '0f9d5c1e-2b3a-4c4d-8e5f-6a7b8c9d0e1f';
const SECRET = 'Az~8Q~client.secret_Vb3+/=';
const ENV = { AZURE_CLIENT_SECRET: SECRET };
const start = standIns();

async function entraId() {
  const issued: string[] = [];
  const api = await start(azureAd({ tenant: TENANT, clientId: CLIENT_ID, clientSecret: SECRET }, issued));
  return {
    api,
    issued,
    sets: (tenant = TENANT) => [
      '--set',
      `authorityHost=${api.url}`,
      '--set',
      `tenantId=${tenant}`,
      '--set',
      `clientId=${CLIENT_ID}`,
    ],
  };
}

describe.concurrent('examples/azure-ad', () => {
  it('config.yaml gets a token for the AKS server application with the client credentials of a service principal', async () => {
    const { api, issued, sets } = await entraId();
    const window = { before: Date.now(), after: 0 };
    const info = JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    const result = await run(['--config', examplePath('azure-ad', 'config.yaml'), ...sets()], {
      ...ENV,
      KUBERNETES_EXEC_INFO: info,
    });
    window.after = Date.now();
    expectQuietSuccess(result, [SECRET]);
    const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
    expect({ apiVersion: credential.apiVersion, token: credential.status['token'] }).toEqual({
      apiVersion: V1,
      token: issued[0],
    });
    expectExpiresIn(credential.status['expirationTimestamp'], window, 3599);
    const request = api.requests[0]!;
    expect({ method: request.method, path: request.path, type: request.headers['content-type'] }).toEqual({
      method: 'POST',
      path: `/${TENANT}/oauth2/v2.0/token`,
      type: 'application/x-www-form-urlencoded',
    });
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: CLIENT_ID,
      client_secret: SECRET,
      scope: AKS_SCOPE,
    });
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['form']),
      '405 Method Not Allowed: {"error":"invalid_request","error_description":"AADSTS900561: The endpoint only accepts POST requests."}',
    ],
    [
      'a JSON body',
      (c) => ((c['json'] = c['form']), delete c['form']),
      '400 Bad Request: {"error":"invalid_request","error_description":"AADSTS900144: The request body must contain the following parameter: grant_type."}',
    ],
    [
      'the v1 resource parameter instead of scope',
      (c) => {
        const form = c['form'] as Record<string, unknown>;
        delete form['scope'];
        form['resource'] = '6dae42f8-4368-4678-94ff-3960e28e3630';
      },
      '400 Bad Request: {"error":"invalid_scope","error_description":"AADSTS70011: The provided value for the input parameter scope is not valid."}',
    ],
    [
      'the password grant',
      (c) => ((c['form'] as Record<string, unknown>)['grant_type'] = 'password'),
      '400 Bad Request: {"error":"unsupported_grant_type","error_description":"AADSTS70003: The app requested an unsupported grant type."}',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { sets } = await entraId();
    const result = await run(['--config-inline', mutated('azure-ad', mutate), ...sets()], ENV);
    expectFailure(result, 3, `the token API answered ${answer}`, [SECRET]);
  });

  it('the stand-in refuses another tenant and a wrong secret, and the secret appears nowhere', async () => {
    const { sets } = await entraId();
    const config = examplePath('azure-ad', 'config.yaml');
    const tenant = await run(['--config', config, ...sets('contoso.onmicrosoft.com')], ENV);
    expectFailure(
      tenant,
      3,
      `the token API answered 400 Bad Request: {"error":"invalid_request","error_description":"AADSTS90002: Tenant 'contoso.onmicrosoft.com' not found."}`,
      [SECRET],
    );
    const expired = `${SECRET}-expired`;
    const secret = await run(['--config', config, ...sets()], { ...ENV, AZURE_CLIENT_SECRET: expired });
    expectFailure(
      secret,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}; check env.AZURE_CLIENT_SECRET and vars.clientId',
      [expired],
    );
  });
});
