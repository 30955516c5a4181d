// RFC 8628, the device authorization grant: the request derived from the config's token request,
// the device authorization answer read and bounded, the prompt, and the polling. No clock, no
// network of its own: it runs through the session use-case/login.ts gives it.
import { ResponseError, UNSHOWABLE } from '../../errors.js';
import type { ProviderConfig, RequestConfig } from '../../config/schema.js';
import { describeRequest, shownUrl, type RenderedRequest } from '../../request/build.js';
import { LoginError, MAX_LOGIN_MS, readTokenAnswer, seconds, withGrant } from '../token.js';
import { asciiUri, isUserCode, otherHostNote } from '../prompt-checks.js';
import type { InteractiveGrant } from './grant.js';

export const DEVICE_ROOT = 'webAPIProviderConfig.login.deviceAuthorization';
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §3.2: 5 s when the server names no interval. */
const DEFAULT_INTERVAL_MS = 5_000;
/** An interval of 0 from a hostile server is not a busy loop: one poll a second at most. */
const MIN_INTERVAL_MS = 1_000;
/** RFC 8628 §3.5: slow_down adds 5 s to the interval, for this and every later request. */
export const SLOW_DOWN_MS = 5_000;
const MAX_URI = 2048;

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
  const login = config.login!.deviceAuthorization!;
  const own = config.body.kind === 'form' ? config.body.fields : {};
  return {
    ...config,
    url: login.url,
    query: {},
    body: { kind: 'form', fields: { ...own, ...login.form } },
  };
}

/** login's own templates, checked when the config loads (the inherited ones are checked as the main request's). */
function deviceTemplates(config: ProviderConfig): Array<[string, string]> {
  const login = config.login?.deviceAuthorization;
  if (!login) return [];
  const fields: Array<[string, string]> = [[`${DEVICE_ROOT}.url`, login.url]];
  for (const [name, templates] of Object.entries(login.form)) {
    templates.forEach((template, i) =>
      fields.push([`${DEVICE_ROOT}.form.${name}${templates.length > 1 ? `[${i}]` : ''}`, template]),
    );
  }
  return fields;
}

/** The device code's poll (RFC 8628 §3.4). */
export function pollRequest(tokenRequest: RenderedRequest, deviceCode: string): RenderedRequest {
  return withGrant(tokenRequest, { grant_type: DEVICE_CODE_GRANT, device_code: deviceCode });
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
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') &&
      url.username === '' &&
      url.password === '' &&
      !/^[a-z]+:\/\/[^/?#\\]*@/i.test(value)
    );
  } catch {
    return false;
  }
}

/** The device authorization answer (RFC 8628 §3.2), or exit 4 naming what is wrong with it. */
export function readDeviceAuthorization(document: unknown): DeviceAuthorization {
  const fail = (what: string) =>
    new ResponseError(
      'DEVICE_AUTHORIZATION',
      `the device authorization endpoint answered ${what}; check login.deviceAuthorization.url`,
      { framed: true },
    );
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw fail('no JSON object');
  const answer = document as Record<string, unknown>;
  if (typeof answer['device_code'] !== 'string' || answer['device_code'] === '') throw fail('no device_code');
  if (!isUserCode(answer['user_code']))
    throw fail(
      answer['user_code'] === undefined
        ? 'no user_code'
        : 'a user_code that is not a short code of printable ASCII without spaces',
    );
  const uri = webUri(answer['verification_uri']) ? asciiUri(answer['verification_uri']) : undefined;
  if (uri === undefined)
    throw fail(
      answer['verification_uri'] === undefined
        ? 'no verification_uri'
        : 'a verification_uri that is not an http(s) URL a person can open',
    );
  const expiresIn = seconds(answer['expires_in']);
  if (expiresIn === undefined || expiresIn <= 0) throw fail('no expires_in (seconds the code lives)');
  const interval = seconds(answer['interval']);
  const complete = webUri(answer['verification_uri_complete'])
    ? asciiUri(answer['verification_uri_complete'])
    : undefined;
  return {
    deviceCode: answer['device_code'],
    userCode: answer['user_code'],
    // Shown with the host a browser resolves: an IDN homograph of the issuer's name reads as punycode.
    verificationUri: uri,
    ...(complete !== undefined ? { verificationUriComplete: complete } : {}),
    expiresInMs: Math.min(expiresIn * 1000, MAX_LOGIN_MS),
    intervalMs:
      interval === undefined ? DEFAULT_INTERVAL_MS : Math.max(Math.min(interval * 1000, MAX_LOGIN_MS), MIN_INTERVAL_MS),
  };
}

/**
 * What a person reads on stderr: where to go and the code to check or type. Neither is a secret.
 * With `endpoint` (the device authorization request's URL), a page on another host is pointed out.
 * The lines are the plugin's frame: what the identity provider gave (the page, the code, its host)
 * goes in through `redact`, in full (it may echo what was sent); the endpoint's host as `shownEndpoint`
 * shows it (otherHostNote).
 */
export function promptLines(
  authorization: DeviceAuthorization,
  endpoint?: string,
  redact: (text: string) => string = (text) => text,
  shownEndpoint = endpoint,
): string[] {
  const minutes = Math.max(1, Math.round(authorization.expiresInMs / 60_000));
  const within = `within ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const page = authorization.verificationUriComplete ?? authorization.verificationUri;
  const note = endpoint !== undefined ? otherHostNote(page, endpoint, redact, shownEndpoint) : undefined;
  const [shown, code] = [redact(page), redact(authorization.userCode)];
  const lines = authorization.verificationUriComplete
    ? [`to log in, open ${shown}`, `and check that it shows the code ${code} (${within}; Ctrl-C cancels)`]
    : [`to log in, open ${shown}`, `and enter the code ${code} (${within}; Ctrl-C cancels)`];
  return note !== undefined ? [...lines, note] : lines;
}

/** The interval after a slow_down: 5 s more, never past the login's bound (endless slow_downs end with it). */
export function slowedDown(intervalMs: number): number {
  return Math.min(intervalMs + SLOW_DOWN_MS, MAX_LOGIN_MS);
}

/** The device grant: ask for a device code, show the person where to go, poll until they approve, refuse, or the code expires. */
export const deviceGrant: InteractiveGrant = {
  name: 'device',
  root: DEVICE_ROOT,
  tokenGrant: 'device_code',
  // The device code's life, at most 15 minutes (its answer tells more, which the lock cannot wait for).
  boundMs: () => MAX_LOGIN_MS,
  scopeField: 'login.deviceAuthorization.form.scope',
  configured: (login) => login.deviceAuthorization !== undefined,
  request: deviceRequestConfig,
  templates: deviceTemplates,
  describe: (own, token) =>
    `# ${DEVICE_ROOT}\n${describeRequest(own)}\n# webAPIProviderConfig (polled)\n${describeRequest(pollRequest(token, 'device_code'))}`,
  run: async (session) => {
    const { config } = session;
    const start = session.now();
    // The login is bounded by the device code's life (at most 15 minutes), not by --timeout.
    session.until(start + MAX_LOGIN_MS);
    const deviceRequest = await session.own();
    // A Ctrl-C while the request was rendered: it is not sent.
    session.checkpoint();
    const answer = await session.post(deviceRequest, start + config.timeoutMs * (config.retryLimit + 1), false, {
      endpoint: 'device authorization',
    });
    const authorization = readDeviceAuthorization(answer.document);
    session.secret(authorization.deviceCode);
    const end = start + authorization.expiresInMs;
    session.until(end);
    // A verification_uri_complete that carries a secret (the device code) would be shown redacted, a
    // link nobody can open: the prompt names verification_uri and the code to enter instead.
    const complete = authorization.verificationUriComplete;
    const { verificationUriComplete: _dropped, ...plain } = authorization;
    const shown = complete !== undefined && session.holdsSecret(complete) ? plain : authorization;
    for (const line of promptLines(shown, deviceRequest.url, session.redact, shownUrl(deviceRequest)))
      session.say(line, true);
    let interval = authorization.intervalMs;
    for (;;) {
      // RFC 8628 §3.5: the interval is waited before each request, the first one included.
      await session.sleep(Math.max(0, Math.min(interval, end - session.now())));
      // Ctrl-C during the wait: no poll after it.
      session.checkpoint();
      if (session.now() >= end)
        throw new LoginError(
          'LOGIN_EXPIRED',
          'the login code expired before it was approved; run the command again for a new code',
          { framed: true },
        );
      // Rendered anew for each poll: a client assertion (jwt()) is single-use.
      const poll = await session.token({ grant_type: DEVICE_CODE_GRANT, device_code: authorization.deviceCode });
      session.checkpoint();
      const { status, document } = await session.post(poll, end + config.timeoutMs, true, {
        endpoint: 'token',
        grant: DEVICE_CODE_GRANT,
      });
      const step = readTokenAnswer(status, document, 'device_code', session.redact);
      if (step.kind === 'slow_down') interval = slowedDown(interval);
      if (step.kind === 'token') return step.document;
    }
  },
};
