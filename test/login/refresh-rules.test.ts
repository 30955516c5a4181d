// The rules that decide a refresh token's life (login/refresh.ts), a single-use grant's attempts
// (request/retry.ts), the endpoint a login's failure names (login/endpoint.ts) and what a revocation
// answer means (login/revocation.ts), as tables: the oidc-provider suites run them end to end.
import { describe, expect, it } from 'vitest';
import { exitCodeFor, RequestError, ResponseError, UsageError } from '../../src/errors.js';
import { atEndpoint } from '../../src/login/endpoint.js';
import {
  isInvalidGrant,
  noIdTokenOnRefresh,
  noTimeToRefresh,
  refreshFits,
  RefreshRefused,
  refused,
} from '../../src/login/refresh.js';
import { readRevocationAnswer, revocationRequest } from '../../src/login/revocation.js';
import { SINGLE_USE_GRANTS, singleUseMayResend, singleUseTimeoutMs } from '../../src/request/retry.js';

describe('which refresh answer drops the refresh token', () => {
  it.each([
    [400, { error: 'invalid_grant' }, true],
    [401, { error: 'invalid_grant', error_description: 'revoked' }, true],
    [400, { error: 'invalid_client' }, false],
    [401, { error: 'invalid_client' }, false],
    [400, { error: 'invalid_request' }, false],
    [403, undefined, false],
    [404, '<html>not found</html>', false],
    [407, undefined, false],
    [503, { error: 'invalid_grant' }, false],
    [200, { error: 'invalid_grant' }, false],
    [400, ['invalid_grant'], false],
    [400, { error: ['invalid_grant'] }, false],
    [400, null, false],
  ])('%i %j: %s', (status, document, drops) => {
    expect(isInvalidGrant(status, document)).toBe(drops);
  });

  it('the refusal keeps its words and status, exit 3', () => {
    const error = refused(
      new RequestError('LOGIN_REFUSED', 'the token endpoint refused the refresh with 400: "invalid_grant"', {
        status: 400,
      }),
    );
    expect(error).toBeInstanceOf(RefreshRefused);
    expect(error.status).toBe(400);
    expect(error.message).toBe('the token endpoint refused the refresh with 400: "invalid_grant"');
    expect(exitCodeFor(error)).toBe(3);
  });

  it('a refresh answer without an id_token is exit 4 and does not send the person to the scope', () => {
    const error = noIdTokenOnRefresh();
    expect(exitCodeFor(error)).toBe(4);
    expect(error.message).not.toMatch(/openid|scope/);
    expect(error.message).toContain('the refresh token it sent is kept');
    expect(error.message).toContain('tokenPath: $.access_token');
  });
});

describe('whether a call has the time to start a refresh', () => {
  it.each([
    // left, per-attempt timeout, --timeout
    [30_000, 10_000, 30_000, true],
    [10_000, 10_000, 30_000, true],
    [9_999, 10_000, 30_000, false],
    [1_000, 10_000, 30_000, false],
    // A --timeout shorter than twice the per-attempt timeout: half of it is enough.
    [4_990, 10_000, 5_000, true],
    [2_500, 10_000, 5_000, true],
    [2_499, 10_000, 5_000, false],
    [15_000, 10_000, 20_000, true],
    [9_999, 10_000, 20_000, false],
    [0, 10_000, 30_000, false],
  ])('%i ms left, timeout %i, --timeout %i: %s', (left, attempt, whole, fits) => {
    expect(refreshFits(1_000_000, 1_000_000 + left, attempt, whole)).toBe(fits);
  });

  it('the failure of a call without the time is its deadline (never remembered), exit 3, and says the token is kept', () => {
    const error = noTimeToRefresh(4_200, 30_000);
    expect(error.code).toBe('DEADLINE');
    expect(exitCodeFor(error)).toBe(3);
    expect(error.message).toBe(
      'no refresh started with 4.2s of --timeout 30s left: the issuer could rotate the refresh token after this call gave up; it is kept for the next call',
    );
  });
});

describe('a single-use grant is never sent twice once it may have reached the server', () => {
  it('the three grants are single-use', () => {
    expect([...SINGLE_USE_GRANTS].sort()).toEqual([
      'authorization_code',
      'refresh_token',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);
  });

  it.each([
    [{ code: 'ECONNREFUSED' }, true],
    [{ code: 'ENOTFOUND' }, true],
    [{ code: 'EAI_AGAIN' }, true],
    [{ code: 'EHOSTUNREACH' }, true],
    [{ code: 'ERR_PROXY_TUNNEL' }, true],
    [{ code: 'ETIMEDOUT' }, false],
    [{ code: 'ECONNRESET' }, false],
    [{ code: 'EPIPE' }, false],
    [{ code: 'DEADLINE' }, false],
    [{ status: 503 }, false],
    [{ status: 429 }, false],
    [{ status: 408 }, false],
    [{}, false],
  ])('%j: resend %s', (failure, resend) => {
    expect(singleUseMayResend(failure)).toBe(resend);
  });

  it('its one attempt has the whole time left', () => {
    expect(singleUseTimeoutMs(1_000, 31_000)).toBe(30_000);
    expect(singleUseTimeoutMs(31_000, 31_000)).toBe(1);
  });
});

describe('a login failure names its endpoint', () => {
  it.each([
    [
      'device authorization',
      'the token API answered 404 Not Found',
      'the device authorization endpoint answered 404 Not Found',
    ],
    ['token', 'the token API answered 403 Forbidden: denied', 'the token endpoint answered 403 Forbidden: denied'],
    [
      'revocation',
      'connection to https://idp.example/revoke refused',
      'the revocation endpoint: connection to https://idp.example/revoke refused',
    ],
    ['token', 'the token endpoint refused the refresh with 400', 'the token endpoint refused the refresh with 400'],
  ] as const)('%s: %s', (endpoint, message, said) => {
    const error = atEndpoint(
      new RequestError('HTTP_STATUS', message, { status: 404, retryAfterMs: 5 }),
      endpoint,
    ) as RequestError;
    expect(error).toBeInstanceOf(RequestError);
    expect(error.message).toBe(said);
    expect(error.code).toBe('HTTP_STATUS');
    expect(error.status).toBe(404);
    expect(error.retryAfterMs).toBe(5);
  });

  it("the device authorization endpoint's 401 says what the issuer wants of the client", () => {
    const error = atEndpoint(
      new RequestError('HTTP_STATUS', 'the token API answered 401 Unauthorized', { status: 401 }),
      'device authorization',
    ) as RequestError;
    expect(error.message).toBe(
      "the device authorization endpoint answered 401 Unauthorized; the issuer does not take this client there: make it a public client (no secret) with the device authorization grant enabled, or give the token request the client's authentication (form client_secret, an Authorization header)",
    );
    expect(exitCodeFor(error)).toBe(3);
  });

  it('an unusable answer stays exit 4; anything else is left as it is', () => {
    const answer = atEndpoint(
      new ResponseError('RESPONSE_NOT_JSON', 'the token API answered something that is not JSON'),
      'device authorization',
    );
    expect(exitCodeFor(answer)).toBe(4);
    expect((answer as Error).message).toBe('the device authorization endpoint answered something that is not JSON');
    const usage = new UsageError('X', 'the token API is not asked');
    expect(atEndpoint(usage, 'token')).toBe(usage);
  });
});

describe('revocation (RFC 7009)', () => {
  const redact = (text: string) => text.replaceAll('rt-secret', '[REDACTED]');

  it('a 2xx is revoked, whatever its body', () => {
    expect(() => readRevocationAnswer(200, undefined, redact)).not.toThrow();
    expect(() => readRevocationAnswer(204, { error: 'x' }, redact)).not.toThrow();
  });

  it.each([
    [400, { error: 'unsupported_token_type' }, 'the revocation endpoint answered 400: "unsupported_token_type"'],
    [401, { error: 'invalid_client' }, 'the revocation endpoint answered 401: "invalid_client"'],
    [401, { error: 'bad rt-secret' }, 'the revocation endpoint answered 401: "bad [REDACTED]"'],
    [400, { error: 'x\u001b[2Jy' }, 'the revocation endpoint answered 400: "x\\u001b[2Jy"'],
    [400, undefined, 'the revocation endpoint answered 400'],
  ])('%i %j: exit 3', (status, document, message) => {
    let caught: unknown;
    try {
      readRevocationAnswer(status, document, redact);
    } catch (error) {
      caught = error;
    }
    expect(exitCodeFor(caught)).toBe(3);
    expect((caught as Error).message).toBe(message);
  });

  it('the request sends the token with its hint and shows neither value', () => {
    const request = revocationRequest(
      { method: 'POST', url: 'https://idp.example/revoke', headers: {}, body: 'client_id=kubectl', tls: {} } as never,
      'rt-secret',
    );
    expect(request.body).toBe('client_id=kubectl&token=rt-secret&token_type_hint=refresh_token');
    expect(request.shown?.body).not.toContain('rt-secret');
  });
});
