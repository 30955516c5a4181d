// Local stand-ins of the token APIs of examples/, each following its provider's documented request
// and response shapes and rejecting, with the provider's kind of error, a request of another shape:
// wrong method, path, content type, grant or body fields, or credentials. A signed client assertion
// is checked as the provider checks it (client-assertions.ts). They answer only what the examples
// need. Every token they issue is pushed to `issued`. Google's are in google-apis.ts.
import { randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { entraCertificate, keycloakSignedJwt } from './client-assertions.js';
import { decodeJws, nowSeconds, ownUrl, verifyJws } from './signed-jwt.js';
import { fakeJwt, json, type Handler, type ReceivedRequest } from './token-api.js';

export const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
export const JWT_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:jwt';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const AKS_SCOPE = '6dae42f8-4368-4678-94ff-3960e28e3630/.default';

const id = () => randomBytes(6).toString('hex');
export const mediaType = (request: ReceivedRequest) =>
  (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
export const form = (request: ReceivedRequest) => new URLSearchParams(request.body);
export const oauthError = (response: ServerResponse, status: number, error: string, description: string) =>
  json(response, status, { error, error_description: description });

export function jsonBody(request: ReceivedRequest): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(request.body);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function issue(issued: string[], lifetimeSeconds: number, claims: Record<string, unknown> = {}): string {
  const token = fakeJwt(nowSeconds() + lifetimeSeconds, { jti: id(), ...claims });
  issued.push(token);
  return token;
}

/** Upbound's org-scoped token exchange, as up-sdk-go calls it (form body and the token as bearer). */
export function upbound(expected: { org: string; token: string }, issued: string[]): Handler {
  return (request, response) => {
    if (request.path !== '/apis/tokenexchange.upbound.io/v1alpha1/orgscopedtokens')
      return json(response, 404, { error: 'not_found' });
    if (request.method !== 'POST') return json(response, 405, { error: 'method_not_allowed' });
    if (mediaType(request) !== 'application/x-www-form-urlencoded')
      return oauthError(response, 400, 'invalid_request', 'expected a form body');
    const body = form(request);
    if (body.get('grant_type') !== TOKEN_EXCHANGE)
      return oauthError(response, 400, 'unsupported_grant_type', 'grant_type must be token-exchange');
    const audiences = body.getAll('audience').sort();
    if (audiences.join(' ') !== 'upbound:spaces:api upbound:spaces:controlplanes')
      return oauthError(response, 400, 'invalid_target', 'unknown audience');
    if (body.get('subject_token_type') !== ID_TOKEN_TYPE)
      return oauthError(response, 400, 'invalid_request', 'unsupported subject_token_type');
    if (body.get('scope') !== `upbound:org:${expected.org}`)
      return oauthError(response, 400, 'invalid_scope', 'unknown organization');
    if (body.get('subject_token') !== expected.token || request.headers.authorization !== `Bearer ${expected.token}`) {
      return oauthError(response, 401, 'invalid_grant', 'token is not valid');
    }
    const token = issue(issued, 3600);
    return json(response, 200, {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 3600,
    });
  };
}

/**
 * Keycloak's token endpoint, client_credentials grant. A client with a secret authenticates with
 * Basic or in the form, never both; a client with `clientKeys` (the "Signed JWT" authenticator,
 * private_key_jwt) with a client assertion signed by one of those keys, and nothing else.
 */
export function keycloak(
  expected: { realm: string; clientId: string; clientSecret?: string; clientKeys?: JsonWebKey[] },
  issued: string[],
): Handler {
  const signedJwt = expected.clientKeys && keycloakSignedJwt(expected.clientId, expected.clientKeys);
  return (request, response) => {
    const realm = /^\/realms\/([^/]+)\/protocol\/openid-connect\/token$/.exec(request.path)?.[1];
    if (realm === undefined) return json(response, 404, { error: 'Unable to find matching target resource method' });
    if (realm !== expected.realm) return json(response, 404, { error: 'Realm does not exist' });
    if (request.method !== 'POST') return json(response, 405, { error: 'HTTP 405 Method Not Allowed' });
    if (mediaType(request) !== 'application/x-www-form-urlencoded')
      return json(response, 415, { error: 'Cannot consume content type' });
    const body = form(request);
    if (body.get('grant_type') !== 'client_credentials')
      return oauthError(response, 400, 'unsupported_grant_type', 'Unsupported grant_type');
    if (signedJwt) {
      const refusal = signedJwt(body, ownUrl(request.headers.host, request.path));
      if (refusal) return oauthError(response, refusal.status, refusal.error, refusal.description);
      return json(response, 200, {
        access_token: issue(issued, 300, { azp: expected.clientId }),
        expires_in: 300,
        refresh_expires_in: 0,
        token_type: 'Bearer',
        'not-before-policy': 0,
        scope: 'profile email',
      });
    }
    const basic = /^Basic (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    const inForm = body.has('client_id') || body.has('client_secret');
    if (basic !== undefined && inForm)
      return oauthError(response, 400, 'invalid_request', 'Multiple client authentication methods');
    const [clientId, clientSecret] =
      basic !== undefined
        ? (() => {
            // RFC 6749 §2.3.1, as Keycloak reads it: each part is form-decoded after the base64.
            const decoded = Buffer.from(basic, 'base64').toString('utf8');
            const colon = decoded.indexOf(':');
            const formDecode = (part: string) => decodeURIComponent(part.replace(/\+/g, ' '));
            return [formDecode(decoded.slice(0, colon)), formDecode(decoded.slice(colon + 1))];
          })()
        : [body.get('client_id'), body.get('client_secret')];
    if (
      clientId !== expected.clientId ||
      expected.clientSecret === undefined ||
      clientSecret !== expected.clientSecret
    ) {
      return oauthError(response, 401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
    }
    const token = issue(issued, 300, { azp: clientId });
    return json(response, 200, {
      access_token: token,
      expires_in: 300,
      refresh_expires_in: 0,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope: 'profile email',
    });
  };
}

/**
 * Microsoft Entra ID v2.0 token endpoint, client credentials of an application with a shared secret
 * (`clientSecret`) or a certificate credential (`certificate`, PEM: a client assertion it signed).
 */
export function azureAd(
  expected: { tenant: string; clientId: string; clientSecret?: string; certificate?: string },
  issued: string[],
): Handler {
  const certificate =
    expected.certificate === undefined ? undefined : entraCertificate(expected.clientId, expected.certificate);
  return (request, response) => {
    const tenant = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(request.path)?.[1];
    if (tenant === undefined) return json(response, 404, { error: 'not_found' });
    if (tenant !== expected.tenant)
      return oauthError(response, 400, 'invalid_request', `AADSTS90002: Tenant '${tenant}' not found.`);
    if (request.method !== 'POST')
      return oauthError(response, 405, 'invalid_request', 'AADSTS900561: The endpoint only accepts POST requests.');
    if (mediaType(request) !== 'application/x-www-form-urlencoded')
      return oauthError(
        response,
        400,
        'invalid_request',
        'AADSTS900144: The request body must contain the following parameter: grant_type.',
      );
    const body = form(request);
    if (body.get('grant_type') !== 'client_credentials')
      return oauthError(
        response,
        400,
        'unsupported_grant_type',
        'AADSTS70003: The app requested an unsupported grant type.',
      );
    if (body.get('scope') !== AKS_SCOPE)
      return oauthError(
        response,
        400,
        'invalid_scope',
        'AADSTS70011: The provided value for the input parameter scope is not valid.',
      );
    if (body.has('client_assertion') || body.has('client_assertion_type')) {
      const refusal = certificate
        ? certificate(body, ownUrl(request.headers.host, request.path))
        : {
            status: 401,
            error: 'invalid_client',
            description:
              'AADSTS700027: Client assertion contains an invalid signature. [Reason - The key was not found.]',
          };
      if (refusal) return oauthError(response, refusal.status, refusal.error, refusal.description);
    } else if (!body.has('client_secret')) {
      return oauthError(
        response,
        401,
        'invalid_client',
        "AADSTS7000218: The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      );
    } else if (
      body.get('client_id') !== expected.clientId ||
      expected.clientSecret === undefined ||
      body.get('client_secret') !== expected.clientSecret
    ) {
      return oauthError(response, 401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    }
    const token = issue(issued, 3599, { aud: '6dae42f8-4368-4678-94ff-3960e28e3630', appid: expected.clientId });
    return json(response, 200, { token_type: 'Bearer', expires_in: 3599, ext_expires_in: 3599, access_token: token });
  };
}

/** An RFC 8693 security token service at `path` that trusts one subject token for one audience. */
export function tokenExchange(
  expected: { path: string; subjectToken: string; audience: string },
  issued: string[],
): Handler {
  return (request, response) => {
    if (request.path !== expected.path) return json(response, 404, { error: 'not_found' });
    if (request.method !== 'POST') return json(response, 405, { error: 'method_not_allowed' });
    if (mediaType(request) !== 'application/x-www-form-urlencoded')
      return oauthError(response, 400, 'invalid_request', 'expected a form body');
    const body = form(request);
    if (body.get('grant_type') !== TOKEN_EXCHANGE)
      return oauthError(response, 400, 'unsupported_grant_type', 'grant_type must be token-exchange');
    if (body.get('subject_token_type') !== JWT_TOKEN_TYPE)
      return oauthError(response, 400, 'invalid_request', 'unsupported subject_token_type');
    const requested = body.get('requested_token_type');
    if (requested !== null && requested !== ACCESS_TOKEN_TYPE)
      return oauthError(response, 400, 'invalid_request', 'unsupported requested_token_type');
    if (body.get('subject_token') !== expected.subjectToken)
      return oauthError(response, 400, 'invalid_grant', 'subject_token is not valid');
    if (body.get('audience') !== expected.audience)
      return oauthError(response, 400, 'invalid_target', 'audience is not allowed');
    const token = issue(issued, 600, { aud: expected.audience });
    return json(response, 200, {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 600,
    });
  };
}

/** Vault's Kubernetes secrets engine, POST /v1/<mount>/creds/<role>. */
export function vault(
  expected: { mount: string; role: string; namespace: string; token: string },
  issued: string[],
): Handler {
  return (request, response) => {
    const role = new RegExp(`^/v1/${expected.mount}/creds/([^/]+)$`).exec(request.path)?.[1];
    if (role === undefined)
      return json(response, 404, { errors: [`no handler for route "${request.path.replace(/^\/v1\//, '')}"`] });
    if (request.method !== 'POST' && request.method !== 'PUT')
      return json(response, 405, { errors: ['unsupported operation'] });
    if (request.headers['x-vault-token'] !== expected.token)
      return json(response, 403, { errors: ['permission denied'] });
    if (role !== expected.role) return json(response, 400, { errors: [`role '${role}' does not exist`] });
    const body = jsonBody(request);
    if (body === undefined) return json(response, 400, { errors: ['failed to parse JSON input'] });
    if (typeof body['kubernetes_namespace'] !== 'string')
      return json(response, 400, { errors: ["'kubernetes_namespace' is required"] });
    if (body['kubernetes_namespace'] !== expected.namespace)
      return json(response, 403, {
        errors: [`kubernetes_namespace '${String(body['kubernetes_namespace'])}' is not allowed by role`],
      });
    const token = issue(issued, 3600, { sub: `system:serviceaccount:${expected.namespace}:v-token-${role}` });
    return json(response, 200, {
      request_id: id(),
      lease_id: `${expected.mount}/creds/${role}/${id()}`,
      renewable: false,
      lease_duration: 3600,
      data: {
        service_account_name: `v-token-${role}`,
        service_account_namespace: expected.namespace,
        service_account_token: token,
      },
      wrap_info: null,
      warnings: null,
      auth: null,
    });
  };
}

const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

/**
 * The Pinniped Concierge's TokenCredentialRequest (on the API server, anonymous). A token or
 * authenticator it does not know is no HTTP error: 201 with status.message and no credential.
 */
export function pinniped(
  expected: {
    token: string;
    authenticator: string;
    certificate: { cert: string; key: string };
    expirationTimestamp: string;
  },
  issued: string[],
): Handler {
  const path = '/apis/login.concierge.pinniped.dev/v1alpha1/tokencredentialrequests';
  return (request, response) => {
    if (request.path !== path)
      return json(response, 404, status(404, 'NotFound', 'the server could not find the requested resource'));
    if (request.method !== 'POST')
      return json(
        response,
        405,
        status(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`),
      );
    if (mediaType(request) !== 'application/json')
      return json(
        response,
        415,
        status(415, 'UnsupportedMediaType', `the body of the request was in an unknown format`),
      );
    const body = jsonBody(request);
    if (body?.['apiVersion'] !== 'login.concierge.pinniped.dev/v1alpha1' || body['kind'] !== 'TokenCredentialRequest') {
      return json(response, 400, status(400, 'BadRequest', 'the object provided is unrecognized'));
    }
    const spec = (body['spec'] ?? {}) as {
      token?: unknown;
      authenticator?: { apiGroup?: unknown; kind?: unknown; name?: unknown };
    };
    if (typeof spec.token !== 'string' || spec.token === '') {
      return json(
        response,
        422,
        status(
          422,
          'Invalid',
          'TokenCredentialRequest.login.concierge.pinniped.dev "" is invalid: spec.token.value: Required value',
        ),
      );
    }
    const meta = {
      kind: 'TokenCredentialRequest',
      apiVersion: 'login.concierge.pinniped.dev/v1alpha1',
      metadata: { creationTimestamp: null },
      spec: {},
    };
    const authenticator = spec.authenticator;
    if (
      spec.token !== expected.token ||
      authenticator?.apiGroup !== 'authentication.concierge.pinniped.dev' ||
      authenticator.kind !== 'JWTAuthenticator' ||
      authenticator.name !== expected.authenticator
    ) {
      return json(response, 201, { ...meta, status: { message: 'authentication failed' } });
    }
    issued.push(expected.certificate.cert);
    return json(response, 201, {
      ...meta,
      status: {
        credential: {
          expirationTimestamp: expected.expirationTimestamp,
          clientCertificateData: expected.certificate.cert,
          clientKeyData: expected.certificate.key,
        },
      },
    });
  };
}

/** Rancher's login action for a basic-login provider (local users by default). */
export function rancher(
  expected: { username: string; password: string; expiresAt: string; provider?: string },
  issued: string[],
): Handler {
  const provider = expected.provider ?? 'localProviders/local';
  const error = (code: number, name: string, message: string) => ({
    type: 'error',
    baseType: 'error',
    status: code,
    code: name,
    message,
  });
  return (request, response) => {
    if (request.path !== `/v3-public/${provider}` || request.query.get('action') !== 'login') {
      return json(response, 404, error(404, 'NotFound', 'not found'));
    }
    if (request.method !== 'POST') return json(response, 405, error(405, 'MethodNotAllowed', 'Method not allowed'));
    const body = mediaType(request) === 'application/json' ? jsonBody(request) : undefined;
    if (body === undefined) return json(response, 422, error(422, 'InvalidBodyContent', ''));
    if (body['username'] !== expected.username || body['password'] !== expected.password) {
      return json(response, 401, error(401, 'Unauthorized', 'authentication failed'));
    }
    const name = `token-${id().slice(0, 5)}`;
    const token = `${name}:${randomBytes(24).toString('hex')}`;
    issued.push(token);
    return json(response, 201, {
      type: 'token',
      baseType: 'token',
      id: name,
      name,
      token,
      authProvider: 'local',
      current: false,
      description: typeof body['description'] === 'string' ? body['description'] : '',
      enabled: true,
      expired: false,
      expiresAt: expected.expiresAt,
      isDerived: false,
      ttl: 57_600_000,
      userId: 'user-8x7qj',
    });
  };
}

/**
 * Vault's Kubernetes auth method, POST /v1/auth/kubernetes/login {role, jwt}: as Vault does (through
 * the cluster's TokenReview), it accepts a service-account JWT only when the cluster's issuer key
 * signed it, for the role's service account; the answer's client_token then opens the secrets engine.
 * The service account lives in `serviceAccountNamespace` (default: the secrets engine's `namespace`).
 */
export function vaultWithKubernetesAuth(
  expected: {
    mount: string;
    role: string;
    namespace: string;
    serviceAccount: string;
    serviceAccountNamespace?: string;
    issuerKey: KeyObject;
  },
  issued: string[],
): Handler {
  const clientTokens = new Set<string>();
  return (request, response) => {
    if (request.path === '/v1/auth/kubernetes/login') {
      if (request.method !== 'POST' && request.method !== 'PUT')
        return json(response, 405, { errors: ['unsupported operation'] });
      const body = jsonBody(request);
      if (body === undefined) return json(response, 400, { errors: ['failed to parse JSON input'] });
      if (body['role'] !== expected.role)
        return json(response, 400, { errors: [`invalid role name "${String(body['role'])}"`] });
      const sub = serviceAccountOf(String(body['jwt'] ?? ''), expected.issuerKey);
      if (
        sub !==
        `system:serviceaccount:${expected.serviceAccountNamespace ?? expected.namespace}:${expected.serviceAccount}`
      )
        return json(response, 403, { errors: ['permission denied'] });
      const clientToken = `hvs.${randomBytes(18).toString('base64url')}`;
      clientTokens.add(clientToken);
      return json(response, 200, {
        auth: {
          client_token: clientToken,
          accessor: id(),
          policies: ['default', expected.role],
          lease_duration: 2764800,
          renewable: true,
        },
      });
    }
    const token = request.headers['x-vault-token'];
    if (typeof token !== 'string' || !clientTokens.has(token))
      return json(response, 403, { errors: ['permission denied'] });
    return vault({ mount: expected.mount, role: expected.role, namespace: expected.namespace, token }, issued)(
      request,
      response,
    );
  };
}

/** The `sub` of an unexpired RS256 JWT signed by `key`, or undefined: what a TokenReview would vouch for. */
function serviceAccountOf(jwt: string, key: KeyObject): string | undefined {
  const jws = decodeJws(jwt);
  if (!jws || jws.header['alg'] !== 'RS256' || !verifyJws(jws, key)) return undefined;
  const { sub, exp } = jws.claims;
  return typeof exp === 'number' && exp > nowSeconds() && typeof sub === 'string' ? sub : undefined;
}
