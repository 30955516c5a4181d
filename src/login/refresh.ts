// The rules of a refresh (RFC 6749 §6) that decide the refresh token's life, as pure pieces: which
// answer ends it, what a 2xx answer that gives no credential still gives, and whether a call has the
// time to start one at all. use-case/login.ts applies them; the cache keeps or drops the token.
import { RequestError, ResponseError } from '../errors.js';

/**
 * The issuer's word that the refresh token is no good: `invalid_grant` in a JSON error answer (RFC
 * 6749 §5.2). The only failure that drops a refresh token: a gateway's 403/404/407 page, a 401
 * `invalid_client`, a 5xx or a timeout says nothing about the token, which the issuer may still honour.
 */
export class RefreshRefused extends RequestError {}

/** Whether a refresh's error answer is the issuer's refusal of the token itself. */
export function isInvalidGrant(status: number, document: unknown): boolean {
  if (status < 400 || status > 499 || typeof document !== 'object' || document === null || Array.isArray(document))
    return false;
  return (document as Record<string, unknown>)['error'] === 'invalid_grant';
}

/** The refusal as the error that drops the token: the same words and status as the one read. */
export function refused(error: RequestError): RefreshRefused {
  return new RefreshRefused(error.code, error.message, { status: error.status, cause: error, framed: error.framed });
}

/**
 * A refresh answer without an id_token (OIDC Core §12.2 lets an issuer leave it out): asking for the
 * openid scope again would not help, the login had it. The refresh token it sent is kept.
 */
export function noIdTokenOnRefresh(): ResponseError {
  return new ResponseError(
    'NO_ID_TOKEN',
    'the token endpoint answered the refresh without an id_token (OpenID Connect lets an issuer leave it out of a refresh answer; the refresh token it sent is kept): set tokenPath: $.access_token if the cluster takes the access token, else have the issuer return an id_token on refresh',
  );
}

/**
 * Whether a call may start a refresh: its one attempt (single-use: never resent) must be able to
 * take as long as a request of this config may (its per-attempt timeout), or half the whole
 * --timeout when that is shorter (a short --timeout is the caller's choice, not a reason to never
 * refresh). A refresh sent with less would be given up while the issuer may still rotate the
 * token, and the rotated one be lost with the answer: a caller that waited out most of its time
 * (on another's lock) leaves the refresh to the next call.
 */
export function refreshFits(now: number, deadline: number, attemptTimeoutMs: number, wholeTimeoutMs: number): boolean {
  return deadline - now >= Math.min(attemptTimeoutMs, wholeTimeoutMs / 2);
}

/** The failure of a call that had no time left to start a refresh: its deadline's, never remembered; the token is kept. */
export function noTimeToRefresh(leftMs: number, wholeTimeoutMs: number): RequestError {
  const left = Math.max(0, Math.round(leftMs / 100) / 10);
  return new RequestError(
    'DEADLINE',
    `no refresh started with ${left}s of --timeout ${Math.round(wholeTimeoutMs / 100) / 10}s left: the issuer could rotate the refresh token after this call gave up; it is kept for the next call`,
  );
}
