// A real, independently written OAuth 2.0 authorization server (panva's oidc-provider) over HTTPS,
// with the client authentication methods a token API asks for: client_secret_basic (a secret full of
// characters that need RFC 6749's form-encoding), client_secret_post, private_key_jwt (RS256, ES256)
// and client_secret_jwt (HS256). Each config runs twice (a fresh jti: the server refuses a replay),
// and the server itself proves each token valid by introspection. This keeps the stand-ins honest.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-oidc-'));
const BASIC_SECRET = 'a+b%c:d/e=f~g h+=/%20';
const POST_SECRET = 'post-secret-7Yv2Qm4Nx8';
const HMAC_SECRET = 'client-secret-jwt-shared-secret-of-more-than-32-bytes-Kq93';
const INTROSPECT_SECRET = 'introspection-secret-Wd4';
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const rsaKeyFile = join(dir, 'rsa.pem');
const ecKeyFile = join(dir, 'ec.pem');
writeFileSync(rsaKeyFile, rsa.privateKey.export({ format: 'pem', type: 'pkcs1' }) as string);
writeFileSync(ecKeyFile, ec.privateKey.export({ format: 'pem', type: 'sec1' }) as string);
const SECRETS = [
  BASIC_SECRET,
  POST_SECRET,
  HMAC_SECRET,
  readFileSync(rsaKeyFile, 'utf8'),
  readFileSync(ecKeyFile, 'utf8'),
];

let server: Server;
let issuer = '';

beforeAll(async () => {
  server = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const common = { grant_types: ['client_credentials'], redirect_uris: [], response_types: [] };
  const provider = new Provider(issuer, {
    clients: [
      { ...common, client_id: 'basic', client_secret: BASIC_SECRET, token_endpoint_auth_method: 'client_secret_basic' },
      { ...common, client_id: 'post', client_secret: POST_SECRET, token_endpoint_auth_method: 'client_secret_post' },
      {
        ...common,
        client_id: 'jwt-rs256',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'RS256',
        jwks: { keys: [rsa.publicKey.export({ format: 'jwk' })] },
      },
      {
        ...common,
        client_id: 'jwt-es256',
        token_endpoint_auth_method: 'private_key_jwt',
        token_endpoint_auth_signing_alg: 'ES256',
        jwks: { keys: [ec.publicKey.export({ format: 'jwk' })] },
      },
      {
        ...common,
        client_id: 'jwt-hs256',
        client_secret: HMAC_SECRET,
        token_endpoint_auth_method: 'client_secret_jwt',
        token_endpoint_auth_signing_alg: 'HS256',
      },
      {
        ...common,
        client_id: 'resource-server',
        client_secret: INTROSPECT_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ] as never,
    features: {
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      devInteractions: { enabled: false },
    },
  });
  server.on('request', provider.callback());
}, 30_000);

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** RFC 7662 introspection by the resource server: is the token one this server issued and still active? */
function introspect(token: string): Promise<{ active: boolean; client_id?: string }> {
  return new Promise((resolve, reject) => {
    const body = new URLSearchParams({ token }).toString();
    const req = httpsRequest(
      `${issuer}/token/introspection`,
      {
        method: 'POST',
        ca: pki.ca.cert,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`resource-server:${INTROSPECT_SECRET}`).toString('base64')}`,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve(JSON.parse(text) as { active: boolean; client_id?: string }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const assertion = (client: string, key: string, options = '') =>
  `{{ jwt({ iss: "${client}", sub: "${client}", aud: "${'${issuer}'}/token" }, ${key}${options ? `, ${options}` : ''}) }}`;

const configs = (): Array<[string, string, Record<string, unknown>]> => [
  [
    'client_secret_basic, the secret full of + % : / = ~ and spaces, through basicAuth()',
    'basic',
    {
      headers: { Authorization: '{{ basicAuth("basic", env.CLIENT_SECRET) }}' },
      form: { grant_type: 'client_credentials' },
    },
  ],
  [
    'client_secret_post',
    'post',
    { form: { grant_type: 'client_credentials', client_id: 'post', client_secret: '{{ env.CLIENT_SECRET }}' } },
  ],
  ...(['jwt-rs256', 'jwt-es256'] as const).map((client): [string, string, Record<string, unknown>] => [
    `private_key_jwt (${client.slice(4).toUpperCase()})`,
    client,
    {
      form: {
        grant_type: 'client_credentials',
        client_id: client,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion(client, 'file(env.KEY_FILE)').replace('${issuer}', issuer),
      },
    },
  ]),
  [
    'client_secret_jwt (HS256)',
    'jwt-hs256',
    {
      form: {
        grant_type: 'client_credentials',
        client_id: 'jwt-hs256',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion('jwt-hs256', 'env.CLIENT_SECRET', '{ alg: "HS256" }').replace('${issuer}', issuer),
      },
    },
  ],
];

const envFor = (client: string): Record<string, string> =>
  ({
    basic: { CLIENT_SECRET: BASIC_SECRET },
    post: { CLIENT_SECRET: POST_SECRET },
    'jwt-rs256': { KEY_FILE: rsaKeyFile },
    'jwt-es256': { KEY_FILE: ecKeyFile },
    'jwt-hs256': { CLIENT_SECRET: HMAC_SECRET },
  })[client]!;

describe('against oidc-provider, a real OAuth 2.0 server', () => {
  it.each([0, 1, 2, 3, 4])('gets a token the server vouches for, twice in a row (configuration %i)', async (index) => {
    const [name, client, request] = configs()[index]!;
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `${issuer}/token`,
        tokenPath: '$.access_token',
        expiresInPath: '$.expires_in',
        tls: { caFile: pki.ca.certFile },
        ...request,
      },
    });
    const tokens: string[] = [];
    for (const _ of [1, 2]) {
      const result = await runInProcess(['--config-inline', config], { env: envFor(client) });
      expect({ name, code: result.code, stderr: result.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(leaks(result, SECRETS)).toEqual([]);
      tokens.push(JSON.parse(result.stdout).status.token as string);
    }
    expect(tokens[0]).not.toBe(tokens[1]);
    for (const token of tokens) expect(await introspect(token)).toMatchObject({ active: true, client_id: client });
  });

  it('refuses a plain base64(id:secret) of that secret, which basicAuth() gets right', async () => {
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `${issuer}/token`,
        tokenPath: '$.access_token',
        tls: { caFile: pki.ca.certFile },
        headers: { Authorization: 'Basic {{ base64("basic:" + env.CLIENT_SECRET) }}' },
        form: { grant_type: 'client_credentials' },
        retry: { limit: 0 },
      },
    });
    const result = await runInProcess(['--config-inline', config], { env: { CLIENT_SECRET: BASIC_SECRET } });
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      'webapi-credential: the token API answered 400 Bad Request: {"error":"invalid_request","error_description":"client_id and client_secret in the authorization header are not properly encoded"}\n',
    );
    expect(leaks(result, SECRETS)).toEqual([]);
  });
});
