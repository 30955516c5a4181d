// examples/rancher against a stand-in of Rancher's login action: the session token, expiring at
// its expiresAt; a request of another shape is refused.
import { describe, expect, it } from 'vitest';
import {
  execCredential,
  expectFailure,
  expectQuietSuccess,
  examplePath,
  mutated,
  rfc3339,
  run,
  standIns,
  V1BETA1,
} from '../helpers/examples.js';
import { rancher } from '../helpers/provider-apis.js';

const USER = { RANCHER_PASSWORD: 'r4ncher-Pa55word!"quoted"' };
const EXPIRES = Math.floor(Date.now() / 1000) * 1000 + 16 * 3600_000;
const start = standIns();

async function rancherApi(provider?: string) {
  const issued: string[] = [];
  const api = await start(
    rancher(
      {
        username: 'argocd',
        password: USER.RANCHER_PASSWORD,
        expiresAt: rfc3339(EXPIRES),
        ...(provider ? { provider } : {}),
      },
      issued,
    ),
  );
  return { api, issued, sets: ['--set', `rancherUrl=${api.url}`, '--set', 'username=argocd'] };
}

describe.concurrent('examples/rancher', () => {
  it('config.yaml logs in and reports the token a minute before its expiresAt', async () => {
    const { api, issued, sets } = await rancherApi();
    const result = await run(['--config', examplePath('rancher', 'config.yaml'), ...sets], USER);
    expectQuietSuccess(result, [USER.RANCHER_PASSWORD]);
    expect(result.stdout).toBe(
      execCredential(V1BETA1, { token: issued[0]!, expirationTimestamp: rfc3339(EXPIRES - 60_000) }),
    );
    const request = api.requests[0]!;
    expect({ method: request.method, url: request.url, type: request.headers['content-type'] }).toEqual({
      method: 'POST',
      url: '/v3-public/localProviders/local?action=login',
      type: 'application/json',
    });
    expect(JSON.parse(request.body)).toEqual({
      username: 'argocd',
      password: USER.RANCHER_PASSWORD,
      description: 'webapi-credential',
    });
  });

  it('config.yaml logs in through another basic-login provider with --set authProvider', async () => {
    const { issued, sets } = await rancherApi('activeDirectoryProviders/activedirectory');
    const result = await run(
      [
        '--config',
        examplePath('rancher', 'config.yaml'),
        ...sets,
        '--set',
        'authProvider=activeDirectoryProviders/activedirectory',
      ],
      USER,
    );
    expectQuietSuccess(result, [USER.RANCHER_PASSWORD]);
    expect(result.stdout).toBe(
      execCredential(V1BETA1, { token: issued[0]!, expirationTimestamp: rfc3339(EXPIRES - 60_000) }),
    );
  });

  it.each<[string, (c: Record<string, unknown>) => void, string]>([
    [
      'a GET',
      (c) => ((c['method'] = 'GET'), delete c['json']),
      '405 Method Not Allowed: {"code":"MethodNotAllowed","message":"Method not allowed"}',
    ],
    [
      'a form body',
      (c) => ((c['form'] = c['json']), delete c['json']),
      '422 Unprocessable Entity: {"code":"InvalidBodyContent","message":""}',
    ],
    [
      'no login action',
      (c) => (c['url'] = String(c['url']).replace('?action=login', '')),
      '404 Not Found: {"code":"NotFound","message":"not found"}',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { sets } = await rancherApi();
    const result = await run(['--config-inline', mutated('rancher', mutate), ...sets], USER);
    expectFailure(result, 3, `the token API answered ${answer}`, [USER.RANCHER_PASSWORD]);
  });

  it('a wrong password is exit 3 and the password appears nowhere', async () => {
    const { sets } = await rancherApi();
    const wrong = `${USER.RANCHER_PASSWORD}-old`;
    const result = await run(['--config', examplePath('rancher', 'config.yaml'), ...sets], {
      ...USER,
      RANCHER_PASSWORD: wrong,
    });
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"code":"Unauthorized","message":"authentication failed"}; check env.RANCHER_PASSWORD and vars.username',
      [wrong, USER.RANCHER_PASSWORD],
    );
  });
});
