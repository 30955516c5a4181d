// When to try again: a pure function of the attempt, Retry-After, the clock, the deadline and a
// random number, so every row is exact.
import { describe, expect, it } from 'vitest';
import {
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  RETRY_STATUS_CODES,
  retryDelay,
  type RetryInput,
} from '../../src/request/retry.js';

const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);
const FAR = NOW + 3_600_000;
const input = (patch: Partial<RetryInput>): RetryInput => ({
  attempt: 1,
  retryAfterMs: undefined,
  now: NOW,
  deadline: FAR,
  random: 0,
  ...patch,
});

describe('retryDelay', () => {
  it.each<[string, Partial<RetryInput>, number]>([
    ['the first retry waits at least 250ms', { attempt: 1, random: 0 }, 250],
    ['the first retry waits at most 500ms', { attempt: 1, random: 0.999999 }, 500],
    ['the first retry with middle jitter', { attempt: 1, random: 0.5 }, 375],
    ['the second retry doubles the backoff', { attempt: 2, random: 0 }, 500],
    ['the third retry doubles it again', { attempt: 3, random: 0.5 }, 1500],
    ['the fifth retry reaches the 8s cap', { attempt: 5, random: 0.999999 }, 8000],
    ['the tenth retry stays under the cap', { attempt: 10, random: 0 }, 4000],
    ['Retry-After is honoured exactly', { retryAfterMs: 3000, random: 0.9 }, 3000],
    ['Retry-After of zero still waits 1ms', { retryAfterMs: 0 }, 1],
    ['Retry-After at the cap is waited for', { retryAfterMs: RETRY_AFTER_CAP_MS }, 60_000],
    ['Retry-After above the cap means do not retry', { retryAfterMs: RETRY_AFTER_CAP_MS + 1 }, 0],
    ['a retry that would start after the deadline is not made', { attempt: 3, random: 0, deadline: NOW + 1000 }, 0],
    [
      'a retry that would start within 50ms of the deadline is not made',
      { attempt: 1, random: 0, deadline: NOW + 300 },
      0,
    ],
    [
      'a retry that starts just over 50ms before the deadline is made',
      { attempt: 1, random: 0, deadline: NOW + 301 },
      250,
    ],
    [
      'a retry with less time left than the last attempt took is not made',
      { attempt: 1, random: 0, deadline: NOW + 1000, lastAttemptMs: 751 },
      0,
    ],
    [
      'a retry with as long left as the last attempt took, and a little, is made',
      { attempt: 1, random: 0, deadline: NOW + 1000, lastAttemptMs: 749 },
      250,
    ],
    ['a Retry-After past the deadline is not waited for', { retryAfterMs: 5000, deadline: NOW + 4000 }, 0],
    ['a deadline already passed stops retries', { deadline: NOW - 1 }, 0],
  ])('%s', (_name, patch, expected) => {
    expect(retryDelay(input(patch))).toBe(expected);
  });
});

describe('parseRetryAfter', () => {
  it.each<[string, string | undefined, number | undefined]>([
    ['no header', undefined, undefined],
    ['delta seconds', '120', 120_000],
    ['delta seconds with spaces', ' 5 ', 5000],
    ['zero seconds', '0', 0],
    ['an HTTP date in the future', 'Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['an HTTP date in the past', 'Wed, 31 Dec 2025 23:59:00 GMT', 0],
    ['an obsolete RFC 850 date', 'Thursday, 01-Jan-26 00:00:10 GMT', 10_000],
    ['an asctime date', 'Thu Jan  1 00:00:20 2026', 20_000],
    ['garbage', 'soon', undefined],
    ['an empty value', '', undefined],
    ['fractional seconds, which RFC 9110 does not allow', '1.5', undefined],
    ['negative seconds', '-1', undefined],
  ])('reads %s', (_name, header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('RETRY_STATUS_CODES', () => {
  it('holds 408, 429 and every 5xx, and nothing else', () => {
    expect(RETRY_STATUS_CODES.filter((c) => c < 500)).toEqual([408, 429]);
    expect(RETRY_STATUS_CODES.filter((c) => c >= 500)).toEqual(Array.from({ length: 100 }, (_, i) => 500 + i));
  });
});
