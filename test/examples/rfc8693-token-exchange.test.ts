// examples/rfc8693-token-exchange against an RFC 8693 security token service stand-in: the projected
// service-account token, read from its file, exchanged for an access token; a request of another
// shape is refused.
import { describe, expect, it } from 'vitest';
import {
  expectFailure,
  expectQuietSuccess,
  examplePath,
  jwtExp,
  mutated,
  rfc3339,
  run,
  scratchFile,
  standIns,
  execCredential,
  V1BETA1,
} from '../helpers/examples.js';
import { ACCESS_TOKEN_TYPE, JWT_TOKEN_TYPE, TOKEN_EXCHANGE, tokenExchange } from '../helpers/provider-apis.js';
import { fakeJwt } from '../helpers/token-api.js';

const SA_TOKEN = fakeJwt(Math.floor(Date.now() / 1000) + 3600, {
  sub: 'system:serviceaccount:argocd:argocd-application-controller',
  aud: ['https://sts.example.com'],
});
// The kubelet writes the token without a newline; file() would trim one.
const TOKEN_FILE = scratchFile('token-exchange', `${SA_TOKEN}\n`);
const AUDIENCE = 'https://k8s.example.com';
const start = standIns();

async function sts() {
  const issued: string[] = [];
  const api = await start(tokenExchange({ path: '/oauth2/token', subjectToken: SA_TOKEN, audience: AUDIENCE }, issued));
  const sets = (audience = AUDIENCE) => [
    '--set',
    `tokenUrl=${api.url}/oauth2/token`,
    '--set',
    `audience=${audience}`,
    '--set',
    `subjectTokenFile=${TOKEN_FILE}`,
  ];
  return { api, issued, sets };
}

describe.concurrent('examples/rfc8693-token-exchange', () => {
  it('config.yaml exchanges the projected service-account token from its file, and the expiry is the issued JWT’s', async () => {
    const { api, issued, sets } = await sts();
    const result = await run(['--config', examplePath('rfc8693-token-exchange', 'config.yaml'), ...sets()]);
    expectQuietSuccess(result, [SA_TOKEN]);
    const token = issued[0]!;
    expect(result.stdout).toBe(
      execCredential(V1BETA1, { token, expirationTimestamp: rfc3339((jwtExp(token) - 60) * 1000) }),
    );
    const request = api.requests[0]!;
    expect({
      method: request.method,
      path: request.path,
      type: request.headers['content-type'],
      authorization: request.headers.authorization,
    }).toEqual({
      method: 'POST',
      path: '/oauth2/token',
      type: 'application/x-www-form-urlencoded',
      authorization: undefined,
    });
    expect(Object.fromEntries(new URLSearchParams(request.body))).toEqual({
      grant_type: TOKEN_EXCHANGE,
      subject_token: SA_TOKEN,
      subject_token_type: JWT_TOKEN_TYPE,
      requested_token_type: ACCESS_TOKEN_TYPE,
      audience: AUDIENCE,
    });
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
      'the jwt-bearer grant',
      (c) => ((c['form'] as Record<string, unknown>)['grant_type'] = 'urn:ietf:params:oauth:grant-type:jwt-bearer'),
      '400 Bad Request: {"error":"unsupported_grant_type","error_description":"grant_type must be token-exchange"}',
    ],
    [
      'an id_token subject type',
      (c) =>
        ((c['form'] as Record<string, unknown>)['subject_token_type'] = 'urn:ietf:params:oauth:token-type:id_token'),
      '400 Bad Request: {"error":"invalid_request","error_description":"unsupported subject_token_type"}',
    ],
  ])('the stand-in refuses %s: exit 3 with its answer', async (_what, mutate, answer) => {
    const { sets } = await sts();
    const result = await run(['--config-inline', mutated('rfc8693-token-exchange', mutate), ...sets()]);
    expectFailure(result, 3, `the token API answered ${answer}`, [SA_TOKEN]);
  });

  it('the stand-in refuses another audience; a missing token file is exit 2 before any request', async () => {
    const { api, sets } = await sts();
    const audience = await run([
      '--config',
      examplePath('rfc8693-token-exchange', 'config.yaml'),
      ...sets('https://other.example.com'),
    ]);
    expectFailure(
      audience,
      3,
      'the token API answered 400 Bad Request: {"error":"invalid_target","error_description":"audience is not allowed"}',
      [SA_TOKEN],
    );
    const missing = await run([
      '--config',
      examplePath('rfc8693-token-exchange', 'config.yaml'),
      ...sets(),
      '--set',
      'subjectTokenFile=/nonexistent/token',
    ]);
    expectFailure(
      missing,
      2,
      'webAPIProviderConfig.form.subject_token: {{ file(vars.subjectTokenFile ?? "/var/run/secrets/tokens/token-exchange") }}: file("/nonexistent/token") cannot be read: no such file',
      [SA_TOKEN],
    );
    expect(api.requests).toHaveLength(1);
  });
});
