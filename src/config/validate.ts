// Pure: raw parsed document in, resolved config or every problem out (changesets' validateConfig).
import { check, parseDuration, type Issue, type Shape } from './shape.js';
import { Issues, ROOT } from './issues.js';
import { checkLogin } from './validate-login.js';
import {
  DEFAULTS,
  fileShape,
  type LoginInput,
  type ProviderConfig,
  type ProviderConfigInput,
  type RequestConfig,
  type RequestInput,
} from './schema.js';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Returns an error message for an invalid RFC 9535 path, undefined for a valid one. */
export type PathChecker = (rfcPath: string) => string | undefined;

export type ValidationResult = { ok: true; config: ProviderConfig } | { ok: false; issues: Issue[] };

/**
 * Accepts RFC 9535 paths ($.a.b) and kubectl-style ones ({.a.b}, {.a[0]}) and returns the RFC form.
 * Anything else is returned unchanged so that the JSONPath parser reports the problem.
 */
export function normalizePath(path: string): string {
  const trimmed = path.trim();
  if (trimmed.startsWith('{') && trimmed.endsWith('}')) {
    const inner = trimmed.slice(1, -1).trim();
    if (inner.startsWith('.') || inner.startsWith('[')) return '$' + inner;
    if (inner.startsWith('$')) return inner;
  }
  return path;
}

export function validateProviderDocument(document: unknown, checkPath: PathChecker): ValidationResult {
  const issues: Issue[] = [];
  check(fileShape, document, '', issues);
  // Paths from check() start with '.', which reads oddly in messages.
  for (const issue of issues) issue.path = issue.path.replace(/^\./, '') || '(document)';
  placeMisplaced(issues);
  const kept = dropFollowOns(issues);
  if (kept.some((i) => i.path === '(document)' || i.path === ROOT)) return { ok: false, issues: kept };
  const input = (document as { webAPIProviderConfig: ProviderConfigInput }).webAPIProviderConfig;
  return validateProvider(input, checkPath, new Issues(kept));
}

/** Cross-field rules and normalization, on top of the per-field shape check already in `issues`. */
function validateProvider(input: ProviderConfigInput, checkPath: PathChecker, issues: Issues): ValidationResult {
  const at = (field: string) => `${ROOT}.${field}`;
  const add = (field: string, message: string) => issues.push({ path: at(field), message });
  const known = (field: string) => issues.known(at(field));

  checkRequest(input, '', issues);
  const names = new Set<string>();
  (Array.isArray(input.steps) ? input.steps : []).forEach((step, i) => {
    if (typeof step !== 'object' || step === null) return;
    checkRequest(step, `steps[${i}].`, issues, input.allowInsecureHTTP === true);
    if (typeof step.name === 'string' && names.has(step.name))
      add(`steps[${i}].name`, `${step.name} is the name of an earlier step; step names are unique`);
    names.add(step.name);
  });

  const paths: ProviderConfig['paths'] = {};
  const pathFields = [
    ['tokenPath', 'token'],
    ['expiryPath', 'expiry'],
    ['expiresInPath', 'expiresIn'],
    ['clientCertificateDataPath', 'clientCertificateData'],
    ['clientKeyDataPath', 'clientKeyData'],
  ] as const;
  for (const [field, key] of pathFields) {
    const raw = input[field];
    if (typeof raw !== 'string' || !known(field)) continue;
    const normalized = normalizePath(raw);
    const problem = checkPath(normalized);
    if (problem) add(field, `invalid JSONPath ${JSON.stringify(raw)}: ${problem}`);
    else paths[key] = normalized;
  }
  const hasCert = input.clientCertificateDataPath !== undefined;
  const hasKey = input.clientKeyDataPath !== undefined;
  if (hasCert !== hasKey) {
    add(
      hasCert ? 'clientKeyDataPath' : 'clientCertificateDataPath',
      'clientCertificateDataPath and clientKeyDataPath go together: set both or neither',
    );
  }
  if (input.login !== undefined) checkLogin(input, issues);
  if (
    input.tokenPath === undefined &&
    input.login === undefined &&
    !(hasCert && hasKey) &&
    !issues.list.some((i) => i.message === 'unknown field; did you mean tokenPath?')
  ) {
    add('tokenPath', 'is required (unless clientCertificateDataPath and clientKeyDataPath are both set)');
  }
  if (
    typeof input.expiresIn === 'string' &&
    parseDuration(input.expiresIn) <= 0 &&
    !issues.list.some((i) => i.path === at('expiresIn'))
  ) {
    add('expiresIn', 'must be longer than 0s');
  }
  // Never longer than an outage is remembered: a failure served for an hour would hide a fixed secret.
  if (
    typeof input.cache?.failureTTL === 'string' &&
    parseDuration(input.cache.failureTTL) > 5 * 60_000 &&
    known('cache')
  ) {
    add('cache.failureTTL', 'must be at most 5m (0s remembers no failure)');
  }
  if (input.expiryPath !== undefined && input.expiresInPath !== undefined) {
    add('expiresInPath', 'set expiryPath or expiresInPath, not both');
  }

  if (issues.list.length > 0) return { ok: false, issues: issues.list };

  const main = resolveRequest(input, undefined);
  return {
    ok: true,
    config: {
      lets: Object.entries(input.let ?? {}),
      // A step takes tls, timeout, retry, maxResponseBytes and allowInsecureHTTP from the top level unless it sets them.
      steps: (input.steps ?? []).map((step) => ({ name: step.name, ...resolveRequest(step, main) })),
      ...main,
      paths,
      expiryFromJWT: input.expiryFromJWT ?? true,
      ...(input.expiresIn !== undefined ? { expiresInMs: parseDuration(input.expiresIn) } : {}),
      expiryMarginMs: input.expiryMargin !== undefined ? parseDuration(input.expiryMargin) : DEFAULTS.expiryMarginMs,
      cacheEnabled: input.cache?.enabled ?? false,
      cacheFailureTtlMs:
        input.cache?.failureTTL !== undefined ? parseDuration(input.cache.failureTTL) : DEFAULTS.cacheFailureTtlMs,
      ...(input.login ? loginConfig(input.login, paths) : {}),
    },
  };
}

const DEFAULT_LOGIN_TIMEOUT_MS = 3 * 60_000;

/** The login with its defaults: the id_token is the credential unless tokenPath says otherwise. */
function loginConfig(login: LoginInput, paths: ProviderConfig['paths']): Pick<ProviderConfig, 'login'> {
  paths.token ??= '$.id_token';
  const { authorizationCode: code, deviceAuthorization: device, revocation } = login;
  return {
    login: {
      ...(code
        ? {
            authorizationCode: {
              url: code.url,
              query: list(code.query),
              ...(code.issuer !== undefined ? { issuer: code.issuer } : {}),
              redirectHost: code.redirectHost ?? 'localhost',
              redirectPorts: code.redirectPorts ?? [8000, 18000],
              redirectPath: code.redirectPath ?? '',
            },
          }
        : {}),
      ...(device ? { deviceAuthorization: { url: device.url, form: list(device.form) } } : {}),
      ...(revocation ? { revocation: { url: revocation.url } } : {}),
      timeoutMs: login.timeout !== undefined ? parseDuration(login.timeout) : DEFAULT_LOGIN_TIMEOUT_MS,
    },
  };
}

/** The rules of one request (the main one, or a step at `prefix`). */
/** `insecureAbove`: the top level allows http://, which a step takes unless it sets its own. */
function checkRequest(input: RequestInput, prefix: string, issues: Issues, insecureAbove = false): void {
  const at = (field: string) => `${ROOT}.${prefix}${field}`;
  const add = (field: string, message: string) => issues.push({ path: at(field), message });
  const known = (field: string) => issues.known(at(field));

  const forms = (['body', 'form', 'json'] as const).filter((f) => input[f] !== undefined);
  if (forms.length > 1) add(forms[1]!, `only one of body, form, json may be set (found ${forms.join(', ')})`);
  if (forms.length > 0 && (input.method === 'GET' || input.method === 'DELETE')) {
    add(forms[0]!, `a ${input.method} request cannot have a body; use query or method POST`);
  }

  for (const name of Object.keys(input.headers ?? {})) {
    if (!HEADER_NAME.test(name)) add(`headers.${name}`, 'is not a valid HTTP header name');
  }

  if (typeof input.url === 'string' && known('url')) {
    const literal = input.url.trimStart();
    if (/^http:\/\//i.test(literal) && (input.allowInsecureHTTP ?? insecureAbove) !== true) {
      add(
        'url',
        'http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true',
      );
    } else if (!/^https?:\/\//i.test(literal) && !literal.startsWith('{{')) {
      add('url', `expected an https:// URL, found ${JSON.stringify(literal.slice(0, 40))}`);
    }
  }
  if (typeof input.timeout === 'string' && known('timeout') && parseDuration(input.timeout) <= 0) {
    add('timeout', 'must be longer than 0s');
  }

  const tls = input.tls ?? {};
  for (const [a, b] of [
    ['caFile', 'caData'],
    ['certFile', 'certData'],
    ['keyFile', 'keyData'],
  ] as const) {
    if (tls[a] !== undefined && tls[b] !== undefined) add(`tls.${b}`, `set tls.${a} or tls.${b}, not both`);
  }
  const hasClientCert = tls.certFile !== undefined || tls.certData !== undefined;
  const hasClientKey = tls.keyFile !== undefined || tls.keyData !== undefined;
  if (hasClientCert !== hasClientKey) {
    add(
      hasClientCert ? 'tls.keyFile' : 'tls.certFile',
      'a client certificate needs its key: set both certFile/certData and keyFile/keyData',
    );
  }
}

function list(record: Record<string, string | string[]> | undefined): Record<string, string[]> {
  return Object.fromEntries(Object.entries(record ?? {}).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
}

/** One request with its defaults: the SPEC's, or for a step the main request's. */
function resolveRequest(input: RequestInput, inherit: RequestConfig | undefined): RequestConfig {
  return {
    method: input.method,
    url: input.url,
    headers: { ...input.headers },
    query: list(input.query),
    body:
      input.body !== undefined
        ? { kind: 'raw', template: input.body }
        : input.form !== undefined
          ? { kind: 'form', fields: list(input.form) }
          : input.json !== undefined
            ? { kind: 'json', value: input.json }
            : { kind: 'none' },
    tls: input.tls ?? inherit?.tls ?? {},
    allowInsecureHTTP: input.allowInsecureHTTP ?? inherit?.allowInsecureHTTP ?? false,
    timeoutMs: input.timeout !== undefined ? parseDuration(input.timeout) : (inherit?.timeoutMs ?? DEFAULTS.timeoutMs),
    retryLimit: input.retry?.limit ?? inherit?.retryLimit ?? DEFAULTS.retryLimit,
    maxResponseBytes: input.maxResponseBytes ?? inherit?.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
  };
}

/** Where each field of a nested object lives: `caFile` -> `tls.caFile`, so a misplaced one can be told. */
const NESTED: Record<string, string> = (() => {
  const places: Record<string, string> = {};
  const provider = (fileShape as { properties: Record<string, Shape> }).properties['webAPIProviderConfig'] as {
    properties: Record<string, Shape>;
  };
  for (const [name, shape] of Object.entries(provider.properties)) {
    if (shape.kind !== 'object') continue;
    for (const field of Object.keys(shape.properties))
      if (!Object.hasOwn(provider.properties, field)) places[field] = `${name}.${field}`;
  }
  return places;
})();

/** A field of the provider at the top of the file (`tls:` beside webAPIProviderConfig). */
const PROVIDER_FIELDS: ReadonlySet<string> = new Set(
  Object.keys(
    (
      (fileShape as { properties: Record<string, Shape> }).properties['webAPIProviderConfig'] as {
        properties: Record<string, Shape>;
      }
    ).properties,
  ),
);

/** `caFile` at the top: not "unknown", it belongs under tls; `tls` at the top of the file, under webAPIProviderConfig. */
function placeMisplaced(issues: Issue[]): void {
  for (const issue of issues) {
    if (!issue.unknown || issue.message.includes('did you mean')) continue;
    if (issue.path === issue.unknown.key) {
      const key = issue.unknown.key;
      const place = PROVIDER_FIELDS.has(key) ? key : Object.hasOwn(NESTED, key) ? NESTED[key] : undefined;
      if (place !== undefined)
        issue.message = `unknown field at the top of the file; it belongs under ${ROOT} (${ROOT}.${place})`;
      continue;
    }
    const place = Object.hasOwn(NESTED, issue.unknown.key) ? NESTED[issue.unknown.key] : undefined;
    if (place && issue.path === `${ROOT}.${issue.unknown.key}`) {
      issue.message = `unknown field here; it belongs under ${place.split('.')[0]} (${ROOT}.${place})`;
    }
  }
}

/** A misspelt required field is one problem, not also "X is required". Filters, never splices: linear. */
function dropFollowOns(issues: Issue[]): Issue[] {
  const meant = new Set(
    issues.flatMap((issue) => {
      const guess = issue.message.match(/did you mean (\S+)\?$/)?.[1];
      return guess ? [`${issue.path.slice(0, issue.path.lastIndexOf('.'))}.${guess}`] : [];
    }),
  );
  return issues.filter((issue) => !(issue.message === 'is required' && meant.has(issue.path)));
}
