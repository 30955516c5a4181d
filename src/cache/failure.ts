// Failures remembered, so that a broken credential does not become a storm (SPEC Cache): kubectl
// runs the plugin on every command and again on each retry, Argo CD on every cluster's reconcile, and
// an identity provider that sees hundreds of failed client logins a minute may lock the client out.
// A refusal or an unusable answer is served again for cache.failureTTL; an outage for its Retry-After
// or 10 s, whichever is longer, at most 5 min. Only exit 3 and 4 are remembered: a usage or config
// error never reaches the network, and a bug is not the token API's answer.
import { shownOnTerminal, CredentialError, RequestError, ResponseError } from '../errors.js';
import type { CredentialStatus } from '../credential/exec-credential.js';
import { MAX_FAILURE_MESSAGE, MAX_FAILURE_MS, type RememberedFailure, type Stale } from './store.js';

const OUTAGE_MIN_MS = 10_000;

/**
 * What to remember of `error`, or undefined. `redact` is the call's redactor: the message is stored
 * as it would be shown, so no secret reaches the entry.
 */
export function failureToRemember(
  error: unknown,
  failureTtlMs: number,
  now: number,
  redact: (text: string, framed: boolean) => string,
): RememberedFailure | undefined {
  if (failureTtlMs <= 0) return undefined;
  // The caller's own --timeout ran out: its deadline, not the API's state. One caller's short
  // deadline (a script, a probe, doctor --timeout 1s) must not deny the credential to a longer one.
  if (isDeadline(error)) return undefined;
  let forMs: number;
  if (error instanceof ResponseError) forMs = failureTtlMs;
  else if (error instanceof RequestError) {
    const status = error.status;
    // An answer that is neither a 5xx, 408 nor 429 is the API's word on these inputs; no answer is an outage.
    const outage = status === undefined || status >= 500 || status === 408 || status === 429;
    forMs = outage ? Math.max(error.retryAfterMs ?? 0, OUTAGE_MIN_MS) : failureTtlMs;
  } else return undefined;
  const exitCode = error.exitCode as 3 | 4;
  // Cut to what the reader takes: a longer message (a long URL) was stored and never served, and
  // its failure was asked again on every call. It is redacted before it is cut.
  const message = shownMessage(error, { redact });
  const kept = message.length > MAX_FAILURE_MESSAGE ? `${message.slice(0, MAX_FAILURE_MESSAGE - 1)}…` : message;
  return {
    exitCode,
    message: kept,
    at: now,
    until: now + Math.min(forMs, MAX_FAILURE_MS),
    ...(isOutage(error) ? { outage: true } : {}),
  };
}

/** No answer, or none to go by (SPEC "Served through an outage"): what a cached credential is served through. */
const UNREACHABLE = ['DNS', 'CONNECT', 'TIMEOUT', 'DEADLINE'];

/**
 * The token API is unreachable, timed out, or answered 5xx, 408 or 429. A refusal (another 4xx), an
 * unusable answer or a TLS failure is not: the credential may have been revoked, or the peer is not
 * the token API.
 */
export function isOutage(error: unknown): boolean {
  if (!(error instanceof RequestError)) return false;
  const status = error.status;
  if (status !== undefined) return status >= 500 || status === 408 || status === 429;
  return UNREACHABLE.includes(error.code);
}

/** A failure that the caller's whole-call deadline (--timeout) caused (request/http-errors.ts, steps.ts). */
export function isDeadline(error: unknown): boolean {
  return error instanceof RequestError && error.code === 'DEADLINE';
}

/**
 * An error's message as the reporter shows it: a framed one (the plugin's frame, its echoes redacted
 * where they were put in) checked for the secrets read, any other for every value. Kept or re-worded
 * by the cache, it is then the frame of the line that holds it.
 */
export function shownMessage(error: unknown, memory: { redact: (text: string, framed: boolean) => string }): string {
  const framed = error instanceof CredentialError && error.framed;
  return shownOnTerminal(error instanceof Error ? error.message : String(error), (text) => memory.redact(text, framed));
}

/** The remembered message as served: it says it is one, until when, and how to ask again at once. */
export function rememberedMessage(failure: RememberedFailure, now: number): string {
  const ago = Math.max(0, Math.round((now - failure.at) / 1000));
  const until = new Date(failure.until).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `${failure.message} (remembered from ${ago}s ago until ${until}; webapi-credential cache clear retries now)`;
}

/**
 * The error a remembered failure is served as: same exit code, the remembered message. The plugin's
 * frame: the message was redacted as it was shown when kept (shownMessage), and the same inputs
 * make the same key, so a value a secret decided was redacted in what echoed it then.
 */
export function recalled(failure: RememberedFailure, now: number): CredentialError {
  const message = rememberedMessage(failure, now);
  return failure.exitCode === 4
    ? new ResponseError('REMEMBERED_FAILURE', message, { framed: true })
    : new RequestError('REMEMBERED_FAILURE', message, { framed: true });
}

/** Served through an outage, a credential is reported as expiring this soon at most: client-go asks again. */
const THROUGH_OUTAGE_MS = 60_000;

/**
 * A stale credential served through an outage (SPEC "Served through an outage"): reported to expire
 * no later than its real expiry and at most a minute away, with the note for stderr naming the
 * failure (`message`, redacted) and the real expiry.
 */
/**
 * A credential in its margin window served while process `pid` refreshes it (stale-while-revalidate):
 * as through an outage, and the trace line that says so. The fast path and the full one say it alike.
 */
export function whileRefreshing(
  stale: Stale,
  pid: number | undefined,
  now: number,
): { status: CredentialStatus; text: string } {
  const { status } = throughOutage(stale, '', now);
  const valid = new Date(stale.expiresAt).toISOString();
  return {
    status,
    text: `served the cached credential, valid until ${valid}, as ${status.expirationTimestamp}, while process ${pid ?? '?'} refreshes it`,
  };
}

export function throughOutage(stale: Stale, message: string, now: number): { status: CredentialStatus; note: string } {
  // Whole seconds, rounded down: never past the real expiry.
  const until = Math.floor(Math.min(stale.expiresAt, now + THROUGH_OUTAGE_MS) / 1000) * 1000;
  const real = new Date(stale.expiresAt).toISOString();
  return {
    status: { ...stale.status, expirationTimestamp: new Date(until).toISOString().replace('.000Z', 'Z') },
    note: `${message}; served through an outage: the cached credential, which really expires at ${real}`,
  };
}
