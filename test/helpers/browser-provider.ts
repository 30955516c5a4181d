// A real OIDC server for the browser login (panva's oidc-provider over HTTPS with the test CA): a
// public native client registered for loopback redirects, PKCE (S256) required as for every public
// client, and oidc-provider's own login and consent pages (devInteractions), where the scripted
// browser signs in as a person would.
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { Pki } from './pki.js';
import { decodeJws, verifyJws } from './signed-jwt.js';

export const BROWSER_CLIENT_ID = 'kubectl-browser';
export const BROWSER_ACCOUNT = 'alice';

export interface BrowserProvider {
  issuer: string;
  /** Every request: method, path, the token request's grant_type. */
  requests: Array<{ method: string; path: string; grant?: string }>;
  /** Every code and token it issued, for the leak checks. */
  issued: Set<string>;
  /** Whether `token` is an id_token this server signed for the client and the account. */
  isIdToken: (token: string) => boolean;
  close: () => Promise<void>;
}

/** `redirectUris`: the loopback redirect URIs the client is registered with (exact, as an IdP compares them). */
export async function startBrowserProvider(pki: Pki, redirectUris: string[]): Promise<BrowserProvider> {
  const server: Server = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issued = new Set<string>();
  const requests: BrowserProvider['requests'] = [];
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: BROWSER_CLIENT_ID,
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: redirectUris,
      },
    ] as never,
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['browser-test-cookie-key'] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true }, revocation: { enabled: true } },
    scopes: ['openid', 'offline_access'],
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
    ttl: {
      AccessToken: 600,
      IdToken: 600,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
      AuthorizationCode: 60,
    },
  });
  provider.on('authorization.success', (ctx: { oidc?: { entities?: { AuthorizationCode?: { jti?: string } } } }) => {
    const code = ctx.oidc?.entities?.AuthorizationCode?.jti;
    if (code) issued.add(code);
  });
  provider.on('grant.success', (ctx: { body?: Record<string, unknown> }) => {
    for (const name of ['access_token', 'id_token', 'refresh_token'])
      if (typeof ctx.body?.[name] === 'string') issued.add(ctx.body[name] as string);
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    if (path !== '/token') {
      requests.push({ method: req.method ?? '', path });
      callback(req, res);
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method ?? '', path, grant: new URLSearchParams(body).get('grant_type') ?? '' });
      callback(Object.assign(req, { body }), res);
    });
  });
  return {
    issuer,
    requests,
    issued,
    isIdToken: (token) => {
      const jws = decodeJws(token);
      return (
        jws !== undefined &&
        verifyJws(jws, publicKey) &&
        jws.claims['iss'] === issuer &&
        jws.claims['aud'] === BROWSER_CLIENT_ID &&
        jws.claims['sub'] === BROWSER_ACCOUNT
      );
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
