// The stand-in apiserver applies structured authentication as the real one does (test/helpers/
// jwt-authenticator.ts), so that the e2e test's "kubectl auth whoami" proves something: a token of
// the configured issuer and audience, signed by the issuer's JWKS key and not expired, is the
// prefixed user with the prefixed groups; another audience, an expired token, a changed payload, an
// unknown issuer are refused; an invalid configuration does not start.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import { MACHINE_ID, MACHINE_SECRET, startDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { makePki } from '../helpers/pki.js';
import type { AuthenticationConfiguration } from '../helpers/authentication-config.js';

const pki = makePki();
const RESOURCE = 'https://kubernetes.example.test';
let idp: DeviceProvider;
let apiserver: ApiServer;
const config = (): AuthenticationConfiguration => ({
  apiVersion: 'apiserver.config.k8s.io/v1',
  kind: 'AuthenticationConfiguration',
  jwt: [
    {
      issuer: { url: idp.issuer, audiences: [RESOURCE], certificateAuthority: pki.ca.cert },
      claimMappings: {
        username: { claim: 'sub', prefix: 'oidc:' },
        groups: { claim: 'client_id', prefix: 'clients:' },
      },
    },
  ],
});
beforeAll(async () => {
  idp = await startDeviceProvider(pki);
  apiserver = await startApiServer({ authentication: config() });
}, 30_000);
afterAll(async () => {
  await Promise.all([idp?.close(), apiserver?.close()]);
});

function post(
  url: string,
  body: string,
  headers: Record<string, string>,
  ca: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', ca, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function machineToken(resource: string): Promise<string> {
  const basic = `Basic ${Buffer.from(`${MACHINE_ID}:${MACHINE_SECRET}`).toString('base64')}`;
  const answer = await post(
    `${idp.issuer}/token`,
    new URLSearchParams({ grant_type: 'client_credentials', resource }).toString(),
    { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
    pki.ca.cert,
  );
  return (JSON.parse(answer.body) as { access_token: string }).access_token;
}

async function whoAmI(token: string): Promise<{ status: number; user?: unknown; refused?: string }> {
  const answer = await post(
    `${apiserver.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
    '{}',
    { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    readFileSync(apiserver.caFile, 'utf8'),
  );
  const refused = apiserver.requests.at(-1)?.refused;
  return {
    status: answer.status,
    ...(answer.status === 201
      ? { user: (JSON.parse(answer.body) as { status: { userInfo: unknown } }).status.userInfo }
      : {}),
    ...(refused ? { refused } : {}),
  };
}

it('takes a token of its issuer and audience: the prefixed user and groups', async () => {
  expect(await whoAmI(await machineToken(RESOURCE))).toEqual({
    status: 201,
    user: { username: `oidc:${MACHINE_ID}`, groups: [`clients:${MACHINE_ID}`, 'system:authenticated'] },
  });
});

it('refuses another audience, an expired token, a changed payload, and takes no token of an unknown issuer', async () => {
  expect(await whoAmI(await machineToken('https://other.example.test'))).toEqual({
    status: 401,
    refused: `oidc: verify token: oidc: expected audience in ["${RESOURCE}"] got ["https://other.example.test"]`,
  });
  idp.tokenTtl(1);
  try {
    const expiring = await machineToken(RESOURCE);
    // Past its exp (whole seconds), with no leeway, as go-oidc checks it.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect(await whoAmI(expiring)).toEqual({ status: 401, refused: 'oidc: verify token: oidc: token is expired' });
  } finally {
    idp.tokenTtl(600);
  }
  const [header, payload, signature] = (await machineToken(RESOURCE)).split('.');
  const changed = Buffer.from(
    JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'admin' }),
  ).toString('base64url');
  expect(await whoAmI(`${header}.${changed}.${signature}`)).toEqual({
    status: 401,
    refused: 'oidc: verify token: failed to verify signature',
  });
  const stranger = Buffer.from(
    JSON.stringify({
      ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
      iss: 'https://stranger.example.test',
    }),
  ).toString('base64url');
  expect(await whoAmI(`${header}.${stranger}.${signature}`)).toEqual({ status: 401 });
});

it('does not start with an invalid configuration, as the real apiserver does not', async () => {
  const invalid = config();
  invalid.jwt[0]!.claimMappings.username = { claim: 'sub' };
  await expect(startApiServer({ authentication: invalid })).rejects.toThrow(
    '--authentication-config is invalid:\njwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing',
  );
});
