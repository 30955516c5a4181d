// RFC 7523 client assertions as two token endpoints check them: Keycloak's "Signed JWT" client
// authenticator (private_key_jwt, keys registered as a JWK set) and Microsoft Entra ID's certificate
// credentials (a registered certificate, found by its thumbprint in the header). Each check returns
// the refusal the server would send, in the order the server checks, or undefined for a good
// assertion; each remembers the jti values it accepted and refuses them again, so a pre-signed
// assertion works once.
import { createHash, createPublicKey, X509Certificate, type JsonWebKey, type KeyObject } from 'node:crypto';
import { audiences, decodeJws, nowSeconds, replayGuard, verifyJws } from './signed-jwt.js';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

interface Refusal {
  status: number;
  error: string;
  description: string;
}

/** The client's assertion parameters; `url` is the address the request reached (the token endpoint). */
export type AssertionCheck = (body: URLSearchParams, url: string) => Refusal | undefined;

/**
 * Keycloak's JWTClientAuthenticator for the client `clientId` whose Keys tab holds `keys` (public
 * JWKs): the header's kid picks the key (no kid: the first, as Keycloak does); `aud` must name the realm
 * (its issuer) or its token endpoint, once; `exp` and `jti` are required, a jti is used once.
 * `url` is the realm's token endpoint.
 */
export function keycloakSignedJwt(clientId: string, keys: JsonWebKey[]): AssertionCheck {
  const fresh = replayGuard();
  const registered = keys.map((jwk) => ({
    kid: jwk.kid as string | undefined,
    key: createPublicKey({ key: jwk, format: 'jwk' }),
  }));
  const refuse = (description: string): Refusal => ({ status: 400, error: 'invalid_client', description });
  return (body, url) => {
    const type = body.get('client_assertion_type');
    if (type === null) return refuse('Parameter client_assertion_type is missing');
    if (type !== CLIENT_ASSERTION_TYPE)
      return refuse(`Parameter client_assertion_type has value '${type}' but expected is '${CLIENT_ASSERTION_TYPE}'`);
    const assertion = body.get('client_assertion');
    if (assertion === null) return refuse('client_assertion parameter missing');
    const jws = decodeJws(assertion);
    if (!jws) return refuse('Client authentication with signed JWT failed: the assertion is not a JWS');
    const { sub, iss, exp, nbf, iat, jti } = jws.claims;
    if (typeof sub !== 'string') return refuse('Token sub claim is required');
    if (body.has('client_id') && body.get('client_id') !== sub)
      return refuse('client_id parameter does not match sub claim');
    if (iss !== sub || sub !== clientId)
      return { status: 401, error: 'unauthorized_client', description: 'Invalid client or Invalid client credentials' };
    const alg = String(jws.header['alg']);
    if (alg === 'none' || alg.startsWith('HS')) return refuse('Invalid signature algorithm');
    const kid = jws.header['kid'];
    const found = kid === undefined ? registered[0] : registered.find((r) => r.kid === kid);
    if (!found) return refuse('Unable to load public key');
    if (!verifyJws(jws, found.key))
      return refuse('Client authentication with signed JWT failed: Signature on JWT token failed validation');
    const issuer = url.replace(/\/protocol\/openid-connect\/token$/, '');
    const aud = audiences(jws.claims);
    if (!aud.some((a) => a === issuer || a === url)) return refuse('Invalid token audience');
    if (aud.length > 1) return refuse('Multiple audiences not allowed');
    const now = nowSeconds();
    if (typeof exp !== 'number') return refuse('Token exp claim is required');
    if (exp <= now || (typeof nbf === 'number' && nbf > now)) return refuse('Token is not active');
    if (typeof iat === 'number' && iat > now + 10) return refuse('Token was issued in the future');
    if (jti === undefined) return refuse('Token jti claim is required');
    if (!fresh(jti)) return refuse('Token reuse detected');
    return undefined;
  };
}

/**
 * Microsoft Entra ID's certificate credentials for the application `clientId` with the certificate
 * `certificatePem` uploaded: `iss` and `sub` are the application, the header's `x5t#S256` (or the
 * older SHA-1 `x5t`) names the certificate, its key verifies the RS256 or PS256 signature, `aud` is
 * the token endpoint, `nbf`..`exp` holds now, and a jti is used once.
 */
export function entraCertificate(clientId: string, certificatePem: string): AssertionCheck {
  const fresh = replayGuard();
  const certificate = new X509Certificate(certificatePem);
  const thumbprint = (digest: string) => createHash(digest).update(certificate.raw).digest('base64url');
  const registered = { 'x5t#S256': thumbprint('sha256'), x5t: thumbprint('sha1') };
  const key: KeyObject = certificate.publicKey;
  const refuse = (description: string, status = 401): Refusal => ({ status, error: 'invalid_client', description });
  return (body, url) => {
    if (body.get('client_assertion_type') !== CLIENT_ASSERTION_TYPE) {
      return refuse(
        `AADSTS50027: JWT token is invalid or malformed. client_assertion_type must be ${CLIENT_ASSERTION_TYPE}.`,
        400,
      );
    }
    const jws = decodeJws(body.get('client_assertion') ?? '');
    if (!jws) return refuse('AADSTS50027: JWT token is invalid or malformed.', 400);
    const { iss, sub, aud, exp, nbf, jti } = jws.claims;
    if (iss !== clientId || sub !== clientId || body.get('client_id') !== clientId) {
      return refuse("AADSTS700021: Client assertion application identifier doesn't match 'client_id' parameter.", 400);
    }
    const named =
      jws.header['x5t#S256'] !== undefined
        ? jws.header['x5t#S256'] === registered['x5t#S256']
        : jws.header['x5t'] === registered.x5t;
    if (!named)
      return refuse('AADSTS700027: Client assertion contains an invalid signature. [Reason - The key was not found.]');
    if (!['RS256', 'PS256'].includes(String(jws.header['alg'])) || !verifyJws(jws, key)) {
      return refuse(
        'AADSTS700027: Client assertion contains an invalid signature. [Reason - The signature does not verify.]',
      );
    }
    if (aud !== url) return refuse('AADSTS700023: Client assertion audience claim does not match Realm issuer.', 400);
    const now = nowSeconds();
    if (typeof exp !== 'number' || exp <= now || (typeof nbf === 'number' && nbf > now + 300)) {
      return refuse('AADSTS700024: Client assertion is not within its valid time range.', 400);
    }
    // Entra ID documents jti as required; the number of its replay error is not documented.
    if (!fresh(jti)) return refuse('Client assertion was used before: its jti is not new.', 400);
    return undefined;
  };
}
