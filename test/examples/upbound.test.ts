// examples/upbound against a stand-in of Upbound's org-scoped token exchange: the token for the
// organization; a request of another shape is refused.
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
import { ID_TOKEN_TYPE, TOKEN_EXCHANGE, upbound } from '../helpers/provider-apis.js';

const ROBOT_TOKEN = 'upbound-robot-token-Fq2vX9';
const start = standIns();

async function upboundApi() {
  const issued: string[] = [];
  const api = await start(upbound({ org: 'acme', token: ROBOT_TOKEN }, issued));
  return { api, issued, sets: (org = 'acme') => ['--set', `authUrl=${api.url}`, '--set', `org=${org}`] };
}

describe.concurrent('examples/upbound', () => {
  it('config.yaml exchanges the robot token for an org-scoped token', async () => {
    const { api, issued, sets } = await upboundApi();
    const window = { before: Date.now(), after: 0 };
    const result = await run(['--config', examplePath('upbound', 'config.yaml'), ...sets()], {
      UPBOUND_TOKEN: ROBOT_TOKEN,
    });
    window.after = Date.now();
    expectQuietSuccess(result, [ROBOT_TOKEN]);
    const credential = JSON.parse(result.stdout) as { apiVersion: string; status: Record<string, string> };
    expect({
      apiVersion: credential.apiVersion,
      keys: Object.keys(credential.status),
      token: credential.status['token'],
    }).toEqual({
      apiVersion: V1BETA1,
      keys: ['token', 'expirationTimestamp'],
      token: issued[0],
    });
    expectExpiresIn(credential.status['expirationTimestamp'], window, 3600);
    const request = api.requests[0]!;
    expect({
      method: request.method,
      path: request.path,
      type: request.headers['content-type'],
      authorization: request.headers.authorization,
    }).toEqual({
      method: 'POST',
      path: '/apis/tokenexchange.upbound.io/v1alpha1/orgscopedtokens',
      type: 'application/x-www-form-urlencoded',
      authorization: `Bearer ${ROBOT_TOKEN}`,
    });
    const form = new URLSearchParams(request.body);
    expect([...form].sort()).toEqual(
      [
        ['audience', 'upbound:spaces:api'],
        ['audience', 'upbound:spaces:controlplanes'],
        ['grant_type', TOKEN_EXCHANGE],
        ['scope', 'upbound:org:acme'],
        ['subject_token', ROBOT_TOKEN],
        ['subject_token_type', ID_TOKEN_TYPE],
      ].sort(),
    );
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['form']),
      '405 Method Not Allowed: {"error":"method_not_allowed"}',
    ],
    [
      'a JSON body',
      (c) => ((c['json'] = c['form']), delete c['form']),
      '400 Bad Request: {"error":"invalid_request","error_description":"expected a form body"}',
    ],
    [
      'the client_credentials grant',
      (c) => ((c['form'] as Record<string, unknown>)['grant_type'] = 'client_credentials'),
      '400 Bad Request: {"error":"unsupported_grant_type","error_description":"grant_type must be token-exchange"}',
    ],
    [
      'one audience only',
      (c) => ((c['form'] as Record<string, unknown>)['audience'] = 'upbound:spaces:api'),
      '400 Bad Request: {"error":"invalid_target","error_description":"unknown audience"}',
    ],
    [
      'the token only in the form',
      (c) => delete c['headers'],
      '401 Unauthorized: {"error":"invalid_grant","error_description":"token is not valid"}; check env.UPBOUND_TOKEN and vars.org',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { sets } = await upboundApi();
    const result = await run(['--config-inline', mutated('upbound', mutate), ...sets()], {
      UPBOUND_TOKEN: ROBOT_TOKEN,
    });
    expectFailure(result, 3, `the token API answered ${answer}`, [ROBOT_TOKEN]);
  });

  it('the stand-in refuses another organization and a wrong token, and the token appears nowhere', async () => {
    const { sets } = await upboundApi();
    const org = await run(['--config', examplePath('upbound', 'config.yaml'), ...sets('globex')], {
      UPBOUND_TOKEN: ROBOT_TOKEN,
    });
    expectFailure(
      org,
      3,
      'the token API answered 400 Bad Request: {"error":"invalid_scope","error_description":"unknown organization"}',
      [ROBOT_TOKEN],
    );
    const revoked = `${ROBOT_TOKEN}-revoked`;
    const token = await run(['--config', examplePath('upbound', 'config.yaml'), ...sets()], { UPBOUND_TOKEN: revoked });
    expectFailure(
      token,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_grant","error_description":"token is not valid"}; check env.UPBOUND_TOKEN and vars.org',
      [revoked],
    );
  });
});
