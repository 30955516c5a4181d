// jwt(claims, key, options?): a signed JWT for RFC 7523 client assertions (private_key_jwt,
// client_secret_jwt) and JWT bearer grants (Google service-account keys). Signing is jose's; it is
// loaded only when a config calls jwt(). No message here ever holds key material or a claim value.
import { createHash, createPrivateKey, createSecretKey, X509Certificate, type KeyObject } from 'node:crypto';
import { HelperError } from './helper-error.js';

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const HMAC = ['HS256', 'HS384', 'HS512'];
const ALGORITHMS = [...ASYMMETRIC, ...HMAC];
/** RFC 7523 asks for an expiry; servers accept a few minutes at most. */
const DEFAULT_LIFETIME_S = 300;
const CURVES: Record<string, string> = {
  prime256v1: 'ES256',
  'P-256': 'ES256',
  secp384r1: 'ES384',
  'P-384': 'ES384',
  secp521r1: 'ES512',
  'P-521': 'ES512',
};

export interface JwtContext {
  nowMs: () => number;
  uuid: () => string;
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function signJwt(claims: unknown, key: unknown, options: unknown, context: JwtContext): Promise<string> {
  if (!plainObject(claims)) throw new HelperError('jwt() takes the claims as an object, { iss: …, aud: … }');
  if (options !== undefined && !plainObject(options))
    throw new HelperError('jwt() takes its options as an object, { kid: … }');
  const opts = (options ?? {}) as Record<string, unknown>;
  const asked = opts['alg'];
  if (asked !== undefined && (typeof asked !== 'string' || !ALGORITHMS.includes(asked))) {
    throw new HelperError(`jwt(): options.alg must be one of ${ALGORITHMS.join(', ')}`);
  }
  const { keyObject, alg } = signingKey(key, asked as string | undefined);

  const header: Record<string, unknown> = {};
  if (opts['header'] !== undefined) {
    if (!plainObject(opts['header'])) throw new HelperError('jwt(): options.header must be an object');
    // Object.assign would give `__proto__` (an own key of fromJson's objects) to the setter: the
    // header's prototype, whose fields jose reads (b64, crit) but JSON.stringify never writes.
    if (Object.hasOwn(opts['header'], '__proto__'))
      throw new HelperError('jwt(): options.header.__proto__ is not a header field');
    Object.assign(header, opts['header']);
  }
  for (const name of ['kid', 'typ'] as const) {
    if (opts[name] !== undefined) {
      if (typeof opts[name] !== 'string') throw new HelperError(`jwt(): options.${name} must be a string`);
      header[name] = opts[name];
    }
  }
  if (opts['x5t'] !== undefined) header['x5t'] = thumbprint(opts['x5t'], 'sha1', 'x5t');
  if (opts['x5t#S256'] !== undefined) header['x5t#S256'] = thumbprint(opts['x5t#S256'], 'sha256', 'x5t#S256');
  // The algorithm is the key's (or options.alg): a header field cannot change it.
  header['alg'] = alg;

  const now = Math.floor(context.nowMs() / 1000);
  const payload: Record<string, unknown> = { ...claims };
  payload['iat'] ??= now;
  payload['exp'] ??= now + DEFAULT_LIFETIME_S;
  payload['jti'] ??= context.uuid();

  const { SignJWT } = await import('jose');
  try {
    return await new SignJWT(payload).setProtectedHeader(header as { alg: string }).sign(keyObject);
  } catch {
    // jose's messages name the key type and the algorithm at most; ours say the same in our words.
    throw new HelperError(`jwt(): the key cannot sign ${alg}`);
  }
}

function signingKey(key: unknown, asked: string | undefined): { keyObject: KeyObject; alg: string } {
  if (asked !== undefined && HMAC.includes(asked)) {
    if (typeof key !== 'string' || key === '')
      throw new HelperError(`jwt(): ${asked} signs with a shared secret: give the secret as a string`);
    // A private key's text as an HMAC secret would sign with the key itself, for anyone who has it.
    if (key.includes('-----BEGIN') || key.trim().startsWith('{'))
      throw new HelperError(`jwt(): ${asked} signs with a shared secret, and this is a private key or a JWK`);
    return { keyObject: createSecretKey(Buffer.from(key, 'utf8')), alg: asked };
  }
  let keyObject: KeyObject;
  try {
    if (typeof key === 'string' && key.includes('-----BEGIN')) keyObject = createPrivateKey(key);
    else if (typeof key === 'string' && key.trim().startsWith('{'))
      keyObject = createPrivateKey({ key: JSON.parse(key) as never, format: 'jwk' });
    else if (plainObject(key)) keyObject = createPrivateKey({ key: key as never, format: 'jwk' });
    else throw new Error('no key');
  } catch {
    if (typeof key === 'string' && asked === undefined && !key.includes('-----BEGIN') && !key.trim().startsWith('{')) {
      throw new HelperError(
        'jwt(): the key is not a PEM private key or a JWK (for a shared secret, pass { alg: "HS256" })',
      );
    }
    throw new HelperError('jwt(): the key is not a PEM private key (PKCS#8, PKCS#1 or SEC1) or a private JWK');
  }
  const type = keyObject.asymmetricKeyType;
  const natural =
    type === 'rsa'
      ? 'RS256'
      : type === 'rsa-pss'
        ? 'PS256'
        : type === 'ed25519'
          ? 'EdDSA'
          : type === 'ec'
            ? CURVES[keyObject.asymmetricKeyDetails?.namedCurve ?? '']
            : undefined;
  if (natural === undefined) throw new HelperError(`jwt(): a ${type ?? 'key of that'} key cannot sign a JWT`);
  const alg = asked ?? natural;
  const fits =
    (type === 'rsa' && /^(RS|PS)/.test(alg)) ||
    (type === 'rsa-pss' && alg.startsWith('PS')) ||
    (type === 'ec' && alg === natural) ||
    (type === 'ed25519' && alg === 'EdDSA');
  if (!fits) throw new HelperError(`jwt(): the key is ${describeKey(type, natural)}; it cannot sign ${alg}`);
  return { keyObject, alg };
}

function describeKey(type: string | undefined, natural: string): string {
  if (type === 'ec') return `an EC key for ${natural}`;
  if (type === 'ed25519') return 'an Ed25519 key';
  return `an ${type?.toUpperCase() ?? 'unknown'} key`;
}

/** base64url of the certificate's DER digest: the x5t / x5t#S256 header Entra ID matches against. */
function thumbprint(pem: unknown, digest: 'sha1' | 'sha256', option: string): string {
  if (typeof pem !== 'string') throw new HelperError(`jwt(): options["${option}"] takes a certificate (PEM)`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw new HelperError(`jwt(): options["${option}"] is not a PEM certificate`);
  }
  return createHash(digest).update(certificate.raw).digest('base64url');
}
