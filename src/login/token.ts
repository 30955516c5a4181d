// The token endpoint as every grant of a login meets it (RFC 6749 §4-§6): the token request of one
// grant, what its answer means, the refresh token and lifetime it carries. Pure: the grants
// (grants/) and use-case/login.ts run them.
import { ResponseError, RequestError, terminalSafe, UsageError } from '../errors.js';
import type { RenderedRequest } from '../request/build.js';
import { errorSaid } from '../credential/error-fields.js';

/** A person typing cannot meet --timeout; nor should a server keep the plugin for an hour (SPEC). */
export const MAX_LOGIN_MS = 15 * 60_000;
/** Exit 2: no login happened, for a reason a person decides (refused, too late, Ctrl-C, nobody there). */
export class LoginError extends UsageError {}

/**
 * The token request of one grant: the config's token request with the grant's fields added to its
 * form (grant_type and device_code, or refresh_token). The caller registers the values as secrets first.
 */
export function withGrant(request: RenderedRequest, fields: Record<string, string>): RenderedRequest {
  const added = new URLSearchParams(fields).toString();
  const headers = { ...request.headers };
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type'))
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  const body = request.body ? `${request.body}&${added}` : added;
  // What render and messages show: the grant's values are secret, so they are shown as their names.
  const shownAdded = Object.keys(fields)
    .map(
      (name) =>
        `${encodeURIComponent(name)}=${name === 'grant_type' ? encodeURIComponent(fields[name]!) : `[${name}]`}`,
    )
    .join('&');
  const shown = request.shown ?? { url: request.url, headers: request.headers, body: request.body };
  return {
    ...request,
    headers,
    body,
    shown: { url: shown.url, headers, body: shown.body ? `${shown.body}&${shownAdded}` : shownAdded },
  };
}

/** A count of seconds a server sent, as a number or a numeric string. */
export function seconds(value: unknown): number | undefined {
  const number = typeof value === 'string' && /^\d{1,9}$/.test(value.trim()) ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number >= 0 ? number : undefined;
}

/** A server's text in a message, quoted, its UNSHOWABLE characters as escapes. */
export function quoted(text: string): string {
  return terminalSafe(JSON.stringify(text));
}

/** What one answer of the token endpoint means for the polling. */
export type PollStep =
  { kind: 'token'; document: Record<string, unknown> } | { kind: 'pending' } | { kind: 'slow_down' };

/**
 * Reads one answer of the token endpoint to a poll or a refresh: a token answer, a reason to wait,
 * or the end (thrown). `redact` is the run's redactor, for the echoes an error answer may hold.
 */
export function readTokenAnswer(
  status: number,
  document: unknown,
  grant: 'device_code' | 'refresh_token' | 'authorization_code',
  redact: (text: string) => string = (text) => text,
): PollStep {
  const answer =
    typeof document === 'object' && document !== null && !Array.isArray(document)
      ? (document as Record<string, unknown>)
      : undefined;
  if (status >= 200 && status <= 299) {
    if (!answer)
      throw new ResponseError('RESPONSE_NOT_OBJECT', 'the token endpoint answered JSON that is not an object', {
        framed: true,
      });
    return { kind: 'token', document: answer };
  }
  const error = typeof answer?.['error'] === 'string' ? answer['error'] : undefined;
  if (grant === 'device_code') {
    if (error === 'authorization_pending') return { kind: 'pending' };
    if (error === 'slow_down') return { kind: 'slow_down' };
    if (error === 'access_denied')
      throw new LoginError(
        'LOGIN_DENIED',
        'the login was denied at the identity provider; run the command again to log in anew',
        { framed: true },
      );
    if (error === 'expired_token')
      throw new LoginError(
        'LOGIN_EXPIRED',
        'the login code expired before it was approved; run the command again for a new code',
        { framed: true },
      );
  }
  const words = errorSaid(answer, redact);
  const said = words ? `: ${words.error}${words.detail ? ` (${words.detail.text})` : ''}` : '';
  const what =
    grant === 'refresh_token'
      ? 'the refresh'
      : grant === 'authorization_code'
        ? 'the authorization code'
        : 'the device code';
  // The plugin's frame: what the API said is redacted in full where it is put in (errorSaid).
  throw new RequestError('LOGIN_REFUSED', `the token endpoint refused ${what} with ${status}${said}`, {
    status,
    framed: true,
  });
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
