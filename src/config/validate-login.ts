// login's cross-field rules (validate.ts runs them for a config with login): the token request a
// form POSTed to the token endpoint, the grants' URLs and fields, the revocation URL, the timeout
// and the browser login's redirect ports.
import { parseDuration } from './shape.js';
import type { ProviderConfigInput } from './schema.js';
import { ROOT, type Issues } from './issues.js';

/** The form fields each grant of a login sets itself: written in the config, they would be sent twice. */
const GRANT_FIELDS = ['grant_type', 'device_code', 'refresh_token', 'code', 'code_verifier', 'redirect_uri'];
/** The authorization request's parameters the browser login sets itself (RFC 6749 §4.1.1, RFC 7636, OIDC). */
const FLOW_PARAMETERS = ['response_type', 'redirect_uri', 'state', 'nonce', 'code_challenge', 'code_challenge_method'];
const LOGIN_URLS = ['authorizationCode', 'deviceAuthorization'] as const;
const MAX_LOGIN_TIMEOUT_MS = 15 * 60_000;
const MAX_REDIRECT_PORTS = 16;

/** login's rules: the main request is the token endpoint (RFC 6749 §3.2: POST, a form), and no steps yet. */
export function checkLogin(input: ProviderConfigInput, issues: Issues): void {
  const add = (field: string, message: string) => issues.push({ path: `${ROOT}.${field}`, message });
  if (input.method !== 'POST' && typeof input.method === 'string')
    add('method', 'with login, the main request is the token endpoint, which takes POST (RFC 6749 §3.2)');
  for (const form of ['body', 'json'] as const) {
    if (input[form] !== undefined)
      add(form, "with login, the token request is a form (RFC 6749 §3.2): write the client's fields under form");
  }
  for (const name of Object.keys(input.form ?? {})) {
    if (GRANT_FIELDS.includes(name))
      add(`form.${name}`, `login sets ${name} for each grant (device_code, code, refresh_token); remove it`);
  }
  if (Array.isArray(input.steps) && input.steps.length > 0)
    add('steps', 'steps do not run with login: the token endpoint is asked directly');
  const login = input.login;
  if (typeof login !== 'object' || login === null || !issues.known(`${ROOT}.login`)) return;
  if (login.authorizationCode === undefined && login.deviceAuthorization === undefined) {
    add('login', 'names no grant: set authorizationCode (a browser), deviceAuthorization (a code to type), or both');
  }
  for (const grant of LOGIN_URLS) {
    const url = login[grant]?.url;
    if (typeof url !== 'string') continue;
    const literal = url.trimStart();
    if (/^http:\/\//i.test(literal) && input.allowInsecureHTTP !== true) {
      add(`login.${grant}.url`, 'http:// sends the request in clear text; use https:// or set allowInsecureHTTP: true');
    } else if (!/^https?:\/\//i.test(literal) && !literal.startsWith('{{')) {
      add(`login.${grant}.url`, `expected an https:// URL, found ${JSON.stringify(literal.slice(0, 40))}`);
    }
  }
  const revocation = input.login?.revocation?.url;
  if (typeof revocation === 'string' && issues.known(`${ROOT}.login`)) {
    const problem = revocationUrlProblem(revocation, input.allowInsecureHTTP === true);
    if (problem !== undefined) add('login.revocation.url', problem);
  }
  if (typeof login.timeout === 'string' && issues.known(`${ROOT}.login.timeout`)) {
    const ms = parseDuration(login.timeout);
    if (ms <= 0 || ms > MAX_LOGIN_TIMEOUT_MS) add('login.timeout', 'must be longer than 0s and at most 15m');
  }
  const code = login.authorizationCode;
  if (typeof code !== 'object' || code === null || !issues.known(`${ROOT}.login.authorizationCode`)) return;
  for (const name of Object.keys(code.query ?? {})) {
    if (FLOW_PARAMETERS.includes(name))
      add(`login.authorizationCode.query.${name}`, `the browser login sets ${name} itself; remove it`);
  }
  const ports = code.redirectPorts;
  if (Array.isArray(ports) && issues.known(`${ROOT}.login.authorizationCode.redirectPorts`)) {
    if (ports.length === 0 || ports.length > MAX_REDIRECT_PORTS)
      add('login.authorizationCode.redirectPorts', `expected 1 to ${MAX_REDIRECT_PORTS} ports, found ${ports.length}`);
    else if (new Set(ports).size !== ports.length) add('login.authorizationCode.redirectPorts', 'names a port twice');
  }
  if (input.form?.['client_id'] === undefined && code.query?.['client_id'] === undefined) {
    add(
      'login.authorizationCode',
      "the browser is sent with the client's id: set form.client_id (the token request's) or login.authorizationCode.query.client_id",
    );
  }
}

/** What is wrong with login.revocation.url, if anything: a plain http(s) URL (no template: logout sends the token there). */
function revocationUrlProblem(url: string, allowInsecureHTTP: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `expected an https:// URL, found ${JSON.stringify(url.slice(0, 40))}`;
  }
  if (url.includes('{{')) return 'a plain URL, not a template';
  if (parsed.protocol === 'http:' && !allowInsecureHTTP)
    return 'http:// sends the refresh token in clear text; use https:// or set allowInsecureHTTP: true';
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    return `expected an https:// URL, found ${JSON.stringify(url.slice(0, 40))}`;
  if (parsed.username !== '' || parsed.password !== '')
    return 'no user or password in the URL: the client authenticates as at the token endpoint';
  return undefined;
}
