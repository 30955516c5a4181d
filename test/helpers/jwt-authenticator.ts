// The stand-in apiserver's jwt authenticators, applying an AuthenticationConfiguration as
// k8s.io/apiserver plugin/pkg/authenticator/token/oidc (oidc.go) does: the authenticator whose
// issuer.url is the token's (unverified) iss, byte for byte, takes it; the issuer's keys come from
// <url>/.well-known/openid-configuration (or discoveryURL), whose issuer must be the url, and its
// jwks_uri, over TLS trusting certificateAuthority (else the system roots); RS256 only (the
// default of SupportedSigningAlgs); one of audiences in aud; exp not passed, nbf with go-oidc's five
// minutes of leeway; username = prefix + the claim's string (email needs email_verified not false);
// groups = prefix + each of the claim's string or strings.
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { get } from 'node:https';
import type { AuthenticationConfiguration, JwtAuthenticator } from './authentication-config.js';
import type { UserInfo } from './apiserver.js';
import { audiences, decodeJws, verifyJws } from './signed-jwt.js';

const NBF_LEEWAY_S = 300;

/** A user, or why the token was refused (undefined: no authenticator's issuer: the token is not theirs). */
export type JwtOutcome = { user: UserInfo } | { refused: string } | undefined;

export function jwtAuthenticators(config: AuthenticationConfiguration): (token: string) => Promise<JwtOutcome> {
  const keys = new Map<string, Promise<JsonWebKey[]>>();
  return async (token) => {
    const jws = decodeJws(token);
    if (!jws) return undefined;
    const { header, claims } = jws;
    const authenticator = config.jwt.find((a) => a.issuer.url === claims['iss']);
    if (!authenticator) return undefined;
    const url = authenticator.issuer.url;
    if (!keys.has(url)) keys.set(url, issuerKeys(authenticator));
    let jwks: JsonWebKey[];
    try {
      jwks = await keys.get(url)!;
    } catch (error) {
      keys.delete(url);
      return { refused: `oidc: authenticator for issuer ${url} is not initialized: ${(error as Error).message}` };
    }
    if (header['alg'] !== 'RS256')
      return { refused: `oidc: verify token: unsupported signing alg ${String(header['alg'])}` };
    const key = jwks.find((k) => header['kid'] === undefined || (k as { kid?: string }).kid === header['kid']);
    const signed = key !== undefined && verifyJws(jws, createPublicKey({ key, format: 'jwk' }));
    if (!signed) return { refused: 'oidc: verify token: failed to verify signature' };
    return mapClaims(authenticator, claims);
  };
}

function mapClaims(authenticator: JwtAuthenticator, claims: Record<string, unknown>): JwtOutcome {
  const aud = audiences(claims);
  if (!authenticator.issuer.audiences.some((a) => aud.includes(a)))
    return {
      refused: `oidc: verify token: oidc: expected audience in ${JSON.stringify(authenticator.issuer.audiences)} got ${JSON.stringify(aud)}`,
    };
  const now = Date.now() / 1000;
  if (typeof claims['exp'] !== 'number' || now > claims['exp'])
    return { refused: 'oidc: verify token: oidc: token is expired' };
  if (typeof claims['nbf'] === 'number' && now + NBF_LEEWAY_S < claims['nbf'])
    return { refused: 'oidc: verify token: oidc: current time before the nbf (not before) time' };
  const { username, groups } = authenticator.claimMappings;
  const name = claims[username.claim!];
  if (typeof name !== 'string') return { refused: `oidc: parse username claims ${JSON.stringify(username.claim)}` };
  if (username.claim === 'email' && claims['email_verified'] === false) return { refused: 'oidc: email not verified' };
  const found = groups?.claim !== undefined ? claims[groups.claim] : undefined;
  const list =
    typeof found === 'string'
      ? [found]
      : Array.isArray(found)
        ? found.filter((g): g is string => typeof g === 'string')
        : [];
  return {
    user: {
      username: `${username.prefix ?? ''}${name}`,
      groups: [...list.map((g) => `${groups?.prefix ?? ''}${g}`), 'system:authenticated'],
    },
  };
}

async function issuerKeys(authenticator: JwtAuthenticator): Promise<JsonWebKey[]> {
  const { url, discoveryURL, certificateAuthority } = authenticator.issuer;
  const document = (await fetchJson(
    discoveryURL ?? `${url.replace(/\/+$/, '')}/.well-known/openid-configuration`,
    certificateAuthority,
  )) as { issuer?: string; jwks_uri?: string };
  if (document.issuer !== url)
    throw new Error(
      `oidc: issuer did not match the issuer returned by provider, expected ${JSON.stringify(url)} got ${JSON.stringify(document.issuer)}`,
    );
  const jwks = (await fetchJson(document.jwks_uri ?? '', certificateAuthority)) as { keys?: JsonWebKey[] };
  return jwks.keys ?? [];
}

function fetchJson(url: string, ca: string | undefined): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const request = get(url, { ...(ca !== undefined ? { ca } : {}), timeout: 10_000 }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => {
        if (response.statusCode !== 200) return reject(new Error(`${url} answered ${response.statusCode}`));
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    request.on('timeout', () => request.destroy(new Error(`${url} did not answer`)));
    request.on('error', reject);
  });
}
