// A real OAuth 2.0 / OIDC server with the device authorization grant (panva's oidc-provider, its
// features.deviceFlow) and refresh tokens, over HTTPS with the test CA; and a person who approves or
// denies a login through its own verification endpoint (GET /device for the form, POST the
// user_code) and its interaction API (provider.interactionFinished, behind interactions.url).
import { generateKeyPairSync, type KeyPairKeyObjectResult } from 'node:crypto';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import type { TestContext } from 'vitest';
import { CLIENT_ID } from './device-config.js';
import type { Pki } from './pki.js';
import { decodeJws, verifyJws } from './signed-jwt.js';

export const ACCOUNT = 'alice';
/** A confidential client with the client credentials grant: a machine whose access token is a JWT for the RFC 8707 resource it asks for. */
export const MACHINE_ID = 'machine';
export const MACHINE_SECRET = 'machine-secret-7f3a9c1e';

export interface DeviceProvider {
  issuer: string;
  /** Every request the server got: method and path (no query). */
  requests: Array<{ method: string; path: string; grant?: string; at: number }>;
  /** The next `n` polls of the token endpoint are answered slow_down (before the server sees them). */
  slowDown: (n: number) => void;
  /** The device code's lifetime for the next device authorizations, in seconds (600 by default). */
  deviceCodeTtl: (seconds: number) => void;
  /** The lifetime of the next id_tokens and access tokens, in seconds (600 by default). */
  tokenTtl: (seconds: number) => void;
  /** The next `n` refresh grants are answered 503 (an outage) before the server sees them. */
  failRefresh: (n: number) => void;
  /**
   * The next refresh grant is held before the server sees it (its refresh token is not used up):
   * `arrived` once it came, `release()` answers it 503.
   */
  holdRefresh: () => { arrived: Promise<void>; release: () => void };
  /** Revokes a refresh token the server issued: its next use is invalid_grant. */
  revoke: (refreshToken: string) => Promise<void>;
  /** Every device code and token the server issued (access, id, refresh), for the leak checks. */
  issued: Set<string>;
  /** The refresh tokens among them, in the order issued. */
  refreshTokens: string[];
  /** Whether `token` is an id_token this server signed for the client and the account. */
  isIdToken: (token: string) => boolean;
  close: () => Promise<void>;
}

// One signing key for every provider in the process: a 2048-bit RSA key costs some 60 ms of CPU, and
// tests that each start a provider of their own made it again for each (an id_token still names its
// provider by iss, which isIdToken checks; iss holds the port, and a provider started on the port of
// one closed before would take that one's tokens: no test holds a token across providers).
let signingKey: KeyPairKeyObjectResult | undefined;

export async function startDeviceProvider(pki: Pki): Promise<DeviceProvider> {
  const server: Server = createServer({ key: pki.server.key, cert: pki.server.cert });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://localhost:${(server.address() as AddressInfo).port}`;
  const { privateKey, publicKey } = (signingKey ??= generateKeyPairSync('rsa', { modulusLength: 2048 }));
  let ttl = 600;
  let tokenTtl = 600;
  let slowDowns = 0;
  let refreshFailures = 0;
  let refreshHold: { arrive: () => void; released: Promise<void> } | undefined;
  const issued = new Set<string>();
  const refreshTokens: string[] = [];
  const requests: DeviceProvider['requests'] = [];
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        token_endpoint_auth_method: 'none',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: MACHINE_ID,
        client_secret: MACHINE_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ] as never,
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', alg: 'RS256', use: 'sig' }] },
    cookies: { keys: ['device-test-cookie-key'] },
    // RFC 7009 revocation at /token/revocation (logout), and strict rotation: every refresh of this
    // public client rotates its refresh token, and a reuse of a consumed one revokes the whole grant.
    features: {
      deviceFlow: { enabled: true },
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      clientCredentials: { enabled: true },
      // RFC 8707: a `resource` asked for makes the access token a JWT whose aud is that resource.
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'api',
          audience: resource,
          accessTokenTTL: tokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    } as never,
    rotateRefreshToken: true,
    scopes: ['openid', 'offline_access'],
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    ttl: {
      DeviceCode: () => ttl,
      AccessToken: () => tokenTtl,
      IdToken: () => tokenTtl,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
    },
    findAccount: (_ctx: unknown, sub: string) => ({ accountId: sub, claims: () => ({ sub }) }),
  });
  // oidc-provider sends no interval (RFC 8628's default is 5 s): a second, so the tests poll quickly.
  provider.on('device_authorization.success', (_ctx: unknown, body: Record<string, unknown>) => {
    body['interval'] = 1;
    issued.add(body['device_code'] as string);
  });
  provider.on('grant.success', (ctx: { body?: Record<string, unknown> }) => {
    for (const name of ['access_token', 'id_token', 'refresh_token'])
      if (typeof ctx.body?.[name] === 'string') issued.add(ctx.body[name] as string);
    if (typeof ctx.body?.['refresh_token'] === 'string') refreshTokens.push(ctx.body['refresh_token'] as string);
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0]!;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const grant = path === '/token' ? (new URLSearchParams(body).get('grant_type') ?? undefined) : undefined;
      requests.push({ method: req.method ?? '', path, ...(grant ? { grant } : {}), at: Date.now() });
      if (grant === 'urn:ietf:params:oauth:grant-type:device_code' && slowDowns > 0) {
        slowDowns--;
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'slow_down', error_description: 'you are polling too quickly' }));
        return;
      }
      if (grant === 'refresh_token' && refreshHold) {
        const { arrive, released } = refreshHold;
        refreshHold = undefined;
        arrive();
        void released.then(() => {
          res.writeHead(503, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'temporarily_unavailable' }));
        });
        return;
      }
      if (grant === 'refresh_token' && refreshFailures > 0) {
        refreshFailures--;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'temporarily_unavailable' }));
        return;
      }
      if (path.startsWith('/interaction/')) {
        void finishInteraction(provider, req, res);
        return;
      }
      // The body was read here: oidc-provider takes it as req.body (a string) from a request no longer readable.
      callback(Object.assign(req, { body }), res);
    });
  });
  return {
    issuer,
    requests,
    slowDown: (n) => void (slowDowns = n),
    deviceCodeTtl: (seconds) => void (ttl = seconds),
    tokenTtl: (seconds) => void (tokenTtl = seconds),
    failRefresh: (n) => void (refreshFailures = n),
    holdRefresh: () => {
      let arrive = () => {};
      let release = () => {};
      const arrived = new Promise<void>((resolve) => (arrive = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      refreshHold = { arrive, released };
      return { arrived, release };
    },
    revoke: async (refreshToken) => {
      const found = await (
        provider as unknown as {
          RefreshToken: { find: (value: string) => Promise<{ destroy: () => Promise<void> } | undefined> };
        }
      ).RefreshToken.find(refreshToken);
      if (!found) throw new Error('no such refresh token');
      await found.destroy();
    },
    issued,
    refreshTokens,
    isIdToken: (token) => {
      const jws = decodeJws(token);
      return (
        jws !== undefined &&
        verifyJws(jws, publicKey) &&
        jws.claims['iss'] === issuer &&
        jws.claims['aud'] === CLIENT_ID &&
        jws.claims['sub'] === ACCOUNT
      );
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A device provider of one test's own, closed when that test finishes: no other test reads its
 * requests or sets its lifetimes, so the tests that wait on its clock can wait at the same time.
 */
export async function ownDeviceProvider(
  pki: Pki,
  onTestFinished: TestContext['onTestFinished'],
): Promise<DeviceProvider> {
  const idp = await startDeviceProvider(pki);
  onTestFinished(() => idp.close());
  return idp;
}

/** interactions.url: the person logs in as ACCOUNT and grants openid and offline_access to the client. */
async function finishInteraction(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = (await provider.interactionDetails(req, res)) as { params: { client_id: string } };
    const grant = new provider.Grant({ accountId: ACCOUNT, clientId: details.params.client_id });
    grant.addOIDCScope('openid offline_access');
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: ACCOUNT }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  } catch (error) {
    res.writeHead(500);
    res.end(String(error));
  }
}

/** A person with a browser: cookies kept by name, redirects followed, forms posted. */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(private readonly ca: string) {}

  async go(
    url: string,
    method = 'GET',
    form?: Record<string, string>,
  ): Promise<{ status: number; body: string; url: string }> {
    for (let hops = 0; hops < 10; hops++) {
      const answer = await this.once(url, method, form);
      const location = answer.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        url = new URL(location, url).toString();
        method = 'GET';
        form = undefined;
        continue;
      }
      return { status: answer.status, body: answer.body, url };
    }
    throw new Error('too many redirects');
  }

  private once(
    url: string,
    method: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; body: string; location?: string }> {
    const body = form ? new URLSearchParams(form).toString() : undefined;
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          ca: this.ca,
          headers: {
            ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
            cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          },
        },
        (res) => {
          for (const cookie of res.headers['set-cookie'] ?? []) {
            const [pair] = cookie.split(';');
            const at = pair!.indexOf('=');
            this.cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
          }
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              body: text,
              ...(res.headers.location ? { location: res.headers.location } : {}),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}

/**
 * The person at the verification page: opens it, types the user_code, and confirms (approve) or
 * aborts (deny). Returns the last page, for assertion messages.
 */
export async function actAsPerson(
  verificationUri: string,
  userCode: string,
  ca: string,
  decision: 'approve' | 'deny',
): Promise<{ status: number; body: string; url: string }> {
  const browser = new Browser(ca);
  const page = await browser.go(verificationUri);
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.body)?.[1];
  if (!xsrf) throw new Error(`no xsrf on the verification page: ${page.status} ${page.body.slice(0, 300)}`);
  const action = new URL(verificationUri);
  action.search = '';
  return browser.go(action.toString(), 'POST', {
    xsrf,
    user_code: userCode,
    ...(decision === 'approve' ? { confirm: 'yes' } : { abort: 'yes' }),
  });
}
