// What a failure leaves in the cache (cache/failure.ts): its redacted message, cut to what the
// reader serves. A longer one was stored and never served, so that failure was asked again on
// every call (no storm protection for a config with a long URL).
import { describe, expect, it } from 'vitest';
import { RequestError } from '../../src/errors.js';
import { failureToRemember } from '../../src/cache/failure.js';
import { MAX_FAILURE_MESSAGE } from '../../src/cache/store.js';

describe('failureToRemember', () => {
  it('cuts a message longer than the reader takes, after redacting it', () => {
    const secret = 'long-url-secret-Qw9';
    const error = new RequestError('HTTP_STATUS', `https://x.example/${'p'.repeat(20_000)}?k=${secret} answered 401`, { status: 401 });
    const kept = failureToRemember(error, 10_000, 1_000, (text) => text.replaceAll(secret, '[REDACTED]'))!;
    expect(kept.message.length).toBe(MAX_FAILURE_MESSAGE);
    expect(kept.message.endsWith('…')).toBe(true);
    expect(kept).toMatchObject({ exitCode: 3, at: 1_000, until: 11_000 });
  });

  it('keeps a short message whole, redacted', () => {
    const error = new RequestError('HTTP_STATUS', 'the token API answered 401 for s3cr3t-Zz1', { status: 401 });
    expect(failureToRemember(error, 10_000, 0, (text) => text.replace('s3cr3t-Zz1', '[REDACTED]'))!.message).toBe('the token API answered 401 for [REDACTED]');
  });

  it.each([
    ['the whole-call deadline of a request', new RequestError('DEADLINE', 'no answer from https://x.example/token within --timeout 1s'), undefined],
    ["the whole-call deadline while a step's answer was taken in", new RequestError('DEADLINE', 'its answer could not be taken in within the whole-call deadline (--timeout)'), undefined],
    ['a per-attempt timeout (the config\'s timeout)', new RequestError('TIMEOUT', 'no answer from https://x.example/token within the per-attempt timeout 2s'), 10_000],
    ['a refused connection', new RequestError('CONNECT', 'connection to https://x.example/token refused'), 10_000],
    ['a 503', new RequestError('HTTP_STATUS', 'the token API answered 503', { status: 503 }), 10_000],
  ])('remembers %s for %s ms (undefined: not at all)', (_name, error, forMs) => {
    const kept = failureToRemember(error, 10_000, 0, (text) => text);
    expect(kept === undefined ? undefined : kept.until - kept.at).toBe(forMs);
  });
});
