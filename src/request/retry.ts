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
}

/** Milliseconds to wait before the next attempt, or 0 for "do not retry". */
export function retryDelay({ attempt, retryAfterMs, now, deadline, random }: RetryInput): number {
  let delay: number;
  if (retryAfterMs !== undefined) {
    if (retryAfterMs > RETRY_AFTER_CAP_MS) return 0;
    delay = Math.max(retryAfterMs, 1);
  } else {
    // Exponential backoff with "equal jitter": half fixed, half random, so callers spread out.
    const backoff = Math.min(BASE_MS * 2 ** (attempt - 1), CAP_MS);
    delay = backoff / 2 + (backoff / 2) * random;
  }
  // A retry that cannot start before the deadline would only turn a clear error into a timeout.
  return now + delay < deadline - 50 ? Math.round(delay) : 0;
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
