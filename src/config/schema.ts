// The config file's fields, once: validate.ts checks a document against this table and the JSON
// Schema in schema/ is generated from it (test/config/schema.test.ts keeps the two equal).
import type { Shape } from './shape.js';

const template = (description: string): Shape => ({ kind: 'string', description });
const path = (description: string): Shape => ({
  kind: 'string',
  minLength: 1,
  description: `${description} RFC 9535 JSONPath ($.a.b) or kubectl style ({.a.b}).`,
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const tlsShape: Shape = {
  kind: 'object',
  description: 'TLS settings for the token API.',
  properties: {
    caFile: { kind: 'string', minLength: 1, description: 'PEM CA bundle added to the system roots; a template.' },
    caData: {
      kind: 'string',
      minLength: 1,
      description: 'PEM (or base64 of PEM) CA bundle added to the system roots; a template.',
    },
    certFile: { kind: 'string', minLength: 1, description: 'PEM client certificate for mutual TLS; a template.' },
    certData: { kind: 'string', minLength: 1, description: 'PEM (or base64 of PEM) client certificate; a template.' },
    keyFile: { kind: 'string', minLength: 1, description: 'PEM client key for mutual TLS; a template.' },
    keyData: { kind: 'string', minLength: 1, description: 'PEM (or base64 of PEM) client key; a template.' },
    serverName: { kind: 'string', minLength: 1, description: 'SNI and verification name override; a template.' },
    insecureSkipVerify: {
      kind: 'boolean',
      description: 'Do not verify the server certificate (warned on every call).',
    },
  },
};

/** The fields of one HTTP request: the main one and every step share them. */
const requestProperties: Record<string, Shape> = {
  method: { kind: 'string', enum: METHODS, description: 'HTTP method.' },
  url: template('Request URL, a template. https:// unless allowInsecureHTTP.'),
  headers: { kind: 'map', of: template('Header value, a template.'), description: 'Request headers.' },
  query: {
    kind: 'map',
    of: { kind: 'stringOrList', description: 'Template, or a list of templates (the key repeats).' },
    description: 'Query parameters appended to the URL, each value encoded.',
  },
  body: template('Raw request body, a template, sent as is.'),
  form: {
    kind: 'map',
    of: { kind: 'stringOrList', description: 'Template, or a list of templates (the key repeats).' },
    description: 'application/x-www-form-urlencoded body; every value encoded for you.',
  },
  json: { kind: 'json', description: 'application/json body; string leaves are templates, JSON-escaped for you.' },
  tls: tlsShape,
  allowInsecureHTTP: { kind: 'boolean', description: 'Allow http:// URLs.' },
  timeout: { kind: 'duration', description: 'Per attempt (default 10s).' },
  retry: {
    kind: 'object',
    description: 'Retries on network errors, 408, 429 and 5xx.',
    properties: {
      limit: { kind: 'integer', minimum: 0, maximum: 10, description: 'Retries after the first attempt (default 2).' },
    },
  },
  maxResponseBytes: {
    kind: 'integer',
    minimum: 1,
    maximum: 64 * 1024 * 1024,
    description: 'Largest response body read (default 1 MiB).',
  },
};

const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const stepShape: Shape = {
  kind: 'object',
  description: 'A request that runs before the main one; its JSON answer is steps.<name> in later templates.',
  required: ['name', 'method', 'url'],
  properties: {
    name: {
      kind: 'string',
      pattern: STEP_NAME,
      patternHint: 'a name of letters, digits and _ (not starting with a digit)',
      description: 'The name later templates read the answer by: steps.<name>.',
    },
    ...requestProperties,
  },
};

/**
 * An interactive login (SPEC "Interactive login"): the main request is the token endpoint, and the
 * plugin adds the grant's own fields to its form (grant_type and device_code, code, or refresh_token).
 */
const loginShape: Shape = {
  kind: 'object',
  description:
    "An interactive login for a person at a terminal; the main request (method, url, headers, form, tls) is then the OAuth token endpoint and the client's authentication, to which each grant adds grant_type and its own fields. Runs only when the call is interactive (kubectl's interactiveMode, or a terminal). authorizationCode, deviceAuthorization, or both (the browser where one can be opened).",
  properties: {
    authorizationCode: {
      kind: 'object',
      description:
        "RFC 6749 §4.1 authorization code grant with PKCE (RFC 7636, S256) on a loopback redirect (RFC 8252): the browser is sent to the authorization endpoint with client_id (the token request's form.client_id, else this query's), redirect_uri, state, nonce and the code challenge; the code comes back to http://<redirectHost>:<port><redirectPath>.",
      required: ['url'],
      properties: {
        url: template(
          'The authorization endpoint (authorization_endpoint of the discovery document), a template. https:// unless allowInsecureHTTP.',
        ),
        query: {
          kind: 'map',
          of: { kind: 'stringOrList', description: 'Template, or a list of templates (the key repeats).' },
          description:
            'Query parameters of the authorization request besides those the flow sets, each a template: scope (openid for an id_token, offline_access for a refresh token), audience, resource, prompt.',
        },
        issuer: {
          kind: 'string',
          minLength: 1,
          description:
            "The issuer (RFC 9207): the browser's answer must carry an iss parameter that is this (RFC 9207 §2.4); init writes it when the issuer says it sends one (authorization_response_iss_parameter_supported).",
        },
        redirectHost: {
          kind: 'string',
          enum: ['localhost', '127.0.0.1', '[::1]'],
          description: 'The host of redirect_uri (default localhost, as kubelogin registers it).',
        },
        redirectPorts: {
          kind: 'list',
          of: { kind: 'integer', minimum: 1, maximum: 65535, description: 'A port of the loopback listener.' },
          description:
            "The loopback listener's ports, the first free one taken (default [8000, 18000], kubelogin's: an IdP client made for it works unchanged).",
        },
        redirectPath: {
          kind: 'string',
          pattern: /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/,
          patternHint: 'a path starting with /, without query or fragment',
          description: 'The path of redirect_uri (none by default: http://localhost:8000).',
        },
      },
    },
    deviceAuthorization: {
      kind: 'object',
      description:
        "RFC 8628 device authorization grant: the device authorization endpoint, sent the main request's headers and form (the client's authentication) plus this form.",
      required: ['url'],
      properties: {
        url: template(
          'The device authorization endpoint (device_authorization_endpoint of the discovery document), a template. https:// unless allowInsecureHTTP.',
        ),
        form: {
          kind: 'map',
          of: { kind: 'stringOrList', description: 'Template, or a list of templates (the key repeats).' },
          description:
            "Fields of the device authorization request besides the client's, each a template: scope (openid for an id_token, offline_access for a refresh token), audience, resource.",
        },
      },
    },
    revocation: {
      kind: 'object',
      description:
        "RFC 7009 token revocation: `logout` revokes the login's refresh token there, sent the main request's headers and form (the client's authentication).",
      required: ['url'],
      properties: {
        url: {
          kind: 'string',
          description:
            'The revocation endpoint (revocation_endpoint of the discovery document): an https:// URL, no template.',
        },
      },
    },
    timeout: {
      kind: 'duration',
      description: 'How long a browser login waits for the browser to come back (default 3m, at most 15m).',
    },
  },
};

/** webAPIProviderConfig, field by field. Drives validate.ts and schema/webapi-credential.schema.json. */
const providerShape: Shape = {
  kind: 'object',
  description: 'How to obtain a credential from a web API (the Argo CD webAPIProviderConfig schema).',
  required: ['method', 'url'],
  properties: {
    let: {
      kind: 'map',
      of: { kind: 'string', minLength: 1, description: 'An expression (no {{ }} needed), evaluated once, in order.' },
      description: 'Names for expressions that the templates use; each may use the names before it.',
    },
    steps: {
      kind: 'list',
      of: stepShape,
      description: 'Requests that run in order before the main one (a login, a token exchange).',
    },
    method: requestProperties['method']!,
    url: requestProperties['url']!,
    tokenPath: path('Where the token is in the JSON response (with login: $.id_token unless set).'),
    headers: requestProperties['headers']!,
    query: requestProperties['query']!,
    body: requestProperties['body']!,
    form: requestProperties['form']!,
    json: requestProperties['json']!,
    expiryPath: path('Expiry: RFC 3339 string or unix seconds/milliseconds.'),
    expiresInPath: path('Expiry in seconds from now (number or numeric string).'),
    expiryFromJWT: {
      kind: 'boolean',
      description: "Use a JWT token's exp claim when no path gives the expiry (default true).",
    },
    expiresIn: {
      kind: 'duration',
      description: "The credential's lifetime when neither a path, a JWT exp nor a certificate gives one (e.g. 60m).",
    },
    clientCertificateDataPath: path('PEM client certificate in the response.'),
    clientKeyDataPath: path('PEM client key in the response.'),
    tls: tlsShape,
    allowInsecureHTTP: requestProperties['allowInsecureHTTP']!,
    timeout: requestProperties['timeout']!,
    retry: requestProperties['retry']!,
    maxResponseBytes: requestProperties['maxResponseBytes']!,
    login: loginShape,
    expiryMargin: { kind: 'duration', description: 'Report the credential as expiring this much early (default 60s).' },
    cache: {
      kind: 'object',
      description: 'On-disk credential cache.',
      properties: {
        enabled: { kind: 'boolean', description: 'Cache credentials with a known expiry (default false).' },
        failureTTL: {
          kind: 'duration',
          description:
            'With the cache on, how long a refusal (4xx other than 408/429) or an unusable answer is served again without a request (default 10s; 0s remembers no failure). An outage is remembered for its Retry-After or 10s, at most 5m.',
        },
      },
    },
  },
};

export const fileShape: Shape = {
  kind: 'object',
  required: ['webAPIProviderConfig'],
  properties: { webAPIProviderConfig: providerShape },
};

/** A request as the user wrote it: the main one and each step. */
export interface RequestInput {
  method: string;
  url: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: string;
  form?: Record<string, string | string[]>;
  json?: unknown;
  tls?: ProviderConfigInput['tls'];
  allowInsecureHTTP?: boolean;
  timeout?: string;
  retry?: { limit?: number };
  maxResponseBytes?: number;
}

interface StepInput extends RequestInput {
  name: string;
}

/** The config as the user wrote it (after the shape check). */
export interface ProviderConfigInput {
  let?: Record<string, string>;
  steps?: StepInput[];
  method: string;
  url: string;
  tokenPath?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | string[]>;
  body?: string;
  form?: Record<string, string | string[]>;
  json?: unknown;
  expiryPath?: string;
  expiresInPath?: string;
  expiryFromJWT?: boolean;
  expiresIn?: string;
  clientCertificateDataPath?: string;
  clientKeyDataPath?: string;
  tls?: {
    caFile?: string;
    caData?: string;
    certFile?: string;
    certData?: string;
    keyFile?: string;
    keyData?: string;
    serverName?: string;
    insecureSkipVerify?: boolean;
  };
  allowInsecureHTTP?: boolean;
  timeout?: string;
  retry?: { limit?: number };
  maxResponseBytes?: number;
  expiryMargin?: string;
  cache?: { enabled?: boolean; failureTTL?: string };
  login?: LoginInput;
}

export interface LoginInput {
  authorizationCode?: {
    url: string;
    query?: Record<string, string | string[]>;
    issuer?: string;
    redirectHost?: string;
    redirectPorts?: number[];
    redirectPath?: string;
  };
  deviceAuthorization?: { url: string; form?: Record<string, string | string[]> };
  revocation?: { url: string };
  timeout?: string;
}

/** login with its templates as lists, as a request's form has them, and every default applied. */
export interface LoginConfig {
  authorizationCode?: AuthorizationCodeConfig;
  deviceAuthorization?: { url: string; form: Record<string, string[]> };
  /** RFC 7009: where `logout` revokes the refresh token. */
  revocation?: { url: string };
  /** How long a browser login waits for the browser (login.timeout). */
  timeoutMs: number;
}

export interface AuthorizationCodeConfig {
  url: string;
  query: Record<string, string[]>;
  issuer?: string;
  redirectHost: string;
  redirectPorts: number[];
  redirectPath: string;
}

type BodyForm =
  | { kind: 'none' }
  | { kind: 'raw'; template: string }
  | { kind: 'form'; fields: Record<string, string[]> }
  | { kind: 'json'; value: unknown };

/** One request with every default applied: the main one, or a step. */
export interface RequestConfig {
  method: string;
  url: string;
  headers: Record<string, string>;
  query: Record<string, string[]>;
  body: BodyForm;
  tls: NonNullable<ProviderConfigInput['tls']>;
  allowInsecureHTTP: boolean;
  timeoutMs: number;
  retryLimit: number;
  maxResponseBytes: number;
}

export interface StepConfig extends RequestConfig {
  name: string;
}

/** The config with every default applied and every path checked. */
export interface ProviderConfig extends RequestConfig {
  /** `let` names and expressions, in the order written. */
  lets: Array<[string, string]>;
  steps: StepConfig[];
  method: string;
  url: string;
  headers: Record<string, string>;
  query: Record<string, string[]>;
  body: BodyForm;
  paths: {
    token?: string;
    expiry?: string;
    expiresIn?: string;
    clientCertificateData?: string;
    clientKeyData?: string;
  };
  expiryFromJWT: boolean;
  /** The lifetime to assume when nothing in the answer gives one. */
  expiresInMs?: number;
  tls: NonNullable<ProviderConfigInput['tls']>;
  allowInsecureHTTP: boolean;
  timeoutMs: number;
  retryLimit: number;
  maxResponseBytes: number;
  expiryMarginMs: number;
  cacheEnabled: boolean;
  /** cache.failureTTL: how long a refusal or an unusable answer is remembered; 0 remembers no failure. */
  cacheFailureTtlMs: number;
  /** An interactive login: the main request is then the token endpoint. */
  login?: LoginConfig;
}

export const DEFAULTS = {
  timeoutMs: 10_000,
  retryLimit: 2,
  maxResponseBytes: 1024 * 1024,
  expiryMarginMs: 60_000,
  cacheFailureTtlMs: 10_000,
};
