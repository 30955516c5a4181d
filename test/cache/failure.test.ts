// What a failure leaves in the cache (cache/failure.ts): its redacted message, cut to what the
// reader serves, and how long it is served again. A refusal (the API's word on these inputs) is kept
// for cache.failureTTL; an outage (no answer, a 5xx, 408, 429) for its Retry-After or 10 s, at most
// 5 min, whatever failureTTL says: a 429 with Retry-After: 3 under failureTTL: 5m must not lock the
// user out for five minutes, nor a 401 be asked again every 10 s by every kubectl command.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestError, ResponseError, UsageError } from '../../src/errors.js';
import { failureToRemember, recalled, rememberedMessage } from '../../src/cache/failure.js';
import { MAX_FAILURE_MESSAGE } from '../../src/cache/store.js';

const same = (text: string) => text;
const FOUR_MIN = 4 * 60_000;

/** How long `error` is remembered under failureTTL `ttl`, or undefined when it is not. */
function keptFor(error: unknown, ttl = FOUR_MIN): number | undefined {
  const kept = failureToRemember(error, ttl, 1_000, same);
  return kept === undefined ? undefined : kept.until - kept.at;
}

describe('failureToRemember', () => {
  it('cuts a message longer than the reader takes, after redacting it', () => {
    const secret = 'long-url-secret-Qw9';
    const error = new RequestError('HTTP_STATUS', `https://x.example/${'p'.repeat(20_000)}?k=${secret} answered 401`, {
      status: 401,
    });
    const kept = failureToRemember(error, 10_000, 1_000, (text) => text.replaceAll(secret, '[REDACTED]'))!;
    expect(kept.message.length).toBe(MAX_FAILURE_MESSAGE);
    expect(kept.message.endsWith('…')).toBe(true);
    expect(kept).toMatchObject({ exitCode: 3, at: 1_000, until: 11_000 });
  });

  it('keeps a short message whole, redacted', () => {
    const error = new RequestError('HTTP_STATUS', 'the token API answered 401 for s3cr3t-Zz1', { status: 401 });
    expect(failureToRemember(error, 10_000, 0, (text) => text.replace('s3cr3t-Zz1', '[REDACTED]'))!.message).toBe(
      'the token API answered 401 for [REDACTED]',
    );
  });

  it.each([
    [
      'the whole-call deadline of a request',
      new RequestError('DEADLINE', 'no answer from https://x.example/token within --timeout 1s'),
      undefined,
    ],
    [
      "the whole-call deadline while a step's answer was taken in",
      new RequestError('DEADLINE', 'its answer could not be taken in within the whole-call deadline (--timeout)'),
      undefined,
    ],
    [
      "a per-attempt timeout (the config's timeout)",
      new RequestError('TIMEOUT', 'no answer from https://x.example/token within the per-attempt timeout 2s'),
      10_000,
    ],
    ['a refused connection', new RequestError('CONNECT', 'connection to https://x.example/token refused'), 10_000],
    ['a 503', new RequestError('HTTP_STATUS', 'the token API answered 503', { status: 503 }), 10_000],
  ])('remembers %s for %s ms (undefined: not at all)', (_name, error, forMs) => {
    const kept = failureToRemember(error, 10_000, 0, (text) => text);
    expect(kept === undefined ? undefined : kept.until - kept.at).toBe(forMs);
  });

  it('keeps a message of exactly the length the reader takes whole', () => {
    const text = 'm'.repeat(MAX_FAILURE_MESSAGE);
    expect(failureToRemember(new RequestError('HTTP_STATUS', text, { status: 401 }), 10_000, 0, same)!.message).toBe(
      text,
    );
  });

  it('stores C1 control characters escaped, so a served message cannot drive the terminal', () => {
    const error = new ResponseError('NO_TOKEN', 'bad answer \u009b31m here');
    expect(failureToRemember(error, 10_000, 0, same)!.message).toBe('bad answer \\u009b31m here');
  });

  it.each<[string, unknown, number | undefined]>([
    ['a 401 refusal', new RequestError('HTTP_STATUS', 'answered 401', { status: 401 }), FOUR_MIN],
    ['a 400 refusal', new RequestError('HTTP_STATUS', 'answered 400', { status: 400 }), FOUR_MIN],
    ['a 499 refusal', new RequestError('HTTP_STATUS', 'answered 499', { status: 499 }), FOUR_MIN],
    [
      'a 401 whatever its Retry-After',
      new RequestError('HTTP_STATUS', 'answered 401', { status: 401, retryAfterMs: 3_000 }),
      FOUR_MIN,
    ],
    ['an unusable answer (exit 4)', new ResponseError('NO_TOKEN', 'tokenPath matched nothing'), FOUR_MIN],
    [
      'a 429 with Retry-After: 3 (10 s at least)',
      new RequestError('HTTP_STATUS', 'answered 429', { status: 429, retryAfterMs: 3_000 }),
      10_000,
    ],
    [
      'a 429 with Retry-After: 30',
      new RequestError('HTTP_STATUS', 'answered 429', { status: 429, retryAfterMs: 30_000 }),
      30_000,
    ],
    ['a 408', new RequestError('HTTP_STATUS', 'answered 408', { status: 408 }), 10_000],
    ['a 500', new RequestError('HTTP_STATUS', 'answered 500', { status: 500 }), 10_000],
    ['a 502', new RequestError('HTTP_STATUS', 'answered 502', { status: 502 }), 10_000],
    [
      'a 503 with Retry-After: 3600 (5 min at most)',
      new RequestError('HTTP_STATUS', 'answered 503', { status: 503, retryAfterMs: 3_600_000 }),
      300_000,
    ],
    ['no answer (connection refused)', new RequestError('CONNECT', 'connection refused'), 10_000],
    ['a usage error (never reached the network)', new UsageError('BAD_CONFIG', 'bad config'), undefined],
    ['a bug', new Error('boom'), undefined],
  ])('under failureTTL 4m, remembers %s for the right time', (_name, error, forMs) => {
    expect(keptFor(error)).toBe(forMs);
  });

  it('remembers a refusal with its exit code and time', () => {
    expect(failureToRemember(new ResponseError('NO_TOKEN', 'no token'), 60_000, 5_000, same)).toEqual({
      exitCode: 4,
      message: 'no token',
      at: 5_000,
      until: 65_000,
    });
    expect(
      failureToRemember(new RequestError('HTTP_STATUS', 'answered 403', { status: 403 }), 60_000, 5_000, same),
    ).toEqual({
      exitCode: 3,
      message: 'answered 403',
      at: 5_000,
      until: 65_000,
    });
  });

  it('remembers nothing, not even an outage, with failureTTL: 0s', () => {
    expect(keptFor(new ResponseError('NO_TOKEN', 'no token'), 0)).toBeUndefined();
    expect(keptFor(new RequestError('HTTP_STATUS', 'answered 401', { status: 401 }), 0)).toBeUndefined();
    expect(
      keptFor(new RequestError('HTTP_STATUS', 'answered 429', { status: 429, retryAfterMs: 3_000 }), 0),
    ).toBeUndefined();
  });

  it('tells every status an outage or a refusal, whatever failureTTL and Retry-After are (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.integer({ min: 1, max: 5 * 60_000 }),
        fc.option(fc.integer({ min: 0, max: 10 * 60_000 }), { nil: undefined }),
        (status, ttl, retryAfterMs) => {
          const forMs = keptFor(new RequestError('HTTP_STATUS', `answered ${status}`, { status, retryAfterMs }), ttl);
          const outage = status >= 500 || status === 408 || status === 429;
          expect(forMs).toBe(outage ? Math.min(Math.max(retryAfterMs ?? 0, 10_000), 300_000) : ttl);
        },
      ),
    );
  });
});

describe('a remembered failure, served again', () => {
  const failure = { exitCode: 3 as const, message: 'the token API answered 401', at: 10_000, until: 70_000 };

  it('says it is one, how old it is, and how to ask again at once', () => {
    expect(rememberedMessage(failure, 22_400)).toBe(
      'the token API answered 401 (remembered from 12s ago until 1970-01-01T00:01:10Z; webapi-credential cache clear retries now)',
    );
  });

  it('is never from the future, when the clock went back', () => {
    expect(rememberedMessage(failure, 4_000)).toBe(
      'the token API answered 401 (remembered from 0s ago until 1970-01-01T00:01:10Z; webapi-credential cache clear retries now)',
    );
  });

  it('fails with the exit code it failed with', () => {
    const request = recalled(failure, 12_000);
    expect(request).toBeInstanceOf(RequestError);
    expect(request).toMatchObject({ exitCode: 3, code: 'REMEMBERED_FAILURE' });
    expect(request.message).toBe(
      'the token API answered 401 (remembered from 2s ago until 1970-01-01T00:01:10Z; webapi-credential cache clear retries now)',
    );
    const response = recalled({ ...failure, exitCode: 4, message: 'no token' }, 12_000);
    expect(response).toBeInstanceOf(ResponseError);
    expect(response).toMatchObject({ exitCode: 4, code: 'REMEMBERED_FAILURE' });
    expect(response.message).toBe(
      'no token (remembered from 2s ago until 1970-01-01T00:01:10Z; webapi-credential cache clear retries now)',
    );
  });
});
