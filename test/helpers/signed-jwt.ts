// What a token API does with a signed JWT it receives (a client assertion, a JWT bearer grant, a
// projected service-account token): split it, check its signature with a registered public key for
// the algorithm its header names, and remember its jti. Written on node:crypto alone, so the stand-ins
// do not check the plugin's signatures (made with jose) with the same library that made them.
import { constants, sign, verify, type KeyObject } from 'node:crypto';

export interface Jws {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  signingInput: Buffer;
  signature: Buffer;
}

const object = (part: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/** The parts of a compact JWS, or undefined when it is not one. */
export function decodeJws(token: string): Jws | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part))) return undefined;
  const header = object(parts[0]!);
  const claims = object(parts[1]!);
  if (!header || !claims) return undefined;
  return {
    header,
    claims,
    signingInput: Buffer.from(`${parts[0]}.${parts[1]}`),
    signature: Buffer.from(parts[2]!, 'base64url'),
  };
}

/**
 * Whether `key` signed the JWS with the algorithm its header names (RS, PS and ES 256-512, EdDSA):
 * PS with the salt as long as the hash (RFC 7518 §3.5), ES as R || S. `none` and HMAC never pass.
 */
export function verifyJws(jws: Jws, key: KeyObject): boolean {
  const alg = String(jws.header['alg']);
  try {
    if (alg === 'EdDSA')
      return key.asymmetricKeyType === 'ed25519' && verify(null, jws.signingInput, key, jws.signature);
    const match = /^(RS|PS|ES)(256|384|512)$/.exec(alg);
    if (!match) return false;
    const digest = `sha${match[2]}`;
    if (match[1] === 'RS')
      return key.asymmetricKeyType === 'rsa' && verify(digest, jws.signingInput, key, jws.signature);
    if (match[1] === 'PS') {
      return verify(
        digest,
        jws.signingInput,
        { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(match[2]) / 8 },
        jws.signature,
      );
    }
    return (
      key.asymmetricKeyType === 'ec' &&
      verify(digest, jws.signingInput, { key, dsaEncoding: 'ieee-p1363' }, jws.signature)
    );
  } catch {
    return false;
  }
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The `aud` claim as a list (a string or an array of strings). */
export function audiences(claims: Record<string, unknown>): string[] {
  const aud = claims['aud'];
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

/** A server's memory of the jti values it accepted: true the first time a jti is seen, false after. */
export function replayGuard(): (jti: unknown) => boolean {
  const seen = new Set<string>();
  return (jti) => {
    if (typeof jti !== 'string' || jti === '' || seen.has(jti)) return false;
    seen.add(jti);
    return true;
  };
}

/** The URL a request reached, as a token endpoint checks its own address in `aud`. */
export function ownUrl(host: string | undefined, path: string): string {
  return `https://${(host ?? '').replace(/:443$/, '')}${path}`;
}

/**
 * A service-account token as a cluster's issuer signs it (RS256, `kid` optional): for the stand-ins
 * that trust that issuer (Vault's Kubernetes auth, a workload identity pool).
 */
export function signServiceAccountToken(claims: Record<string, unknown>, key: KeyObject, kid?: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', ...(kid === undefined ? {} : { kid }) })}.${part(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}
