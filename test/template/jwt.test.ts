// jwt(): every algorithm and key format the SPEC lists, each signature checked by jose against the
// public key; the header fields; the claims added when absent; errors that never show the key.
import { createHash, createSecretKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';
import { HelperError } from '../../src/template/helper-error.js';
import { signJwt } from '../../src/template/jwt.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { makePki } from '../helpers/pki.js';

const NOW = 1_800_000_000_000;
const context = { nowMs: () => NOW, uuid: () => 'a4b1c2d3-0000-4000-8000-000000000001' };
const CLAIMS = { iss: 'client-1', sub: 'client-1', aud: 'https://idp.example/token' };

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve });
const p256 = ec('prime256v1');
const p384 = ec('secp384r1');
const p521 = ec('secp521r1');
const ed = generateKeyPairSync('ed25519');

const pem = (key: KeyObject, type: 'pkcs8' | 'pkcs1' | 'sec1') => key.export({ format: 'pem', type }) as string;
const jwk = (key: KeyObject) => key.export({ format: 'jwk' });

async function verified(token: string, publicKey: KeyObject | Uint8Array, alg: string) {
  const { payload, protectedHeader } = await jwtVerify(token, publicKey, {
    algorithms: [alg],
    currentDate: new Date(NOW),
  });
  return { payload, protectedHeader };
}

describe('jwt() signs', () => {
  it.each([
    ['an RSA key in PKCS#8', () => pem(rsa.privateKey, 'pkcs8'), rsa.publicKey, 'RS256'],
    ['an RSA key in PKCS#1', () => pem(rsa.privateKey, 'pkcs1'), rsa.publicKey, 'RS256'],
    ['an RSA key as a JWK object', () => jwk(rsa.privateKey), rsa.publicKey, 'RS256'],
    ['an RSA key as JWK text', () => JSON.stringify(jwk(rsa.privateKey)), rsa.publicKey, 'RS256'],
    ['a P-256 key in SEC1', () => pem(p256.privateKey, 'sec1'), p256.publicKey, 'ES256'],
    ['a P-256 key in PKCS#8', () => pem(p256.privateKey, 'pkcs8'), p256.publicKey, 'ES256'],
    ['a P-384 key', () => pem(p384.privateKey, 'sec1'), p384.publicKey, 'ES384'],
    ['a P-521 key', () => jwk(p521.privateKey), p521.publicKey, 'ES512'],
    ['an Ed25519 key', () => pem(ed.privateKey, 'pkcs8'), ed.publicKey, 'EdDSA'],
  ])('with %s, the algorithm following the key', async (_name, key, publicKey, alg) => {
    const token = await signJwt(CLAIMS, key(), undefined, context);
    const { payload, protectedHeader } = await verified(token, publicKey, alg);
    expect(protectedHeader).toEqual({ alg });
    expect(payload).toEqual({ ...CLAIMS, iat: NOW / 1000, exp: NOW / 1000 + 300, jti: context.uuid() });
  });

  it.each(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'])('with an RSA key and options.alg %s', async (alg) => {
    const token = await signJwt(CLAIMS, pem(rsa.privateKey, 'pkcs8'), { alg }, context);
    expect((await verified(token, rsa.publicKey, alg)).protectedHeader.alg).toBe(alg);
  });

  it.each(['HS256', 'HS384', 'HS512'])('with a shared secret and %s (client_secret_jwt)', async (alg) => {
    const secret = 'a shared client secret of 64 characters for HMAC, long enough!!';
    const token = await signJwt(CLAIMS, secret, { alg }, context);
    expect((await verified(token, createSecretKey(Buffer.from(secret)), alg)).payload['iss']).toBe('client-1');
  });

  it('keeps iat, exp and jti that the claims give', async () => {
    const claims = { ...CLAIMS, iat: 1_799_999_990, exp: 1_800_000_060, jti: 'given' };
    const token = await signJwt(claims, pem(p256.privateKey, 'sec1'), undefined, context);
    expect((await verified(token, p256.publicKey, 'ES256')).payload).toEqual(claims);
  });

  it('puts kid, typ, extra header fields and the certificate thumbprints in the header', async () => {
    const pki = makePki();
    const certificate = readFileSync(pki.ca.certFile, 'utf8');
    // RFC 7515 4.1.7/4.1.8: base64url of the digest of the DER, here read from the PEM by hand.
    const der = Buffer.from(certificate.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    const fingerprint = (digest: string) => createHash(digest).update(der).digest('base64url');
    const token = await signJwt(
      CLAIMS,
      pem(rsa.privateKey, 'pkcs8'),
      { kid: 'key-1', typ: 'JWT', x5t: certificate, 'x5t#S256': certificate, header: { cty: 'x', alg: 'none' } },
      context,
    );
    expect(decodeProtectedHeader(token)).toEqual({
      cty: 'x',
      kid: 'key-1',
      typ: 'JWT',
      x5t: fingerprint('sha1'),
      'x5t#S256': fingerprint('sha256'),
      alg: 'RS256',
    });
    await verified(token, rsa.publicKey, 'RS256');
  });
});

describe('jwt() refuses', () => {
  const rsaPem = pem(rsa.privateKey, 'pkcs8');
  it.each([
    ['an RSA key for ES256', CLAIMS, rsaPem, { alg: 'ES256' }, 'jwt(): the key is an RSA key; it cannot sign ES256'],
    [
      'a P-256 key for ES384',
      CLAIMS,
      pem(p256.privateKey, 'sec1'),
      { alg: 'ES384' },
      'jwt(): the key is an EC key for ES256; it cannot sign ES384',
    ],
    [
      'an Ed25519 key for RS256',
      CLAIMS,
      pem(ed.privateKey, 'pkcs8'),
      { alg: 'RS256' },
      'jwt(): the key is an Ed25519 key; it cannot sign RS256',
    ],
    [
      'an unknown algorithm',
      CLAIMS,
      rsaPem,
      { alg: 'none' },
      'jwt(): options.alg must be one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA, HS256, HS384, HS512',
    ],
    [
      'a secret without an HMAC algorithm',
      CLAIMS,
      'just-a-secret-value',
      undefined,
      'jwt(): the key is not a PEM private key or a JWK (for a shared secret, pass { alg: "HS256" })',
    ],
    [
      'a broken PEM',
      CLAIMS,
      '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----\n',
      undefined,
      'jwt(): the key is not a PEM private key (PKCS#8, PKCS#1 or SEC1) or a private JWK',
    ],
    [
      'a public JWK',
      CLAIMS,
      jwk(rsa.publicKey),
      undefined,
      'jwt(): the key is not a PEM private key (PKCS#8, PKCS#1 or SEC1) or a private JWK',
    ],
    [
      'a private key asked to sign HS256 (its text would become the secret)',
      CLAIMS,
      rsaPem,
      { alg: 'HS256' },
      'jwt(): HS256 signs with a shared secret, and this is a private key or a JWK',
    ],
    [
      'an HMAC algorithm without a string secret',
      CLAIMS,
      jwk(rsa.privateKey),
      { alg: 'HS256' },
      'jwt(): HS256 signs with a shared secret: give the secret as a string',
    ],
    [
      'claims that are not an object',
      'iss',
      rsaPem,
      undefined,
      'jwt() takes the claims as an object, { iss: …, aud: … }',
    ],
    [
      "a header field that would set the header's prototype (an own key of fromJson's objects)",
      CLAIMS,
      rsaPem,
      JSON.parse('{"header":{"__proto__":{"b64":false,"crit":["b64"]}}}'),
      'jwt(): options.header.__proto__ is not a header field',
    ],
    [
      'a thumbprint of something that is no certificate',
      CLAIMS,
      rsaPem,
      { x5t: 'not a certificate' },
      'jwt(): options["x5t"] is not a PEM certificate',
    ],
  ])('%s, in a message that holds no key material', async (_name, claims, key, options, message) => {
    const error = await signJwt(claims, key, options, context).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(HelperError);
    expect((error as Error).message).toBe(message);
    expect((error as Error).cause).toBeUndefined();
  });
});

describe('jwt() in a template', () => {
  it('is a secret and volatile, and reads its key from a file', async () => {
    const redactor = new Redactor();
    const key = pem(p256.privateKey, 'pkcs8');
    const renderer = new TemplateRenderer(
      {
        env: { CLIENT_ID: 'client-7' },
        vars: {},
        cluster: undefined,
        readFile: () => key,
        nowMs: () => NOW,
        uuid: context.uuid,
      },
      redactor,
    );
    const token = (
      await renderer.render(
        '{{ jwt({ iss: env.CLIENT_ID, aud: "https://idp/token" }, file("/key.pem"), { kid: "k1" }) }}',
        'webAPIProviderConfig.form.client_assertion',
      )
    ).sent;
    renderer.finish();
    expect((await verified(token, p256.publicKey, 'ES256')).protectedHeader).toEqual({ alg: 'ES256', kid: 'k1' });
    expect(renderer.volatile).toBe(true);
    expect(redactor.redact(`assertion=${token}`)).toBe('assertion=[REDACTED]');
    expect(redactor.redact(key)).not.toContain('PRIVATE KEY-----\nM');
  });

  it('names jwt() and the field when the key cannot sign: exit 2 material, no key in it', async () => {
    const redactor = new Redactor();
    const key = pem(rsa.privateKey, 'pkcs8');
    const renderer = new TemplateRenderer(
      { env: {}, vars: {}, cluster: undefined, readFile: () => key, nowMs: Date.now, uuid: randomUUID },
      redactor,
    );
    await renderer.render(
      '{{ jwt({ iss: "a" }, file("/key.pem"), { alg: "ES256" }) }}',
      'webAPIProviderConfig.form.client_assertion',
    );
    let message = '';
    try {
      renderer.finish();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      'webAPIProviderConfig.form.client_assertion: {{ jwt({ iss: "a" }, file("/key.pem"), { alg: "ES256" }) }}: jwt(): the key is an RSA key; it cannot sign ES256',
    );
  });
});
