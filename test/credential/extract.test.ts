// From a parsed response to the credential and its expiry, with the real JSONPath engine and a
// fixed clock.
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../src/config/schema.js';
import { ResponseError } from '../../src/errors.js';
import {
  certificateExpiry,
  describeKeys,
  extractCredential,
  jwtExpiry,
  parseExpiresIn,
  parseExpiry,
  parseResponseBody,
  reportedExpiry,
} from '../../src/credential/extract.js';
import { queryPath } from '../../src/credential/jsonpath.js';
import { caught } from '../helpers/caught.js';

/** No secrets registered: what the API says is shown as it is (the redaction of it: test/credential/api-said.test.ts). */
const asIs = (text: string): string => text;

/** 2026-01-01T00:00:00Z, on the second. */
const NOW = Date.UTC(2026, 0, 1, 0, 0, 0);
const SEC = 1000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

type Config = Pick<ProviderConfig, 'paths' | 'expiryFromJWT' | 'expiryMarginMs'>;
const config = (paths: Config['paths'], extra: Partial<Config> = {}): Config => ({
  paths,
  expiryFromJWT: true,
  expiryMarginMs: 60 * SEC,
  ...extra,
});

function jwt(payload: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(payload)}.c2lnbmF0dXJl`;
}

// A self-signed certificate made once with openssl for this test; notAfter 2036-11-19T01:58:54Z.
const CERT = `-----BEGIN CERTIFICATE-----
MIIBhzCCAS2gAwIBAgIUVOdAwJNZ9Z0BemciEJfkf6eoifgwCgYIKoZIzj0EAwIw
GTEXMBUGA1UEAwwOZml4dHVyZS1jbGllbnQwHhcNMjYxMTIyMDE1ODU0WhcNMzYx
MTE5MDE1ODU0WjAZMRcwFQYDVQQDDA5maXh0dXJlLWNsaWVudDBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABMtyZiYYGi2+Z1sDt5PvyAlBEINfBppvd30s8k347Dk+
LFXyKa3KeU8SF/lkmb20votbHP/3RLKUCeRwpGp4+GOjUzBRMB0GA1UdDgQWBBQw
cQdUYvNa+DbON3g6Ks/kJSDf4zAfBgNVHSMEGDAWgBQwcQdUYvNa+DbON3g6Ks/k
JSDf4zAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIAaAuzpKZUN6
hlc5IGylDbQp/1pXYPXVPehQbCtEC2ZLAiEAs4j8wfsWXJVBxbvPZcRj7K7FFhOR
Bplh4Jr8Qd+DE8k=
-----END CERTIFICATE-----
`;
const CERT_NOT_AFTER = Date.UTC(2036, 10, 19, 1, 58, 54);
const KEY = 'key-material-not-parsed-here';

describe('extractCredential', () => {
  it('takes the token that the path selects', () => {
    expect(
      extractCredential(
        { access_token: 'tok-1', token_type: 'Bearer' },
        config({ token: '$.access_token' }),
        queryPath,
        NOW,
        asIs,
      ),
    ).toEqual({
      status: { token: 'tok-1' },
      expiresAt: undefined,
    });
  });

  it.each([
    ['a nested member', { status: { token: 'tok-2' } }, '$.status.token'],
    ['an array element', { items: [{ token: 'tok-2' }] }, '$.items[0].token'],
    [
      'a filter that selects one node',
      {
        items: [
          { kind: 'a', token: 'x' },
          { kind: 'b', token: 'tok-2' },
        ],
      },
      "$.items[?@.kind == 'b'].token",
    ],
    ['a bracketed name with a dash', { 'access-token': 'tok-2' }, "$['access-token']"],
  ])('takes the token from %s', (_name, document, path) => {
    expect(extractCredential(document, config({ token: path }), queryPath, NOW, asIs).status.token).toBe('tok-2');
  });

  it.each<[string, unknown, string, string, string]>([
    [
      'a path that matches nothing names the keys that are there',
      { data: { token: 's3cr3t-value', expires: 5 } },
      '$.data.tokne',
      'PATH_NO_MATCH',
      'tokenPath $.data.tokne matched nothing in the response; $.data has keys "token", "expires"',
    ],
    [
      'a top-level miss names the top-level keys',
      { err: 'invalid_client', error_description: 'bad secret' },
      '$.access_token',
      'PATH_NO_MATCH',
      'tokenPath $.access_token matched nothing in the response; $ has keys "err", "error_description"',
    ],
    [
      'a miss whose answer holds a string error shows it',
      { error: 'invalid_client', error_description: 'bad secret' },
      '$.access_token',
      'RESPONSE_ERROR',
      'the token API answered without a token (tokenPath $.access_token matched nothing), saying error "invalid_client", error_description "bad secret"',
    ],
    [
      'a miss whose error is no string names the keys',
      { error: { code: 1 } },
      '$.access_token',
      'PATH_NO_MATCH',
      'tokenPath $.access_token matched nothing in the response; $ has keys "error"',
    ],
    [
      'a miss in an empty object says so',
      { data: {} },
      '$.data.token',
      'PATH_NO_MATCH',
      'tokenPath $.data.token matched nothing in the response; $.data is an empty object',
    ],
    [
      'a miss below a string says what it is',
      { data: 'opaque-secret-string' },
      '$.data.token',
      'PATH_NO_MATCH',
      'tokenPath $.data.token matched nothing in the response; $.data is a string',
    ],
    [
      'a response that is a list',
      ['tok'],
      '$.token',
      'PATH_NO_MATCH',
      'tokenPath $.token matched nothing in the response; $ is a list',
    ],
    [
      'two matches are ambiguous',
      { a: { token: 'x' }, b: { token: 'y' } },
      '$..token',
      'PATH_AMBIGUOUS',
      'tokenPath $..token matched 2 values ($.a.token, $.b.token); make it select exactly one',
    ],
    [
      'four matches show three locations',
      { t: ['a', 'b', 'c', 'd'] },
      '$.t[*]',
      'PATH_AMBIGUOUS',
      'tokenPath $.t[*] matched 4 values ($.t[0], $.t[1], $.t[2], …); make it select exactly one',
    ],
    [
      'a number is not a token',
      { token: 12345 },
      '$.token',
      'PATH_NOT_STRING',
      'tokenPath $.token matched a number, expected a non-empty string',
    ],
    [
      'an object is not a token',
      { token: { value: 'x' } },
      '$.token',
      'PATH_NOT_STRING',
      'tokenPath $.token matched an object, expected a non-empty string',
    ],
    [
      'null is not a token',
      { token: null },
      '$.token',
      'PATH_NOT_STRING',
      'tokenPath $.token matched null, expected a non-empty string',
    ],
    [
      'a list is not a token',
      { token: ['x'] },
      '$.token',
      'PATH_NOT_STRING',
      'tokenPath $.token matched a list, expected a non-empty string',
    ],
    ['an empty token is refused', { token: '' }, '$.token', 'PATH_EMPTY', 'tokenPath $.token matched an empty string'],
    [
      'a blank token is refused',
      { token: ' \n' },
      '$.token',
      'PATH_EMPTY',
      'tokenPath $.token matched an empty string',
    ],
  ])('fails when %s', (_name, document, path, code, message) => {
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: path }), queryPath, NOW, asIs),
    );
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it('never puts a value of the response into a no-match message', () => {
    const document = {
      data: { token: 'value-one-secret', nested: { deep: 'value-two-secret' } },
      other: 'value-three-secret',
    };
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: '$.data.missing' }), queryPath, NOW, asIs),
    );
    expect(error.message).not.toMatch(/value-(one|two|three)-secret/);
  });

  it.each<[string, unknown, Config['paths'], number]>([
    ['an RFC 3339 expiry in UTC', { t: 'tok', exp: '2026-01-01T01:00:00Z' }, { expiry: '$.exp' }, NOW + 3600 * SEC],
    [
      'an RFC 3339 expiry with an offset',
      { t: 'tok', exp: '2026-01-01T02:00:00+01:00' },
      { expiry: '$.exp' },
      NOW + 3600 * SEC,
    ],
    [
      'an RFC 3339 expiry with nanoseconds',
      { t: 'tok', exp: '2026-01-01T01:00:00.123456789Z' },
      { expiry: '$.exp' },
      NOW + 3600 * SEC + 123,
    ],
    ['unix seconds', { t: 'tok', exp: NOW / SEC + 3600 }, { expiry: '$.exp' }, NOW + 3600 * SEC],
    ['unix milliseconds', { t: 'tok', exp: NOW + 3600 * SEC }, { expiry: '$.exp' }, NOW + 3600 * SEC],
    ['unix seconds as a string', { t: 'tok', exp: String(NOW / SEC + 3600) }, { expiry: '$.exp' }, NOW + 3600 * SEC],
    ['expires_in seconds', { t: 'tok', expires_in: 3600 }, { expiresIn: '$.expires_in' }, NOW + 3600 * SEC],
    [
      'expires_in as a numeric string',
      { t: 'tok', expires_in: '3600' },
      { expiresIn: '$.expires_in' },
      NOW + 3600 * SEC,
    ],
  ])('reads %s', (_name, document, paths, expiresAt) => {
    const result = extractCredential(document, config({ token: '$.t', ...paths }), queryPath, NOW, asIs);
    expect(result.expiresAt).toBe(expiresAt);
    expect(result.status.expirationTimestamp).toBe(iso(Math.floor((expiresAt - 60 * SEC) / SEC) * SEC));
  });

  it('reports the expiry 60s early by default', () => {
    const result = extractCredential(
      { t: 'tok', expires_in: 3600 },
      config({ token: '$.t', expiresIn: '$.expires_in' }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result.status).toEqual({ token: 'tok', expirationTimestamp: '2026-01-01T00:59:00Z' });
  });

  it('takes the exp claim of a JWT when no path gives the expiry', () => {
    const token = jwt({ sub: 'me', exp: NOW / SEC + 600 });
    const result = extractCredential({ t: token }, config({ token: '$.t' }), queryPath, NOW, asIs);
    expect(result).toEqual({
      status: { token, expirationTimestamp: '2026-01-01T00:09:00Z' },
      expiresAt: NOW + 600 * SEC,
    });
  });

  it('ignores the exp claim with expiryFromJWT: false', () => {
    const token = jwt({ exp: NOW / SEC + 600 });
    const result = extractCredential(
      { t: token },
      config({ token: '$.t' }, { expiryFromJWT: false }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result).toEqual({ status: { token }, expiresAt: undefined });
  });

  it('prefers expiryPath to the exp claim', () => {
    const token = jwt({ exp: NOW / SEC + 600 });
    const result = extractCredential(
      { t: token, exp: NOW / SEC + 7200 },
      config({ token: '$.t', expiry: '$.exp' }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result.expiresAt).toBe(NOW + 7200 * SEC);
  });

  it('has no expiry for an opaque token without expiry paths', () => {
    expect(extractCredential({ t: 'opaque' }, config({ token: '$.t' }), queryPath, NOW, asIs)).toEqual({
      status: { token: 'opaque' },
      expiresAt: undefined,
    });
  });

  it.each<[string, unknown, Config['paths'], string, string]>([
    [
      'an expiry path that matches nothing',
      { t: 'tok' },
      { expiry: '$.exp' },
      'PATH_NO_MATCH',
      'expiryPath $.exp matched nothing in the response; $ has keys "t"',
    ],
    [
      'an expiry that is a date without time',
      { t: 'tok', exp: '2026-01-01' },
      { expiry: '$.exp' },
      'EXPIRY_UNPARSABLE',
      'expiryPath $.exp matched a string that is neither an RFC 3339 time nor unix seconds/milliseconds',
    ],
    [
      'an expiry that is a boolean',
      { t: 'tok', exp: true },
      { expiry: '$.exp' },
      'EXPIRY_UNPARSABLE',
      'expiryPath $.exp matched a boolean that is neither an RFC 3339 time nor unix seconds/milliseconds',
    ],
    [
      'an expires_in of zero',
      { t: 'tok', expires_in: 0 },
      { expiresIn: '$.expires_in' },
      'EXPIRY_UNPARSABLE',
      'expiresInPath $.expires_in matched the number 0, expected a positive number of seconds',
    ],
    [
      'an expires_in in words',
      { t: 'tok', expires_in: '1 hour' },
      { expiresIn: '$.expires_in' },
      'EXPIRY_UNPARSABLE',
      'expiresInPath $.expires_in matched a string, expected a positive number of seconds',
    ],
    [
      'two expires_in values',
      { t: 'tok', a: { expires_in: 1 }, b: { expires_in: 2 } },
      { expiresIn: '$..expires_in' },
      'PATH_AMBIGUOUS',
      'expiresInPath $..expires_in matched 2 values ($.a.expires_in, $.b.expires_in); make it select exactly one',
    ],
  ])('fails on %s', (_name, document, paths, code, message) => {
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: '$.t', ...paths }), queryPath, NOW, asIs),
    );
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it.each<[string, unknown, Config['paths']]>([
    ['an expiry in the past', { t: 'tok', exp: '2025-12-31T23:00:00Z' }, { expiry: '$.exp' }],
    ['an expiry of exactly now', { t: 'tok', exp: NOW / SEC }, { expiry: '$.exp' }],
    ['a JWT whose exp has passed', { t: jwt({ exp: NOW / SEC - 1 }) }, {}],
  ])('refuses %s as an already expired credential', (_name, document, paths) => {
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: '$.t', ...paths }), queryPath, NOW, asIs),
    );
    expect(error.code).toBe('CREDENTIAL_EXPIRED');
    expect(error.exitCode).toBe(4);
    expect(error.message).toMatch(
      /^the token API returned a credential that expired at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \(now 2026-01-01T00:00:00\.000Z\); check the API and this machine's clock$/,
    );
  });

  it('extracts a client certificate and key, taking the expiry from the certificate', () => {
    const document = { status: { credential: { clientCertificateData: CERT, clientKeyData: KEY } } };
    const paths = {
      clientCertificateData: '$.status.credential.clientCertificateData',
      clientKeyData: '$.status.credential.clientKeyData',
    };
    expect(extractCredential(document, config(paths), queryPath, NOW, asIs)).toEqual({
      status: { clientCertificateData: CERT, clientKeyData: KEY, expirationTimestamp: '2036-11-19T01:57:54Z' },
      expiresAt: CERT_NOT_AFTER,
    });
  });

  it('extracts a token together with a certificate and key', () => {
    const document = { token: 'tok', cert: CERT, key: KEY, expires_in: 120 };
    const result = extractCredential(
      document,
      config({ token: '$.token', clientCertificateData: '$.cert', clientKeyData: '$.key', expiresIn: '$.expires_in' }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result).toEqual({
      status: {
        token: 'tok',
        clientCertificateData: CERT,
        clientKeyData: KEY,
        expirationTimestamp: '2026-01-01T00:01:00Z',
      },
      expiresAt: NOW + 120 * SEC,
    });
  });

  it('fails when the certificate path matches nothing, naming it', () => {
    const error = caught(ResponseError, () =>
      extractCredential(
        { key: KEY },
        config({ clientCertificateData: '$.cert', clientKeyData: '$.key' }),
        queryPath,
        NOW,
        asIs,
      ),
    );
    expect(error.message).toBe('clientCertificateDataPath $.cert matched nothing in the response; $ has keys "key"');
  });

  it('lists three ambiguous matches without an ellipsis', () => {
    const error = caught(ResponseError, () =>
      extractCredential({ t: ['a', 'b', 'c'] }, config({ token: '$.t[*]' }), queryPath, NOW, asIs),
    );
    expect(error.message).toBe(
      'tokenPath $.t[*] matched 3 values ($.t[0], $.t[1], $.t[2]); make it select exactly one',
    );
  });

  it('fails when the key path matches nothing', () => {
    const error = caught(ResponseError, () =>
      extractCredential(
        { cert: CERT },
        config({ clientCertificateData: '$.cert', clientKeyData: '$.key' }),
        queryPath,
        NOW,
        asIs,
      ),
    );
    expect(error.message).toBe('clientKeyDataPath $.key matched nothing in the response; $ has keys "cert"');
  });
});

describe('reportedExpiry', () => {
  it.each<[string, number, number, number, string | undefined]>([
    ['subtracts the margin', NOW + 3600 * SEC, NOW, 60 * SEC, '2026-01-01T00:59:00Z'],
    [
      'uses half the remaining lifetime when that is shorter than the margin',
      NOW + 100 * SEC,
      NOW,
      60 * SEC,
      '2026-01-01T00:00:50Z',
    ],
    [
      'uses the margin when it equals half the remaining lifetime',
      NOW + 120 * SEC,
      NOW,
      60 * SEC,
      '2026-01-01T00:01:00Z',
    ],
    ['rounds down to the second', NOW + 121_900, NOW, 60 * SEC, '2026-01-01T00:01:01Z'],
    ['reports the real expiry with a zero margin', NOW + 3600 * SEC, NOW, 0, '2026-01-01T01:00:00Z'],
    ['never reports a time before now', NOW + 1500, NOW + 500, 60 * SEC, '2026-01-01T00:00:01Z'],
    ['returns undefined for an expiry of exactly now', NOW, NOW, 60 * SEC, undefined],
    [
      'returns undefined when no whole second lies between now and the expiry',
      NOW + 800,
      NOW + 500,
      60 * SEC,
      undefined,
    ],
    [
      'may report the expiry itself when it falls on the first whole second after now',
      NOW + 1000,
      NOW + 500,
      60 * SEC,
      '2026-01-01T00:00:01Z',
    ],
    ['returns undefined for an expiry in the past', NOW - 1, NOW, 60 * SEC, undefined],
  ])('%s', (_name, expiresAt, now, margin, expected) => {
    expect(reportedExpiry(expiresAt, now, margin)).toBe(expected);
  });
});

describe('parseExpiry', () => {
  it.each<[string, unknown, number]>([
    ['RFC 3339 with Z', '2026-01-01T00:00:00Z', NOW],
    ['RFC 3339 in lower case', '2026-01-01t00:00:00z', NOW],
    ['RFC 3339 with a space instead of T', '2026-01-01 00:00:00Z', NOW],
    ['RFC 3339 with a negative offset', '2025-12-31T19:00:00-05:00', NOW],
    ['RFC 3339 with milliseconds', '2026-01-01T00:00:00.250Z', NOW + 250],
    ['RFC 3339 with surrounding spaces', ' 2026-01-01T00:00:00Z ', NOW],
    ['unix seconds', NOW / SEC, NOW],
    ['fractional unix seconds', NOW / SEC + 0.5, NOW + 500],
    ['unix milliseconds', NOW, NOW],
    ['the smallest number read as milliseconds', 1e12, 1e12],
    ['the largest number read as seconds', 1e12 - 1, (1e12 - 1) * SEC],
    ['unix seconds as a string', String(NOW / SEC), NOW],
    ['unix milliseconds as a string', String(NOW), NOW],
  ])('reads %s', (_name, value, expected) => {
    expect(parseExpiry(value, '$.exp', asIs)).toBe(expected);
  });

  const neither = (what: string) =>
    `expiryPath $.exp matched ${what} that is neither an RFC 3339 time nor unix seconds/milliseconds`;
  it.each<[string, unknown, string]>([
    ['zero', 0, neither('a number')],
    ['a negative number', -5, neither('a number')],
    ['infinity', Number.POSITIVE_INFINITY, neither('a number')],
    ['a date without time', '2026-01-01', neither('a string')],
    ['a time without zone', '2026-01-01T00:00:00', neither('a string')],
    ['an HTTP date', 'Thu, 01 Jan 2026 00:00:00 GMT', neither('a string')],
    ['hex seconds', '0x69556d00', neither('a string')],
    ['seconds in exponent notation', '1.7e9', neither('a string')],
    ['an impossible month', '2026-13-01T00:00:00Z', 'expiryPath $.exp matched a time that does not exist (month 13)'],
    ['month zero', '2026-00-10T00:00:00Z', 'expiryPath $.exp matched a time that does not exist (month 00)'],
    [
      'February 30th',
      '2026-02-30T00:00:00Z',
      'expiryPath $.exp matched a time that does not exist (day 30 of month 02)',
    ],
    [
      'February 29th of a common year',
      '2026-02-29T00:00:00Z',
      'expiryPath $.exp matched a time that does not exist (day 29 of month 02)',
    ],
    ['April 31st', '2026-04-31T00:00:00Z', 'expiryPath $.exp matched a time that does not exist (day 31 of month 04)'],
    ['day zero', '2026-01-00T00:00:00Z', 'expiryPath $.exp matched a time that does not exist (day 00 of month 01)'],
    ['hour 24', '2026-01-01T24:00:00Z', 'expiryPath $.exp matched a time that does not exist (hour 24)'],
    ['minute 60', '2026-01-01T10:60:00Z', 'expiryPath $.exp matched a time that does not exist (minute 60)'],
    [
      'an offset of 24 hours',
      '2026-01-01T10:00:00+24:00',
      'expiryPath $.exp matched a time that does not exist (its offset is out of range)',
    ],
    [
      'an offset of 60 minutes',
      '2026-01-01T10:00:00+01:60',
      'expiryPath $.exp matched a time that does not exist (its offset is out of range)',
    ],
    [
      'December 32nd',
      '2026-12-32T00:00:00Z',
      'expiryPath $.exp matched a time that does not exist (day 32 of month 12)',
    ],
    [
      'February 30th at 23:59',
      '2026-02-30T23:59:00Z',
      'expiryPath $.exp matched a time that does not exist (day 30 of month 02)',
    ],
    [
      'February 28th with an offset of 24 hours',
      '2026-02-28T10:00:00+24:00',
      'expiryPath $.exp matched a time that does not exist (its offset is out of range)',
    ],
    ['an empty string', '', neither('a string')],
    ['null', null, neither('null')],
    ['a boolean', true, neither('a boolean')],
    ['an object', { seconds: 1 }, neither('an object')],
    ['a list of seconds', [1_767_225_600], neither('a list')],
    ['a time after other text', 'on 2026-01-01T00:00:00Z', neither('a string')],
    ['a time before other text', '2026-01-01T00:00:00Z or later', neither('a string')],
  ])('refuses %s, saying why', (_name, value, message) => {
    const error = caught(ResponseError, () => parseExpiry(value, '$.exp', asIs));
    expect(error.code).toBe('EXPIRY_UNPARSABLE');
    expect(error.message).toBe(message);
  });

  it.each<[string, string, number]>([
    ['February 29th of a leap year', '2028-02-29T00:00:00Z', Date.UTC(2028, 1, 29)],
    ['the last day of December', '2026-12-31T23:59:59Z', Date.UTC(2026, 11, 31, 23, 59, 59)],
    ['the largest offset', '2026-01-02T23:59:00+23:59', Date.UTC(2026, 0, 2)],
    ['day 31 of a long month', '2026-01-31T00:00:00Z', Date.UTC(2026, 0, 31)],
    ['unix seconds with two decimals, as a string', '1767225600.25', NOW + 250],
    ['unix seconds as a string with spaces around', ' 1767225600 ', NOW],
  ])('reads %s', (_name, value, expected) => {
    expect(parseExpiry(value, '$.exp', asIs)).toBe(expected);
  });
});

describe('parseExpiresIn', () => {
  it.each<[string, unknown, number]>([
    ['whole seconds', 3600, 3_600_000],
    ['fractional seconds', 1.5, 1500],
    ['a numeric string', '3600', 3_600_000],
    ['a numeric string with spaces', ' 60 ', 60_000],
    ['a numeric string with two decimals', '1.25', 1250],
  ])('reads %s', (_name, value, expected) => {
    expect(parseExpiresIn(value, '$.expires_in', asIs)).toBe(expected);
  });

  // What Number() would read as seconds but no API means as seconds: taken, it would make a
  // credential of 1000 s, 16 s, 1 s or 60 s out of a broken answer.
  it.each<[string, unknown, string]>([
    ['zero', 0, 'the number 0'],
    ['a negative number', -60, 'the number -60'],
    ['a negative numeric string', '-60', 'a string'],
    ['a duration string', '60s', 'a string'],
    ['exponent notation', '1e3', 'a string'],
    ['hex', '0x10', 'a string'],
    ['a boolean', true, 'a boolean'],
    ['a list of one number', [60], 'a list'],
    ['an empty string', '', 'a string'],
    ['a blank string', '  ', 'a string'],
    ['Infinity as a string', 'Infinity', 'a string'],
    ['infinity', Number.POSITIVE_INFINITY, 'the number Infinity'],
    ['NaN', Number.NaN, 'the number NaN'],
    ['null', null, 'null'],
    ['an object', { seconds: 60 }, 'an object'],
  ])('refuses %s, saying what it matched', (_name, value, what) => {
    const error = caught(ResponseError, () => parseExpiresIn(value, '$.expires_in', asIs));
    expect(error.code).toBe('EXPIRY_UNPARSABLE');
    expect(error.message).toBe(`expiresInPath $.expires_in matched ${what}, expected a positive number of seconds`);
  });
});

describe('jwtExpiry', () => {
  it.each<[string, string, number | undefined]>([
    ['a JWT with an exp claim', jwt({ exp: 1_767_225_600 }), 1_767_225_600_000],
    ['a JWT with a fractional exp claim', jwt({ exp: 1_767_225_600.5 }), 1_767_225_600_500],
    ['a JWT without exp', jwt({ sub: 'me' }), undefined],
    ['a JWT with a string exp', jwt({ exp: '1767225600' }), undefined],
    ['a JWT with a negative exp', jwt({ exp: -1 }), undefined],
    ['an opaque token', 'opaque-token', undefined],
    ['a dotted token that is not JSON', 'a.b.c', undefined],
    ['a JWE with five parts', `${jwt({ exp: 1 })}.x.y`, undefined],
    ['a JWT whose payload is a list', `e30.${Buffer.from('[1]').toString('base64url')}.sig`, undefined],
  ])('reads %s', (_name, token, expected) => {
    expect(jwtExpiry(token)).toBe(expected);
  });
});

describe('describeKeys', () => {
  it.each<[string, unknown, string, string]>([
    ['the keys at the root', { a: 1, b: 'secret-value' }, '$.c', '$ has keys "a", "b"'],
    [
      'the keys at the deepest object reached',
      { a: { b: { c: 'secret-value', d: 2 } } },
      '$.a.b.x.y',
      '$.a.b has keys "c", "d"',
    ],
    ['a bracketed name', { 'odd key': { z: 1 } }, "$['odd key'].y", '$.odd key has keys "z"'],
    ['the kind of a non-object', { a: 42 }, '$.a.b', '$.a is a number'],
    [
      'the first 20 keys and how many more',
      Object.fromEntries(Array.from({ length: 22 }, (_, i) => [`k${i}`, i])),
      '$.x',
      `$ has keys ${Array.from({ length: 20 }, (_, i) => `"k${i}"`).join(', ')} and 2 more`,
    ],
    ['null', null, '$.a', '$ is null'],
    [
      'the keys inside an array element',
      { items: [{ token: 'secret-value', exp: 1 }] },
      '$.items[0].tokne',
      '$.items[0] has keys "token", "exp"',
    ],
    ['a list when the index is out of range', { items: [] }, '$.items[3].token', '$.items is a list'],
    [
      'the object where an index met an object, without walking past it',
      { data: { token: 'secret-value' } },
      '$.data[0].token',
      '$.data has keys "token"',
    ],
    ['the list where a wildcard starts', { items: [{ a: { token: 1 } }] }, '$.items[*].a.token', '$.items is a list'],
    ['the root keys for a descendant path', { a: { b: 1 } }, '$..token', '$ has keys "a"'],
    ['no inherited member as a key', {}, '$.constructor.name', '$ is an empty object'],
  ])('names %s', (_name, document, path, expected) => {
    expect(describeKeys(document, path, asIs)).toBe(expected);
  });
});

describe('parseResponseBody', () => {
  it.each<[string, string, unknown]>([
    ['an object', '{"access_token":"t"}', { access_token: 't' }],
    ['JSON after a byte order mark', '\ufeff{"a":1}', { a: 1 }],
    ['a bare string', '"t"', 't'],
  ])('parses %s', (_name, text, expected) => {
    expect(parseResponseBody(text, 'application/json', text.length, asIs)).toEqual(expected);
  });

  it.each<[string, string, string | undefined, string]>([
    [
      'a page without content type',
      '<!doctype html><p>Login</p>',
      undefined,
      'the token API answered with an HTML page, not JSON (no content-type, 27 bytes); it looks like a login or error page: url may not be the token endpoint',
    ],
    [
      'a body without content type',
      'oops',
      undefined,
      'the token API answered with something that is not JSON (no content-type, 4 bytes)',
    ],
    [
      'an empty body',
      ' \n',
      'application/json',
      'the token API answered with something that is not JSON (an empty body)',
    ],
  ])('refuses %s', (_name, text, contentType, message) => {
    const error = caught(ResponseError, () => parseResponseBody(text, contentType, text.length, asIs));
    expect(error.code).toBe(message.includes('HTML') ? 'RESPONSE_HTML' : 'RESPONSE_NOT_JSON');
    expect(error.message).toBe(message);
  });

  it('never shows a 2xx body, which may hold the credential in a form nobody registered', () => {
    const error = caught(ResponseError, () =>
      parseResponseBody(
        'access_token=gho_16C7e42F292c6912E7710c838347Ae178B4a&scope=repo',
        'application/x-www-form-urlencoded',
        66,
        asIs,
      ),
    );
    expect(error.message).toBe(
      'the token API answered with something that is not JSON (application/x-www-form-urlencoded, 66 bytes)',
    );
  });
});

describe('certificateExpiry', () => {
  it.each<[string, string, number | undefined]>([
    ['a PEM certificate', CERT, CERT_NOT_AFTER],
    ['a PEM certificate after other text', `subject=CN=x\n${CERT}`, CERT_NOT_AFTER],
    ['a key instead of a certificate', KEY, undefined],
    ['an empty string', '', undefined],
  ])('reads %s', (_name, pem, expected) => {
    expect(certificateExpiry(pem)).toBe(expected);
  });
});

describe('an expiry no timestamp can carry', () => {
  const LAST = Date.UTC(9999, 11, 31, 23, 59, 59);

  it.each<[string, unknown, Config['paths'], string]>([
    ['unix milliseconds past the year 9999', { t: 'tok', exp: LAST + SEC }, { expiry: '$.exp' }, 'expiryPath $.exp'],
    [
      'an expires_in that ends past the year 9999',
      { t: 'tok', expires_in: (LAST - NOW) / SEC + 1 },
      { expiresIn: '$.expires_in' },
      'expiresInPath $.expires_in',
    ],
  ])('refuses %s, naming the path that gave it', (_name, document, paths, field) => {
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: '$.t', ...paths }), queryPath, NOW, asIs),
    );
    expect(error.code).toBe('EXPIRY_UNPARSABLE');
    expect(error.message).toBe(`${field} matched an expiry past the year 9999, which no timestamp can carry`);
  });

  it('names the config lifetime, not a path nobody set, when expiresIn ends past the year 9999', () => {
    const config_ = { ...config({ token: '$.t' }), expiresInMs: LAST - NOW + SEC };
    const error = caught(ResponseError, () => extractCredential({ t: 'opaque-token' }, config_, queryPath, NOW, asIs));
    expect(error.code).toBe('EXPIRY_UNPARSABLE');
    expect(error.message).toBe('expiresIn gives an expiry past the year 9999, which no timestamp can carry');
  });

  it('takes the last second of the year 9999', () => {
    const result = extractCredential(
      { t: 'tok', exp: LAST },
      config({ token: '$.t', expiry: '$.exp' }, { expiryMarginMs: 0 }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result).toEqual({ status: { token: 'tok', expirationTimestamp: '9999-12-31T23:59:59Z' }, expiresAt: LAST });
  });

  it('uses a JWT whose exp is past the year 9999 as a token of unknown expiry, not as an error about a path nobody set', () => {
    const token = jwt({ sub: 'me', exp: LAST / SEC + 1 });
    expect(jwtExpiry(token)).toBeUndefined();
    expect(extractCredential({ t: token }, config({ token: '$.t' }), queryPath, NOW, asIs)).toEqual({
      status: { token },
      expiresAt: undefined,
    });
  });

  it('takes a JWT exp of the last second of the year 9999', () => {
    expect(jwtExpiry(jwt({ exp: LAST / SEC }))).toBe(LAST);
  });

  it('takes a JWT exp of 1 s after the epoch as the expiry it says (then refused as expired)', () => {
    expect(jwtExpiry(jwt({ exp: 1 }))).toBe(SEC);
    expect(jwtExpiry(jwt({ exp: 0 }))).toBeUndefined();
  });
});

describe('a token that cannot be sent', () => {
  it.each<[string, string]>([
    ['a line feed (a token read from a file with its newline)', 'tok-abc\n'],
    ['a CRLF line end', 'tok-abc\r\n'],
    ['a NUL', 'tok\u0000abc'],
    ['an escape', 'tok\u001babc'],
    ['a DEL', 'tok\u007fabc'],
    ['a unit separator', 'tok\u001fabc'],
  ])('is refused when it holds %s', (_name, token) => {
    const error = caught(ResponseError, () =>
      extractCredential({ t: token }, config({ token: '$.t' }), queryPath, NOW, asIs),
    );
    expect(error.code).toBe('PATH_NOT_TOKEN');
    expect(error.message).toBe(
      'tokenPath $.t matched a string with control characters (a line break?), which cannot be sent as a bearer token',
    );
  });

  it('is taken with a tab or spaces, which a header may carry', () => {
    expect(extractCredential({ t: 'tok\tabc d' }, config({ token: '$.t' }), queryPath, NOW, asIs).status.token).toBe(
      'tok\tabc d',
    );
  });

  it('is taken as a multi-line PEM key or certificate, where line breaks belong', () => {
    const key = '-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\r\n-----END EC PRIVATE KEY-----\n';
    const result = extractCredential(
      { cert: CERT, key },
      config({ clientCertificateData: '$.cert', clientKeyData: '$.key' }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result.status.clientKeyData).toBe(key);
  });

  it('needs both a certificate and a key path to take either', () => {
    const result = extractCredential(
      { t: 'tok', cert: CERT },
      config({ token: '$.t', clientCertificateData: '$.cert' }),
      queryPath,
      NOW,
      asIs,
    );
    expect(result).toEqual({ status: { token: 'tok' }, expiresAt: undefined });
  });
});

describe('keys that may be credentials', () => {
  it.each<[string, Record<string, unknown>, string]>([
    [
      'a Vault token used as a key',
      { 'hvs.CAESIJ2Qx7': { policies: [] }, request_id: 'r' },
      '$ has keys "request_id" and 1 that does not look like a field name (not shown)',
    ],
    [
      'GitHub-style tokens used as ids',
      { ghp_16C7e42F292c6912E7710c838347Ae178B4a: 1, gho_16C7e42F292c6912E7710c838347Ae178B4b: 2 },
      '$ has 2 keys that do not look like field names (not shown)',
    ],
    [
      'a single token-like key',
      { '8f14e45fceea167a5a36dedd4bea2543': 1 },
      '$ has 1 key that does not look like a field name (not shown)',
    ],
    [
      'a key with five digits',
      { k12345: 1, k1234: 2 },
      '$ has keys "k1234" and 1 that does not look like a field name (not shown)',
    ],
    [
      'a key of 41 characters',
      { ['a'.repeat(41)]: 1, ['b'.repeat(40)]: 2 },
      `$ has keys "${'b'.repeat(40)}" and 1 that does not look like a field name (not shown)`,
    ],
    [
      'a UUID',
      { '0f8fad5b-d9cb-469f-a165-70867728950e': 1, x509Cert: 2, _private: 3 },
      '$ has keys "x509Cert", "_private" and 1 that does not look like a field name (not shown)',
    ],
    [
      'keys with spaces or dots',
      { 'a b': 1, 'a.b': 2, ok: 3 },
      '$ has keys "ok" and 2 that do not look like field names (not shown)',
    ],
  ])('names none of them: %s', (_name, document, expected) => {
    expect(describeKeys(document, '$.access_token', asIs)).toBe(expected);
    const error = caught(ResponseError, () =>
      extractCredential(document, config({ token: '$.access_token' }), queryPath, NOW, asIs),
    );
    expect(error.message).toBe(`tokenPath $.access_token matched nothing in the response; ${expected}`);
  });

  it('names exactly 20 keys without "more"', () => {
    const document = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect(describeKeys(document, '$.x', asIs)).toBe(
      `$ has keys ${Array.from({ length: 20 }, (_, i) => `"k${i}"`).join(', ')}`,
    );
  });

  it.each<[string, unknown, string, string]>([
    ['a path without $', { a: { b: 1 } }, '.a.c', '$.a has keys "b"'],
    ['an index inside the list', { items: ['x', { id: 1 }] }, '$.items[1].name', '$.items[1] has keys "id"'],
    ['an index just past the list', { items: ['x', 'y'] }, '$.items[2].name', '$.items is a list'],
    ['a double-quoted bracketed name', { 'a-b': { c: 1 } }, '$["a-b"].d', '$.a-b has keys "c"'],
    ['an index into a string', { s: 'secret' }, '$.s[0]', '$.s is a string'],
    ['a number at the root', 5, '$.a', '$ is a number'],
    ['a boolean', { ok: true }, '$.ok.x', '$.ok is a boolean'],
    [
      'an index of two digits',
      { items: [...'abcdefghijkl'].map((c) => ({ [c]: 1 })) },
      '$.items[11].x',
      '$.items[11] has keys "l"',
    ],
    ['null on the way', { a: null }, '$.a.b', '$.a is null'],
    ['a string, not into its length', { s: 'secret-value' }, '$.s.length', '$.s is a string'],
    ['a string, not into its characters', { s: 'secret-value' }, "$.s['0']", '$.s is a string'],
    [
      'an index into an object, whatever its keys are called',
      { data: { undefined: { x: 1 } } },
      '$.data[0].x',
      '$.data has keys "undefined"',
    ],
  ])('walks %s', (_name, document, path, expected) => {
    expect(describeKeys(document, path, asIs)).toBe(expected);
  });
});

describe('a lifetime the config states', () => {
  const withLifetime = (extra: Partial<ProviderConfig> = {}) => ({
    ...config({ token: '$.t' }),
    expiresInMs: 3_600_000,
    ...extra,
  });

  it('gives an opaque token the stated lifetime', () => {
    expect(extractCredential({ t: 'opaque' }, withLifetime(), queryPath, NOW, asIs)).toEqual({
      status: { token: 'opaque', expirationTimestamp: '2026-01-01T00:59:00Z' },
      expiresAt: NOW + 3_600_000,
    });
  });

  it('yields to the exp claim of a JWT', () => {
    const token = jwt({ exp: NOW / SEC + 600 });
    expect(extractCredential({ t: token }, withLifetime(), queryPath, NOW, asIs).expiresAt).toBe(NOW + 600 * SEC);
  });

  it('yields to a certificate notAfter', () => {
    const result = extractCredential(
      { cert: CERT, key: KEY },
      { ...config({ clientCertificateData: '$.cert', clientKeyData: '$.key' }), expiresInMs: 3_600_000 },
      queryPath,
      NOW,
      asIs,
    );
    expect(result.expiresAt).toBe(CERT_NOT_AFTER);
  });
});
