// examples/pinniped against a stand-in of the Concierge's TokenCredentialRequest: a client
// certificate credential; a request of another shape is refused, and a rejected token (201 without
// a credential) is exit 4 naming what the answer holds.
import { describe, expect, it } from 'vitest';
import {
  execCredential,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  rfc3339,
  run,
  scratchFile,
  standIns,
  V1,
} from '../helpers/examples.js';
import { makePki } from '../helpers/pki.js';
import { pinniped } from '../helpers/provider-apis.js';
import { fakeJwt } from '../helpers/token-api.js';

const pki = makePki();
const ID_TOKEN = fakeJwt(Math.floor(Date.now() / 1000) + 600, { iss: 'https://idp.example.com', sub: 'jane' });
const EXPIRES = Math.floor(Date.now() / 1000) * 1000 + 5 * 60_000;
const start = standIns();

async function concierge() {
  const issued: string[] = [];
  const api = await start(
    pinniped(
      { token: ID_TOKEN, authenticator: 'corp-oidc', certificate: pki.client, expirationTimestamp: rfc3339(EXPIRES) },
      issued,
    ),
  );
  return { api, issued };
}
const CREDENTIAL = execCredential(V1, {
  clientCertificateData: pki.client.cert,
  clientKeyData: pki.client.key,
  expirationTimestamp: rfc3339(EXPIRES - 60_000),
});
const info = (server: string) =>
  JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false, cluster: { server } } });

describe.concurrent('examples/pinniped', () => {
  it("config.yaml gets a client certificate from the cluster's own server (provideClusterInfo)", async () => {
    const { api } = await concierge();
    const result = await run(['--config', examplePath('pinniped', 'config.yaml'), '--set', 'authenticator=corp-oidc'], {
      PINNIPED_TOKEN: ID_TOKEN,
      KUBERNETES_EXEC_INFO: info(api.url),
    });
    expectQuietSuccess(result, [ID_TOKEN]);
    expect(result.stdout).toBe(CREDENTIAL);
    const request = api.requests[0]!;
    expect({
      method: request.method,
      path: request.path,
      type: request.headers['content-type'],
      authorization: request.headers.authorization,
    }).toEqual({
      method: 'POST',
      path: '/apis/login.concierge.pinniped.dev/v1alpha1/tokencredentialrequests',
      type: 'application/json',
      authorization: undefined,
    });
    expect(JSON.parse(request.body)).toEqual({
      apiVersion: 'login.concierge.pinniped.dev/v1alpha1',
      kind: 'TokenCredentialRequest',
      spec: {
        token: ID_TOKEN,
        authenticator: {
          apiGroup: 'authentication.concierge.pinniped.dev',
          kind: 'JWTAuthenticator',
          name: 'corp-oidc',
        },
      },
    });
  });

  it('config.yaml reads the token from tokenFile when PINNIPED_TOKEN is not set, and takes conciergeUrl', async () => {
    const { api } = await concierge();
    const file = scratchFile('pinniped-token', `${ID_TOKEN}\n`);
    const info = JSON.stringify({ kind: 'ExecCredential', apiVersion: V1, spec: { interactive: false } });
    const result = await run(
      [
        '--config',
        examplePath('pinniped', 'config.yaml'),
        '--set',
        'authenticator=corp-oidc',
        '--set',
        `tokenFile=${file}`,
        '--set',
        `conciergeUrl=${api.url}`,
      ],
      { KUBERNETES_EXEC_INFO: info },
    );
    expectQuietSuccess(result, [ID_TOKEN]);
    expect(result.stdout).toBe(CREDENTIAL);
  });

  it('a token the Concierge rejects is exit 4 that names the keys of its answer', async () => {
    const { api } = await concierge();
    const stale = fakeJwt(1, { sub: 'jane' });
    const result = await run(
      [
        '--config',
        examplePath('pinniped', 'config.yaml'),
        '--set',
        'authenticator=corp-oidc',
        '--set',
        `conciergeUrl=${api.url}`,
      ],
      { PINNIPED_TOKEN: stale },
    );
    expectFailure(
      result,
      4,
      'clientCertificateDataPath $.status.credential.clientCertificateData matched nothing in the response; $.status has keys "message"',
      [stale],
    );
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['json']),
      '405 Method Not Allowed: {"message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","code":405}',
    ],
    [
      'a form body',
      (c) => ((c['form'] = { token: '{{ env.PINNIPED_TOKEN }}' }), delete c['json']),
      '415 Unsupported Media Type: {"message":"the body of the request was in an unknown format","reason":"UnsupportedMediaType","code":415}',
    ],
    [
      'another kind',
      (c) => ((c['json'] as Record<string, unknown>)['kind'] = 'TokenRequest'),
      '400 Bad Request: {"message":"the object provided is unrecognized","reason":"BadRequest","code":400}',
    ],
    [
      'the namespaced path of old Concierges',
      (c) => (c['url'] = String(c['url']).replace('/v1alpha1/', '/v1alpha1/namespaces/pinniped-concierge/')),
      '404 Not Found: {"message":"the server could not find the requested resource","reason":"NotFound","code":404}',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { api } = await concierge();
    const result = await run(
      [
        '--config-inline',
        mutated('pinniped', mutate),
        '--set',
        'authenticator=corp-oidc',
        '--set',
        `conciergeUrl=${api.url}`,
      ],
      { PINNIPED_TOKEN: ID_TOKEN },
    );
    expectFailure(result, 3, `the token API answered ${answer}`, [ID_TOKEN]);
  });
});
