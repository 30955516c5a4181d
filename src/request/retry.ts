// When to try again. Pure (got's calculateRetryDelay is the model): the caller supplies the clock
// and the randomness, so the table in test/retry.test.ts is exact.

export const RETRY_STATUS_CODES = [408, 429, ...Array.from({ length: 100 }, (_, i) => 500 + i)];
const BASE_MS = 500;
const CAP_MS = 8_000;
/** A Retry-After longer than this is not waited for: the caller would rather hear the error. */
export const RETRY_AFTER_CAP_MS = 60_000;

export interface RetryInput {
  /** 1 for the first retry. */
  attempt: number;
  /** From the Retry-After header, when the answer had one. */
  retryAfterMs: number | undefined;
  now: number;
  /** The whole-call deadline (ms since epoch). */
  deadline: number;
  /** 0 <= random < 1 */
  random: number;
  /** How long the attempt that failed took (ms): the next one is given as long, at the least. */
  lastAttemptMs?: number;
}

/** Milliseconds to wait before the next attempt, or 0 for "do not retry". */
export function retryDelay({ attempt, retryAfterMs, now, deadline, random, lastAttemptMs = 0 }: RetryInput): number {
  let delay: number;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > RETRY_AFTER_CAP_MS) return 0;
    delay = Math.max(retryAfterMs, 1);
  } else {
    // Exponential backoff with "equal jitter": half fixed, half random, so callers spread out.
    const backoff = Math.min(BASE_MS * 2 ** (attempt - 1), CAP_MS);
    delay = backoff / 2 + (backoff / 2) * random;
  }
  // A retry that cannot end before the deadline would only turn a clear error into a timeout: it is
  // made only when there is room for an attempt as long as the last one (a busy machine's is longer).
  return now + delay < deadline - Math.max(50, lastAttemptMs) ? Math.round(delay) : 0;
}

/** Parses Retry-After: delta seconds or an HTTP date. */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // HTTP dates start with the day name; Date.parse would also read "1.5" or "-1" as days in 2001,
  // turning a malformed header into an immediate retry.
  if (!/^[A-Za-z]/.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(date - now, 0) : undefined;
}

/**
 * The grants whose request the server honours once (SPEC "Interactive login"): a refresh token that
 * rotates (a second use is a reuse, which revokes the grant under strict rotation), a device code
 * (RFC 8628 §3.5: its tokens are issued once), an authorization code (RFC 6749 §4.1.2). Their
 * request is never sent again after it may have reached the server.
 */
export const SINGLE_USE_GRANTS: readonly string[] = [
  'refresh_token',
  'authorization_code',
  'urn:ietf:params:oauth:grant-type:device_code',
];

/** Failures before anything was sent (no connection, no name, no tunnel): even a single-use request may go again. */
const NOT_SENT_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRINUSE',
  'ERR_PROXY_TUNNEL',
];

/**
 * Whether a failed attempt of a single-use request may be sent again: only when it cannot have
 * reached the server. An answer (any status: a gateway's 5xx may have passed it on), a timeout or a
 * reset connection may all follow a request the server took.
 */
export function singleUseMayResend(failure: { status?: number | undefined; code?: string | undefined }): boolean {
  return failure.status === undefined && failure.code !== undefined && NOT_SENT_CODES.includes(failure.code);
}

/** The timeout of a single-use request's attempt: the whole time left to the deadline, since it is the only one. */
export function singleUseTimeoutMs(now: number, deadline: number): number {
  return Math.max(1, deadline - now);
}
