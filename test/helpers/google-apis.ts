// Stand-ins of Google's token APIs for examples/google-*: the OAuth 2.0 token endpoint's JWT bearer
// grant (a service-account key), and workload identity federation's two calls (the Security Token
// Service's token exchange, then IAM Credentials' generateAccessToken). Each checks what Google
// checks: signatures with the registered public keys, the key id, `aud`, `iss`, the time claims, that
// a federated token is one the STS issued and that its principal may impersonate the service account.
// They check the host too (the examples reach them through a CONNECT proxy by their real names), and
// refuse a jti seen before, which Google does not document: RFC 7523 allows it, and a stricter
// stand-in proves the plugin signs a fresh assertion for every call.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import {
  ACCESS_TOKEN_TYPE,
  ID_TOKEN_TYPE,
  JWT_TOKEN_TYPE,
  TOKEN_EXCHANGE,
  form,
  jsonBody,
  mediaType,
  oauthError,
} from './provider-apis.js';
import { audiences, decodeJws, nowSeconds, ownUrl, replayGuard, verifyJws } from './signed-jwt.js';
import { json, type Handler } from './token-api.js';

export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
export const CLOUD_PLATFORM = 'https://www.googleapis.com/auth/cloud-platform';
export const USERINFO_EMAIL = 'https://www.googleapis.com/auth/userinfo.email';

const accessToken = (kind: string) => `ya29.${kind}.${randomBytes(24).toString('base64url')}`;
/** Google's JSON error (google.rpc.Status), as its REST APIs answer. */
const googleError = (response: ServerResponse, code: number, status: string, message: string) =>
  json(response, code, { error: { code, message, status } });
const host = (value: string | undefined) => (value ?? '').replace(/:443$/, '');

export interface ServiceAccountKeyFile {
  private_key_id: string;
  private_key: string;
  client_email: string;
  token_uri: string;
  [field: string]: string;
}

/** A service-account key file's fields as the console downloads them, and the public half Google keeps. */
export function serviceAccountKey(
  clientEmail: string,
  overrides: Record<string, string> = {},
): { fields: ServiceAccountKeyFile; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const fields = {
    type: 'service_account',
    project_id: clientEmail.split('@')[1]!.split('.')[0]!,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '104589273451234567890',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
    auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
    client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
    universe_domain: 'googleapis.com',
    ...overrides,
  };
  return { fields, publicKey };
}

/** A service-account key's part Google keeps: the account, and the public half of each key by id. */
export interface ServiceAccount {
  clientEmail: string;
  keys: Record<string, KeyObject>;
}

/**
 * https://oauth2.googleapis.com/token, JWT bearer grant (RFC 7523 §2.1) of a service-account key:
 * an RS256 assertion whose kid names a key of the account in `iss`, `aud` the token endpoint, `iat`
 * and `exp` at most an hour apart around now, and `scope`. Answers an opaque access token.
 */
export function googleOAuth(account: ServiceAccount, issued: string[]): Handler {
  const fresh = replayGuard();
  return (request, response) => {
    if (host(request.headers.host) !== 'oauth2.googleapis.com' || request.path !== '/token')
      return json(response, 404, { error: 'not_found' });
    if (request.method !== 'POST') return json(response, 405, { error: 'method_not_allowed' });
    const body = mediaType(request) === 'application/x-www-form-urlencoded' ? form(request) : new URLSearchParams();
    const grant = body.get('grant_type');
    if (grant === null)
      return oauthError(response, 400, 'invalid_request', 'Required parameter is missing: grant_type');
    if (grant !== JWT_BEARER)
      return oauthError(response, 400, 'unsupported_grant_type', `Invalid grant_type: ${grant}`);
    const jws = decodeJws(body.get('assertion') ?? '');
    if (!jws) return oauthError(response, 400, 'invalid_grant', 'Invalid JWT: the assertion is not a signed JWT.');
    const { iss, iat, exp, scope, jti } = jws.claims;
    if (iss !== account.clientEmail)
      return oauthError(response, 400, 'invalid_grant', 'Invalid grant: account not found');
    const key = account.keys[String(jws.header['kid'])];
    if (jws.header['alg'] !== 'RS256' || !key || !verifyJws(jws, key))
      return oauthError(response, 400, 'invalid_grant', 'Invalid JWT Signature.');
    if (audiences(jws.claims).join(' ') !== ownUrl(request.headers.host, request.path))
      return oauthError(response, 400, 'invalid_grant', 'Invalid JWT: Failed audience check.');
    const now = nowSeconds();
    if (typeof iat !== 'number' || typeof exp !== 'number' || iat > now + 60 || exp <= now || exp - iat > 3600) {
      return oauthError(
        response,
        400,
        'invalid_grant',
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      );
    }
    if (!fresh(jti)) return oauthError(response, 400, 'invalid_grant', 'Invalid JWT: this jti was used before.');
    const scopes = typeof scope === 'string' ? scope.split(' ').filter((s) => s !== '') : [];
    if (scopes.length === 0 || scopes.some((s) => !s.startsWith('https://www.googleapis.com/auth/'))) {
      return oauthError(response, 400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
    }
    const token = accessToken('c');
    issued.push(token);
    return json(response, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  };
}

/** A workload identity pool's OIDC provider, trusting a Kubernetes cluster's service-account issuer. */
export interface WorkloadIdentityProvider {
  projectNumber: string;
  pool: string;
  provider: string;
  /** The cluster's issuer URL and the public key of its service-account signing key (the provider's JWKS). */
  issuer: string;
  issuerKey: KeyObject;
}

/** The provider's full resource name: STS's `audience`. */
export const providerName = (p: WorkloadIdentityProvider) =>
  `//iam.googleapis.com/projects/${p.projectNumber}/locations/global/workloadIdentityPools/${p.pool}/providers/${p.provider}`;
/** The audience an OIDC provider accepts in a subject token by default. */
export const defaultAudience = (p: WorkloadIdentityProvider) => `https:${providerName(p)}`;

/**
 * sts.googleapis.com's POST /v1/token (RFC 8693, form fields as Google documents them, no
 * Authorization header) and iamcredentials.googleapis.com's POST
 * /v1/projects/-/serviceAccounts/<email>:generateAccessToken (the STS token as bearer, JSON
 * {scope: [...], lifetime}), for one provider whose `subject` (google.subject = assertion.sub) may
 * impersonate `serviceAccount` (roles/iam.workloadIdentityUser). The STS's tokens go to `federatedTokens`.
 */
export function googleWorkloadIdentity(
  expected: WorkloadIdentityProvider & { subject: string; serviceAccount: string },
  issued: string[],
  federatedTokens: string[] = [],
): Handler {
  const federated = new Map<string, string>();
  const sts: Handler = (request, response) => {
    if (request.method !== 'POST') return json(response, 405, { error: 'method_not_allowed' });
    if (request.headers.authorization !== undefined)
      return oauthError(response, 400, 'invalid_request', 'The request must not carry an Authorization header.');
    const body = mediaType(request) === 'application/x-www-form-urlencoded' ? form(request) : new URLSearchParams();
    if (body.get('grant_type') !== TOKEN_EXCHANGE)
      return oauthError(response, 400, 'unsupported_grant_type', 'Invalid value for "grant_type".');
    if (body.get('audience') !== providerName(expected)) {
      return oauthError(
        response,
        400,
        'invalid_target',
        'The target service indicated by the "audience" parameters is invalid. This might either be because the pool or provider is disabled or deleted or because it doesn\'t exist.',
      );
    }
    if (!body.get('scope')) return oauthError(response, 400, 'invalid_scope', 'Scope is required.');
    if (body.get('requested_token_type') !== ACCESS_TOKEN_TYPE)
      return oauthError(response, 400, 'invalid_request', 'Invalid value for "requested_token_type".');
    if (![JWT_TOKEN_TYPE, ID_TOKEN_TYPE].includes(body.get('subject_token_type') ?? ''))
      return oauthError(response, 400, 'invalid_request', 'Invalid value for "subject_token_type".');
    const jws = decodeJws(body.get('subject_token') ?? '');
    if (!jws || jws.header['alg'] !== 'RS256' || !verifyJws(jws, expected.issuerKey))
      return oauthError(
        response,
        400,
        'invalid_grant',
        "The ID Token signature could not be verified with the provider's keys.",
      );
    const { iss, sub, exp } = jws.claims;
    if (iss !== expected.issuer)
      return oauthError(response, 400, 'invalid_grant', 'The issuer in ID Token does not match the expected ones.');
    if (!audiences(jws.claims).includes(defaultAudience(expected)))
      return oauthError(
        response,
        400,
        'invalid_grant',
        'The audience in ID Token does not match the expected audience.',
      );
    if (typeof exp !== 'number' || exp <= nowSeconds())
      return oauthError(response, 400, 'invalid_grant', 'ID Token expired.');
    if (typeof sub !== 'string') return oauthError(response, 400, 'invalid_grant', 'The ID Token has no sub claim.');
    const token = accessToken('d');
    federated.set(token, sub);
    federatedTokens.push(token);
    return json(response, 200, {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 3599,
    });
  };
  const generateAccessToken =
    (email: string): Handler =>
    (request, response) => {
      if (request.method !== 'POST') return googleError(response, 405, 'METHOD_NOT_ALLOWED', 'Method not allowed.');
      const principal = federated.get(/^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '');
      if (principal === undefined) {
        return googleError(
          response,
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        );
      }
      if (email !== expected.serviceAccount || principal !== expected.subject) {
        return googleError(
          response,
          403,
          'PERMISSION_DENIED',
          "Permission 'iam.serviceAccounts.getAccessToken' denied on resource (or it may not exist).",
        );
      }
      const body = mediaType(request) === 'application/json' ? jsonBody(request) : undefined;
      if (body === undefined) return googleError(response, 400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.');
      const scope = body['scope'];
      if (!Array.isArray(scope) || scope.length === 0 || scope.some((s) => typeof s !== 'string' || s === ''))
        return googleError(response, 400, 'INVALID_ARGUMENT', 'Scope required.');
      const lifetime =
        body['lifetime'] === undefined ? 3600 : Number(/^(\d+)s$/.exec(String(body['lifetime']))?.[1] ?? NaN);
      if (!(lifetime >= 1 && lifetime <= 3600))
        return googleError(response, 400, 'INVALID_ARGUMENT', 'The lifetime must be between 1s and 3600s.');
      const token = accessToken('c');
      issued.push(token);
      const expireTime = new Date((nowSeconds() + lifetime) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      return json(response, 200, { accessToken: token, expireTime });
    };
  return (request, response) => {
    const at = host(request.headers.host);
    if (at === 'sts.googleapis.com' && request.path === '/v1/token') return sts(request, response);
    const email = /^\/v1\/projects\/-\/serviceAccounts\/([^/:]+):generateAccessToken$/.exec(request.path)?.[1];
    if (at === 'iamcredentials.googleapis.com' && email !== undefined)
      return generateAccessToken(decodeURIComponent(email))(request, response);
    return googleError(response, 404, 'NOT_FOUND', 'The requested URL was not found on this server.');
  };
}
