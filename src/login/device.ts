// RFC 8628, the device authorization grant, as pure pieces: the requests derived from the config's
// token request, the device authorization answer read and bounded, the prompt, and what each answer
// of the token endpoint means for the polling. No clock, no network: use-case/login.ts runs them.
import { ResponseError, RequestError, UNSHOWABLE, UsageError } from '../errors.js';
import { errorSaid } from '../credential/error-fields.js';
import type { ProviderConfig, RequestConfig } from '../config/schema.js';
import type { RenderedRequest } from '../request/build.js';
import { asciiUri, isUserCode, otherHostNote } from './prompt-checks.js';

export const DEVICE_ROOT = 'webAPIProviderConfig.login.deviceAuthorization';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** A person typing cannot meet --timeout; nor should a server keep the plugin for an hour (SPEC). */
export const MAX_LOGIN_MS = 15 * 60_000;
/** RFC 8628 §3.2: 5 s when the server names no interval. */
const DEFAULT_INTERVAL_MS = 5_000;
/** An interval of 0 from a hostile server is not a busy loop: one poll a second at most. */
const MIN_INTERVAL_MS = 1_000;
/** RFC 8628 §3.5: slow_down adds 5 s to the interval, for this and every later request. */
export const SLOW_DOWN_MS = 5_000;
const MAX_URI = 2048;

/** Exit 2: no login happened, for a reason a person decides (refused, too late, Ctrl-C, nobody there). */
export class LoginError extends UsageError {}

/** The device authorization answer, checked: what the prompt shows and the polling needs. */
export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  verificationUriComplete?: string;
  /** How long the device code lives, at most MAX_LOGIN_MS. */
  expiresInMs: number;
  intervalMs: number;
}

/**
 * The device authorization request: the main request's headers and form (the client's
 * authentication: RFC 8628 §3.1 applies RFC 6749's to this endpoint) at login's URL, with scope
 * and login's own form (scope). Rendered like any request, its field paths under DEVICE_ROOT.
 */
export function deviceRequestConfig(config: ProviderConfig): RequestConfig {
  const login = config.login!.deviceAuthorization;
  const own = config.body.kind === 'form' ? config.body.fields : {};
  return {
    ...config,
    url: login.url,
    query: {},
    body: { kind: 'form', fields: { ...own, ...login.form } },
  };
}

/** login's own templates, checked when the config loads (the inherited ones are checked as the main request's). */
export function loginTemplates(config: ProviderConfig): Array<[string, string]> {
  const login = config.login?.deviceAuthorization;
  if (!login) return [];
  const fields: Array<[string, string]> = [[`${DEVICE_ROOT}.url`, login.url]];
  for (const [name, templates] of Object.entries(login.form)) {
    templates.forEach((template, i) => fields.push([`${DEVICE_ROOT}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`, template]));
  }
  return fields;
}

/**
 * The token request of one grant: the config's token request with the grant's fields added to its
 * form (grant_type and device_code, or refresh_token). The caller registers the values as secrets first.
 */
export function withGrant(request: RenderedRequest, fields: Record<string, string>): RenderedRequest {
  const added = new URLSearchParams(fields).toString();
  const headers = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const body = request.body ? `${request.body}&${added}` : added;
  // What render and messages show: the grant's values are secret, so they are shown as their names.
  const shownAdded = Object.keys(fields)
    .map((name) => `${encodeURIComponent(name)}=${name === 'grant_type' ? encodeURIComponent(fields[name]!) : `[${name}]`}`)
    .join('&');
  const shown = request.shown ?? { url: request.url, headers: request.headers, body: request.body };
  return { ...request, headers, body, shown: { url: shown.url, headers, body: shown.body ? `${shown.body}&${shownAdded}` : shownAdded } };
}

/** The refresh request (RFC 6749 §6) against the token endpoint; its answer is read like the device grant's. */
export function refreshRequest(tokenRequest: RenderedRequest, refreshToken: string): RenderedRequest {
  return withGrant(tokenRequest, { grant_type: 'refresh_token', refresh_token: refreshToken });
}

/** The device code's poll (RFC 8628 §3.4). */
export function pollRequest(tokenRequest: RenderedRequest, deviceCode: string): RenderedRequest {
  return withGrant(tokenRequest, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode });
}

function seconds(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** A text shown to a person: printable, no controls (a hostile server must not drive the terminal). */
function printable(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= max && !UNSHOWABLE.test(value);
}

function webUri(value: unknown): value is string {
  if (!printable(value, MAX_URI) || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    // https://idp.example.com@evil.example/ reads as the IdP and opens evil.example: no user info.
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && !/^[a-z]+:\/\/[^/?#\\]*@/i.test(value);
  } catch {
    return false;
  }
}

/** The device authorization answer (RFC 8628 §3.2), or exit 4 naming what is wrong with it. */
export function readDeviceAuthorization(document: unknown): DeviceAuthorization {
  const fail = (what: string) => new ResponseError('DEVICE_AUTHORIZATION', `the device authorization endpoint answered ${what}; check login.deviceAuthorization.url`);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw fail('no JSON object');
  const answer = document as Record<string, unknown>;
  if (typeof answer['device_code'] !== 'string' || answer['device_code'] === '') throw fail('no device_code');
  if (!isUserCode(answer['user_code'])) throw fail(answer['user_code'] === undefined ? 'no user_code' : 'a user_code that is not a short code of printable ASCII without spaces');
  const uri = webUri(answer['verification_uri']) ? asciiUri(answer['verification_uri']) : undefined;
  if (uri === undefined) throw fail(answer['verification_uri'] === undefined ? 'no verification_uri' : 'a verification_uri that is not an http(s) URL a person can open');
  const expiresIn = seconds(answer['expires_in']);
  if (expiresIn === undefined || expiresIn <= 0) throw fail('no expires_in (seconds the code lives)');
  const interval = seconds(answer['interval']);
  const complete = webUri(answer['verification_uri_complete']) ? asciiUri(answer['verification_uri_complete']) : undefined;
  return {
    deviceCode: answer['device_code'],
    userCode: answer['user_code'],
    // Shown with the host a browser resolves: an IDN homograph of the issuer's name reads as punycode.
    verificationUri: uri,
    ...(complete !== undefined ? { verificationUriComplete: complete } : {}),
    expiresInMs: Math.min(expiresIn * 1000, MAX_LOGIN_MS),
    intervalMs: interval === undefined ? DEFAULT_INTERVAL_MS : Math.max(Math.min(interval * 1000, MAX_LOGIN_MS), MIN_INTERVAL_MS),
  };
}

/**
 * What a person reads on stderr: where to go and the code to check or type. Neither is a secret.
 * With `endpoint` (the device authorization request's URL), a page on another host is pointed out.
 */
export function promptLines(authorization: DeviceAuthorization, endpoint?: string): string[] {
  const minutes = Math.max(1, Math.round(authorization.expiresInMs / 60_000));
  const within = `within ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const page = authorization.verificationUriComplete ?? authorization.verificationUri;
  const note = endpoint !== undefined ? otherHostNote(page, endpoint) : undefined;
  const lines = authorization.verificationUriComplete
    ? [`to log in, open ${page}`, `and check that it shows the code ${authorization.userCode} (${within}; Ctrl-C cancels)`]
    : [`to log in, open ${page}`, `and enter the code ${authorization.userCode} (${within}; Ctrl-C cancels)`];
  return note !== undefined ? [...lines, note] : lines;
}

/** What one answer of the token endpoint means for the polling. */
export type PollStep = { kind: 'token'; document: Record<string, unknown> } | { kind: 'pending' } | { kind: 'slow_down' };

/**
 * Reads one answer of the token endpoint to a poll or a refresh: a token answer, a reason to wait,
 * or the end (thrown). `redact` is the run's redactor, for the echoes an error answer may hold.
 */
export function readTokenAnswer(status: number, document: unknown, grant: 'device_code' | 'refresh_token', redact: (text: string) => string = (text) => text): PollStep {
  const answer = typeof document === 'object' && document !== null && !Array.isArray(document) ? (document as Record<string, unknown>) : undefined;
  if (status >= 200 && status <= 299) {
    if (!answer) throw new ResponseError('RESPONSE_NOT_OBJECT', 'the token endpoint answered JSON that is not an object');
    return { kind: 'token', document: answer };
  }
  const error = typeof answer?.['error'] === 'string' ? answer['error'] : undefined;
  if (grant === 'device_code') {
    if (error === 'authorization_pending') return { kind: 'pending' };
    if (error === 'slow_down') return { kind: 'slow_down' };
    if (error === 'access_denied') throw new LoginError('LOGIN_DENIED', 'the login was denied at the identity provider; run the command again to log in anew');
    if (error === 'expired_token') throw new LoginError('LOGIN_EXPIRED', 'the login code expired before it was approved; run the command again for a new code');
  }
  const words = errorSaid(answer, redact);
  const said = words ? `: ${words.error}${words.detail ? ` (${words.detail.text})` : ''}` : '';
  const what = grant === 'refresh_token' ? 'the refresh' : 'the device code';
  throw new RequestError('LOGIN_REFUSED', `the token endpoint refused ${what} with ${status}${said}`, { status });
}

/** The interval after a slow_down: 5 s more, never past the login's bound (endless slow_downs end with it). */
export function slowedDown(intervalMs: number): number {
  return Math.min(intervalMs + SLOW_DOWN_MS, MAX_LOGIN_MS);
}

/** The refresh token of a token answer, when it holds one: kept by the cache (SPEC "Interactive login"). */
export function refreshTokenOf(document: Record<string, unknown>): string | undefined {
  const token = document['refresh_token'];
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/**
 * "JWT exp, else expires_in": the token answer's expires_in as the lifetime when the config gives
 * none, so an opaque access_token has an expiry too. A JWT's exp is read first by the extraction.
 */
export function answerLifetimeMs(document: Record<string, unknown>): number | undefined {
  const expiresIn = seconds(document['expires_in']);
  return expiresIn !== undefined && expiresIn > 0 ? expiresIn * 1000 : undefined;
}
