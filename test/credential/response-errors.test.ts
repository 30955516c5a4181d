// Exit 4: a 2xx answer that holds no usable credential. The API issues real-looking secrets in
// these answers; none of them may appear in the message.
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, type Handler } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, allSecrets, basic, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
/** A refresh token the API hands out next to the access token: as secret as the token. */
const REFRESH = 'refresh-token-Hy62Pq0Zm';
/** Keys some APIs use for maps keyed by credential (Vault's accessors and tokens): counted, never named. */
const VAULT_KEY = 'hvs.CAESIJ3f9zSECRETTOKENVALUE0123456789';
const GITHUB_LIKE_KEY = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const LONG_KEY = 'averyveryverylongfieldnamethatisnotafieldname';

const answer =
  (status: number, body: string, contentType?: string): Handler =>
  (_req, res: ServerResponse) => {
    res.writeHead(status, contentType ? { 'content-type': contentType } : {});
    res.end(body);
  };

interface Case {
  name: string;
  handler: Handler;
  config?: Record<string, unknown>;
  message: string | RegExp;
}

const cases: Case[] = [
  {
    name: 'an HTML login page',
    handler: answer(
      200,
      '<html>\n<body><form action="/login">Sign in</form></body>\n</html>\n',
      'text/html; charset=utf-8',
    ),
    message:
      'the token API answered with an HTML page, not JSON (text/html; charset=utf-8, 65 bytes); it looks like a login or error page: url may not be the token endpoint',
  },
  {
    name: 'an empty body',
    handler: answer(200, ''),
    message: 'the token API answered with something that is not JSON (an empty body)',
  },
  {
    name: 'a 204 without a body',
    handler: answer(204, ''),
    message: 'the token API answered with something that is not JSON (an empty body)',
  },
  {
    name: 'JSON null',
    handler: answer(200, 'null', 'application/json'),
    message: 'the token API answered JSON null, expected an object',
  },
  {
    name: 'a JSON string',
    handler: answer(200, JSON.stringify(SECRET.token), 'application/json'),
    message: 'the token API answered JSON string, expected an object',
  },
  {
    name: 'a JSON array where tokenPath expects an object',
    handler: (_req, res) => json(res, 200, [{ access_token: SECRET.token }]),
    message: 'tokenPath $.access_token matched nothing in the response; $ is a list',
  },
  {
    name: 'a body larger than maxResponseBytes, with a content-length',
    handler: (_req, res) => json(res, 200, { access_token: SECRET.token, padding: 'x'.repeat(5000) }),
    config: { maxResponseBytes: 1000 },
    message: 'the token API answered with more than maxResponseBytes (1000 bytes)',
  },
  {
    name: 'a body larger than maxResponseBytes, streamed without a length',
    handler: (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`{"access_token":"${SECRET.token}","padding":"`);
      res.write('x'.repeat(5000));
      res.end('"}');
    },
    config: { maxResponseBytes: 1000 },
    message: 'the token API answered with more than maxResponseBytes (1000 bytes)',
  },
  {
    name: 'a tokenPath that matches nothing, naming the keys the response has and not their values',
    handler: (_req, res) =>
      json(res, 200, { token_type: 'Bearer', id_token: SECRET.token, refresh_token: REFRESH, expires_in: 3600 }),
    message:
      'tokenPath $.access_token matched nothing in the response; $ has keys "token_type", "id_token", "refresh_token", "expires_in"',
  },
  {
    name: 'a tokenPath that matches nothing in a map keyed by token: the key is counted, not named',
    handler: (_req, res) => json(res, 200, { data: { [VAULT_KEY]: { ttl: 3600 } } }),
    config: { tokenPath: '$.data.token' },
    message:
      'tokenPath $.data.token matched nothing in the response; $.data has 1 key that does not look like a field name (not shown)',
  },
  {
    name: 'a tokenPath that matches nothing among field names and credential-like keys',
    handler: (_req, res) => json(res, 200, { lease_id: 'l', [GITHUB_LIKE_KEY]: 1, [LONG_KEY]: 2, 'has space': 3 }),
    message:
      'tokenPath $.access_token matched nothing in the response; $ has keys "lease_id" and 3 that do not look like field names (not shown)',
  },
  {
    name: 'a nested tokenPath that stops half way',
    handler: (_req, res) => json(res, 200, { status: { credential: { bearer: SECRET.token, refresh: REFRESH } } }),
    config: { tokenPath: '{.status.credential.token}' },
    message:
      'tokenPath $.status.credential.token matched nothing in the response; $.status.credential has keys "bearer", "refresh"',
  },
  {
    name: 'a token that is a number',
    handler: (_req, res) => json(res, 200, { access_token: 83920174 }),
    message: 'tokenPath $.access_token matched a number, expected a non-empty string',
  },
  {
    name: 'a token that is an object',
    handler: (_req, res) => json(res, 200, { access_token: { value: SECRET.token } }),
    message: 'tokenPath $.access_token matched an object, expected a non-empty string',
  },
  {
    name: 'a token that is an empty string',
    handler: (_req, res) => json(res, 200, { access_token: '' }),
    message: 'tokenPath $.access_token matched an empty string',
  },
  {
    name: 'a tokenPath that matches several values',
    handler: (_req, res) => json(res, 200, { tokens: [SECRET.token, REFRESH] }),
    config: { tokenPath: '$.tokens[*]' },
    message: 'tokenPath $.tokens[*] matched 2 values ($.tokens[0], $.tokens[1]); make it select exactly one',
  },
  {
    name: 'an expiry that is not a time',
    handler: (_req, res) => json(res, 200, { access_token: SECRET.token, expires_at: 'tomorrow at noon' }),
    config: { expiryPath: '$.expires_at' },
    message: 'expiryPath $.expires_at matched a string that is neither an RFC 3339 time nor unix seconds/milliseconds',
  },
  {
    name: 'an expires_in that is not a number of seconds',
    handler: (_req, res) => json(res, 200, { access_token: SECRET.token, expires_in: 'an hour' }),
    config: { expiresInPath: '$.expires_in' },
    message: 'expiresInPath $.expires_in matched a string, expected a positive number of seconds',
  },
  {
    name: 'an expiryPath that matches nothing',
    handler: (_req, res) => json(res, 200, { access_token: SECRET.token, refresh_token: REFRESH }),
    config: { expiryPath: '$.expires_at' },
    message: 'expiryPath $.expires_at matched nothing in the response; $ has keys "access_token", "refresh_token"',
  },
  {
    name: 'a credential that has already expired',
    handler: (_req, res) => json(res, 200, { access_token: SECRET.token, expires_at: '2020-01-01T00:00:00Z' }),
    config: { expiryPath: '$.expires_at' },
    message:
      /^the token API returned a credential that expired at 2020-01-01T00:00:00\.000Z \(now \d{4}-\d\d-\d\dT[\d:.]+Z\); check the API and this machine's clock$/,
  },
  {
    name: 'a client certificate without its key',
    handler: (_req, res) => json(res, 200, { cert: pki.client.cert }),
    config: { tokenPath: undefined, clientCertificateDataPath: '$.cert', clientKeyDataPath: '$.key' },
    message: 'clientKeyDataPath $.key matched nothing in the response; $ has keys "cert"',
  },
];

describe.concurrent('unusable answers exit 4', () => {
  it.each(cases)('fails on $name', async ({ handler, config, message }) => {
    const api = await startApi(handler);
    const full = basic(`${api.url}/token`, {
      tls: { caFile: pki.ca.certFile },
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      ...config,
    });
    const result = await runInProcess(['--config-inline', provider(full)], { env: SECRET_ENV });
    expectFailure(result, 4, message, allSecrets([REFRESH, VAULT_KEY, GITHUB_LIKE_KEY, LONG_KEY, 'has space']));
    expect(api.requests).toHaveLength(1);
  });
});
