// What a cached credential is served through (cache/failure.ts, SPEC "Served through an outage"):
// no answer, a timeout, a 5xx, 408 or 429 is the token API being down or busy, and a credential
// still inside its real lifetime is served; a refusal (any other 4xx), an unusable answer, a TLS or
// proxy failure or a config error is not, since the credential may have been revoked or the peer is
// not the token API. Served so, the credential is reported to expire no later than its real expiry
// and at most a minute away, with a note that names the failure and the real expiry.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RequestError, ResponseError, UsageError } from '../../src/errors.js';
import { failureToRemember, isOutage, throughOutage } from '../../src/cache/failure.js';

const answered = (status: number) => new RequestError('HTTP_STATUS', `the token API answered ${status}`, { status });

describe('what a cached credential is served through', () => {
  it.each([500, 502, 503, 504, 599, 408, 429])('an answer %i: the API is down or busy', (status) => {
    expect(isOutage(answered(status))).toBe(true);
  });

  it.each([400, 401, 403, 404, 407, 409, 418, 428, 430, 499, 300, 200])(
    'an answer %i: the API said no (or something else)',
    (status) => {
      expect(isOutage(answered(status))).toBe(false);
    },
  );

  it('tells every status the same way as the failure memory does (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (status) => {
        expect(isOutage(answered(status))).toBe(status >= 500 || status === 408 || status === 429);
      }),
    );
  });

  it.each(['DNS', 'CONNECT', 'TIMEOUT', 'DEADLINE'])('no answer at all (%s)', (code) => {
    expect(isOutage(new RequestError(code, 'no answer'))).toBe(true);
  });

  it.each(['TLS', 'PROXY', 'HTTP_STATUS', 'STEP'])(
    'a failure with no status that is not a missing answer (%s)',
    (code) => {
      expect(isOutage(new RequestError(code, 'refused'))).toBe(false);
    },
  );

  it('never an unusable answer, a config error or a bug, whatever they carry', () => {
    expect(isOutage(new ResponseError('NO_TOKEN', 'no token'))).toBe(false);
    expect(isOutage(new UsageError('CONFIG', 'bad config'))).toBe(false);
    expect(isOutage(Object.assign(new Error('bug'), { status: 503, code: 'TIMEOUT' }))).toBe(false);
    expect(isOutage(undefined)).toBe(false);
  });

  it('marks a remembered outage as one, and a remembered refusal not', () => {
    expect(failureToRemember(answered(503), 60_000, 5_000, (text) => text)).toEqual({
      exitCode: 3,
      message: 'the token API answered 503',
      at: 5_000,
      until: 15_000,
      outage: true,
    });
    expect(
      failureToRemember(new RequestError('TIMEOUT', 'no answer within 3s'), 60_000, 5_000, (text) => text),
    ).toMatchObject({ outage: true });
    expect(failureToRemember(answered(401), 60_000, 5_000, (text) => text)).toEqual({
      exitCode: 3,
      message: 'the token API answered 401',
      at: 5_000,
      until: 65_000,
    });
  });
});

describe('a credential served through an outage', () => {
  const status = { token: 'tok-1', expirationTimestamp: '1970-01-01T00:02:00Z' };
  const now = 100_000;

  it('is reported to expire at its real expiry when that is within a minute, in whole seconds rounded down', () => {
    const served = throughOutage({ status, expiresAt: 130_500 }, 'the token API answered 503', now);
    expect(served.status).toEqual({ token: 'tok-1', expirationTimestamp: '1970-01-01T00:02:10Z' });
    expect(served.note).toBe(
      'the token API answered 503; served through an outage: the cached credential, which really expires at 1970-01-01T00:02:10.500Z',
    );
  });

  it('is reported to expire a minute from now at most, so that client-go asks again', () => {
    const served = throughOutage({ status, expiresAt: 1_000_000 }, 'no answer within 3s', now);
    expect(served.status).toEqual({ token: 'tok-1', expirationTimestamp: '1970-01-01T00:02:40Z' });
    expect(served.note).toBe(
      'no answer within 3s; served through an outage: the cached credential, which really expires at 1970-01-01T00:16:40.000Z',
    );
  });

  it('never past its real expiry (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 12 }), fc.integer({ min: 1, max: 10 ** 7 }), (at, left) => {
        const served = throughOutage({ status, expiresAt: at + left }, 'down', at);
        const reported = Date.parse(served.status.expirationTimestamp!);
        expect(served.status.expirationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        expect(reported).toBeLessThanOrEqual(at + left);
        expect(reported).toBeLessThanOrEqual(at + 60_000);
        expect(reported).toBeGreaterThan(Math.min(at + left, at + 60_000) - 1_000);
      }),
    );
  });
});
