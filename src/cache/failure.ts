// Failures remembered, so that a broken credential does not become a storm (SPEC Cache): kubectl
// runs the plugin on every command and again on each retry, Argo CD on every cluster's reconcile, and
// an identity provider that sees hundreds of failed client logins a minute may lock the client out.
// A refusal or an unusable answer is served again for cache.failureTTL; an outage for its Retry-After
// or 10 s, whichever is longer, at most 5 min. Only exit 3 and 4 are remembered: a usage or config
// error never reaches the network, and a bug is not the token API's answer.
import { c1Escaped, RequestError, ResponseError, type CredentialError } from '../errors.js';
import { MAX_FAILURE_MESSAGE, MAX_FAILURE_MS, type RememberedFailure } from './store.js';

const OUTAGE_MIN_MS = 10_000;

/**
 * What to remember of `error`, or undefined. `redact` is the call's redactor: the message is stored
 * as it would be shown, so no secret reaches the entry.
 */
export function failureToRemember(error: unknown, failureTtlMs: number, now: number, redact: (text: string) => string): RememberedFailure | undefined {
  if (failureTtlMs <= 0) return undefined;
  let forMs: number;
  if (error instanceof ResponseError) forMs = failureTtlMs;
  else if (error instanceof RequestError) {
    const status = error.status;
    // An answer that is neither a 5xx, 408 nor 429 is the API's word on these inputs; no answer is an outage.
    const outage = status === undefined || status >= 500 || status === 408 || status === 429;
    forMs = outage ? Math.max(error.retryAfterMs ?? 0, OUTAGE_MIN_MS) : failureTtlMs;
  } else return undefined;
  const exitCode = (error as CredentialError).exitCode as 3 | 4;
  // Cut to what the reader takes: a longer message (a long URL) was stored and never served, and
  // its failure was asked again on every call. It is redacted before it is cut.
  const message = c1Escaped(redact(error.message));
  const kept = message.length > MAX_FAILURE_MESSAGE ? `${message.slice(0, MAX_FAILURE_MESSAGE - 1)}…` : message;
  return { exitCode, message: kept, at: now, until: now + Math.min(forMs, MAX_FAILURE_MS) };
}

/** The remembered message as served: it says it is one, until when, and how to ask again at once. */
export function rememberedMessage(failure: RememberedFailure, now: number): string {
  const ago = Math.max(0, Math.round((now - failure.at) / 1000));
  const until = new Date(failure.until).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `${failure.message} (remembered from ${ago}s ago until ${until}; webapi-credential cache clear retries now)`;
}

/** The error a remembered failure is served as: same exit code, the remembered message. */
export function recalled(failure: RememberedFailure, now: number): CredentialError {
  const message = rememberedMessage(failure, now);
  return failure.exitCode === 4 ? new ResponseError('REMEMBERED_FAILURE', message) : new RequestError('REMEMBERED_FAILURE', message);
}
