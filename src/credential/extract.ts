// From a parsed JSON response to the credential and its expiry. Pure: `now` is a parameter and
// the JSONPath engine is injected, so the tables in test/extract.test.ts need no network or clock.
import { X509Certificate } from 'node:crypto';
import { ResponseError } from '../errors.js';
import type { ProviderConfig } from '../config/schema.js';
import type { CredentialStatus } from './exec-credential.js';
import type { Match } from './jsonpath.js';
import { errorSaid } from './error-fields.js';

export type Query = (path: string, document: unknown) => Match[];

/** What redacts a part of a message that the answer gave (it may echo what was sent): the call's redactor. */
type Redact = (text: string) => string;

/**
 * Every message about the answer is the plugin's frame (CredentialError.framed): the config's paths and
 * fixed words, with each part the answer gave (a key, a location, a number, a content type) redacted
 * in full where it is put in. The frame is then not searched for the values a secret decided, so a
 * word of it ("token", "expires", "login") reads the same whichever word a secret chose.
 */
function answerError(code: string, message: string): ResponseError {
  return new ResponseError(code, message, { framed: true });
}

export interface Extracted {
  status: CredentialStatus;
  /** The real expiry (ms since epoch), before the margin; undefined when unknown. */
  expiresAt: number | undefined;
}

/**
 * A 2xx body is never shown, not even under --verbose: it may hold the credential in a form nobody
 * registered as secret (`access_token=gho_…&scope=repo`), so only its type and size are named.
 */
export function parseResponseBody(
  text: string,
  contentType: string | undefined,
  bytes: number,
  redact: Redact,
): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(source);
  } catch {
    const what = source.trim() === '' ? 'an empty body' : describeBody(contentType, bytes, redact);
    if (looksLikeHtml(contentType, source))
      throw answerError('RESPONSE_HTML', `the token API answered with an HTML page, not JSON (${what}); ${HTML_HINT}`);
    throw answerError('RESPONSE_NOT_JSON', `the token API answered with something that is not JSON (${what})`);
  }
}

/** What an HTML answer usually means: the url is a web page (a login form, a proxy's error), not the API. */
export const HTML_HINT = 'it looks like a login or error page: url may not be the token endpoint';

/** text/html, or a body that opens like a page whatever its type says. */
export function looksLikeHtml(contentType: string | undefined, text: string): boolean {
  if (contentType !== undefined && /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType)) return true;
  return /^\s*<(!doctype\s+html|html)[\s>]/i.test(text.slice(0, 512));
}

/** A body named by its type (the server's word, redacted) and size alone, for messages that must not show it. */
export function describeBody(contentType: string | undefined, bytes: number, redact: Redact): string {
  return `${contentType === undefined ? 'no content-type' : redact(contentType)}, ${bytes} bytes`;
}

export function extractCredential(
  document: unknown,
  config: Pick<ProviderConfig, 'paths' | 'expiryFromJWT' | 'expiryMarginMs' | 'expiresInMs'>,
  query: Query,
  now: number,
  /** The request's redaction: what the API says of itself is redacted before it is cut. */
  redact: Redact,
): Extracted {
  const { paths } = config;
  const status: CredentialStatus = {};
  if (paths.token) {
    try {
      status.token = single(document, paths.token, 'tokenPath', query, redact);
    } catch (error) {
      throw apiSaidWhy(document, paths.token, redact) ?? error;
    }
  }
  if (paths.clientCertificateData && paths.clientKeyData) {
    status.clientCertificateData = single(
      document,
      paths.clientCertificateData,
      'clientCertificateDataPath',
      query,
      redact,
    );
    status.clientKeyData = single(document, paths.clientKeyData, 'clientKeyDataPath', query, redact);
  }

  let expiresAt: number | undefined;
  if (paths.expiry)
    expiresAt = parseExpiry(one(document, paths.expiry, 'expiryPath', query, redact), paths.expiry, redact);
  else if (paths.expiresIn)
    expiresAt =
      now + parseExpiresIn(one(document, paths.expiresIn, 'expiresInPath', query, redact), paths.expiresIn, redact);
  else if (config.expiryFromJWT && status.token) expiresAt = jwtExpiry(status.token);
  if (expiresAt === undefined && status.clientCertificateData)
    expiresAt = certificateExpiry(status.clientCertificateData);
  // A provider whose tokens live a known time (Upbound: 60 minutes) says so in the config.
  if (expiresAt === undefined && config.expiresInMs !== undefined) expiresAt = now + config.expiresInMs;

  if (expiresAt !== undefined && !(expiresAt <= MAX_DATE_MS)) {
    // A JWT exp or a certificate cannot get here (both stop at 9999): the rest is a path or the config's lifetime.
    const source = paths.expiry
      ? `expiryPath ${paths.expiry} matched`
      : paths.expiresIn
        ? `expiresInPath ${paths.expiresIn} matched`
        : 'expiresIn gives';
    throw answerError('EXPIRY_UNPARSABLE', `${source} an expiry past the year 9999, which no timestamp can carry`);
  }
  if (expiresAt !== undefined) {
    const reported = reportedExpiry(expiresAt, now, config.expiryMarginMs);
    if (reported === undefined) {
      throw answerError(
        'CREDENTIAL_EXPIRED',
        `the token API returned a credential that expired at ${redact(new Date(expiresAt).toISOString())} (now ${new Date(now).toISOString()}); check the API and this machine's clock`,
      );
    }
    status.expirationTimestamp = reported;
  }
  return { status, expiresAt };
}

/** 9999-12-31T23:59:59Z: the last instant an RFC 3339 timestamp (four-digit year) can carry. */
const MAX_DATE_MS = 253_402_300_799_000;

/**
 * client-go uses a credential up to the instant it is reported to expire, so we report it early:
 * by the margin, or by half the remaining lifetime when that is shorter. Rounded down to the second
 * (client-go's format), never in the past; undefined when already expired.
 */
export function reportedExpiry(expiresAt: number, now: number, marginMs: number): string | undefined {
  const remaining = expiresAt - now;
  if (remaining <= 0) return undefined;
  const reported = Math.max(
    Math.floor((expiresAt - Math.min(marginMs, remaining / 2)) / 1000) * 1000,
    Math.ceil(now / 1000) * 1000,
  );
  // Less than a second left: no whole second is both after now and before the expiry.
  if (reported > expiresAt) return undefined;
  return new Date(reported).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function one(document: unknown, path: string, field: string, query: Query, redact: Redact): unknown {
  const matches = query(path, document);
  if (matches.length === 0) {
    throw answerError(
      'PATH_NO_MATCH',
      `${field} ${path} matched nothing in the response; ${describeKeys(document, path, redact)}`,
    );
  }
  if (matches.length > 1) {
    const where = matches
      .slice(0, 3)
      .map((m) => redact(m.location))
      .join(', ');
    throw answerError(
      'PATH_AMBIGUOUS',
      `${field} ${path} matched ${matches.length} values (${where}${matches.length > 3 ? ', …' : ''}); make it select exactly one`,
    );
  }
  return matches[0]!.value;
}

function single(document: unknown, path: string, field: string, query: Query, redact: Redact): string {
  const value = one(document, path, field, query, redact);
  if (typeof value !== 'string') {
    throw answerError('PATH_NOT_STRING', `${field} ${path} matched ${kind(value)}, expected a non-empty string`);
  }
  if (value.trim() === '') throw answerError('PATH_EMPTY', `${field} ${path} matched an empty string`);
  // client-go sends the token in an Authorization header, where Go refuses control characters; a
  // PEM certificate or key is multi-line by nature.
  if (field === 'tokenPath' && /[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
    throw answerError(
      'PATH_NOT_TOKEN',
      `${field} ${path} matched a string with control characters (a line break?), which cannot be sent as a bearer token`,
    );
  }
  return value;
}

/**
 * A 2xx answer without a token whose top level holds a string `error` (OAuth's invalid_grant sent
 * with 200 by some servers, a gateway's `{"error": …, "message": …}`): the API says why, so its
 * `error` and `error_description` (or `message`) are shown (error-fields.ts).
 */
function apiSaidWhy(document: unknown, path: string, redact: Redact): ResponseError | undefined {
  const said = errorSaid(document, redact);
  if (!said) return undefined;
  const detail = said.detail ? `, ${said.detail.field} ${said.detail.text}` : '';
  return answerError(
    'RESPONSE_ERROR',
    `the token API answered without a token (tokenPath ${path} matched nothing), saying error ${said.error}${detail}`,
  );
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Names the keys at the deepest point the path reached, never their values. The place is the path's
 * own (the config's); the keys are the answer's, redacted in full (a server may echo what was sent as a key).
 */
export function describeKeys(document: unknown, path: string, redact: Redact): string {
  let node = document;
  let at = '$';
  // Follow the leading names and indexes only: skipping `[0]` or `[*]` would claim a place the path never reaches.
  const segment = /\.([A-Za-z_][\w-]*)|\[['"]([^'"]*)['"]\]|\[(\d+)\]/y;
  segment.lastIndex = path.startsWith('$') ? 1 : 0;
  for (let m = segment.exec(path); m; m = segment.exec(path)) {
    const [, dotted, bracketed, index] = m;
    if (index !== undefined && Array.isArray(node) && Number(index) < node.length) {
      node = node[Number(index)];
      at += `[${index}]`;
      continue;
    }
    const key = dotted ?? bracketed;
    if (key !== undefined && node && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, key)) {
      node = (node as Record<string, unknown>)[key];
      at += `.${key}`;
    } else break;
  }
  if (node && typeof node === 'object' && !Array.isArray(node)) {
    const keys = Object.keys(node);
    if (keys.length === 0) return `${at} is an empty object`;
    const names = keys.filter(looksLikeFieldName);
    const counted = keys.length - names.length;
    const other = counted === 1 ? 'does not look like a field name' : 'do not look like field names';
    if (names.length === 0) return `${at} has ${counted} key${counted === 1 ? '' : 's'} that ${other} (not shown)`;
    const shown = names.slice(0, 20).map((k) => JSON.stringify(k));
    const more = names.length > 20 ? ` and ${names.length - 20} more` : '';
    return `${at} has keys ${redact(shown.join(', '))}${more}${counted > 0 ? ` and ${counted} that ${other} (not shown)` : ''}`;
  }
  return `${at} is ${kind(node)}`;
}

/**
 * Whether a key of the answer may be named in a message. Some APIs key maps by credential (Vault's
 * tokens and accessors, GitHub-style tokens as ids), so a key is named only when it reads like a
 * field: an identifier of at most 40 characters (letters, digits, _ and -, not starting with a
 * digit) with at most 4 digits. `access_token`, `expires_in`, `x509Cert` pass; `hvs.CAES…`, a
 * UUID, a hex digest or `ghp_16C7e4…` are counted instead (SPEC "Errors").
 */
function looksLikeFieldName(key: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_-]{0,39}$/.test(key) && (key.match(/[0-9]/g)?.length ?? 0) <= 4;
}

export function parseExpiry(value: unknown, path: string, redact: Redact): number {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
    // Unix seconds until the year 33658; anything larger is milliseconds.
    return value >= 1e12 ? value : value * 1000;
  }
  if (typeof value === 'string') {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return parseExpiry(Number(value), path, redact);
    const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(
      value.trim(),
    );
    if (rfc3339) {
      const parsed = Date.parse(value.trim());
      // Date.parse rolls 2026-02-30 over to March 2: a date that does not exist is no expiry.
      if (Number.isFinite(parsed) && realDate(rfc3339)) return parsed;
      throw answerError(
        'EXPIRY_UNPARSABLE',
        `expiryPath ${path} matched a time that does not exist (${describeImpossible(rfc3339, redact)})`,
      );
    }
  }
  throw answerError(
    'EXPIRY_UNPARSABLE',
    `expiryPath ${path} matched ${kind(value)} that is neither an RFC 3339 time nor unix seconds/milliseconds`,
  );
}

function realDate(m: RegExpExecArray): boolean {
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return (
    month! >= 1 &&
    month! <= 12 &&
    day! >= 1 &&
    day! <= daysInMonth &&
    hour! <= 23 &&
    minute! <= 59 &&
    second! <= 60 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59
  );
}

function describeImpossible(m: RegExpExecArray, redact: Redact): string {
  const [month, day, hour, minute] = [2, 3, 4, 5].map((i) => Number(m[i]));
  if (month! < 1 || month! > 12) return `month ${redact(m[2]!)}`;
  if (hour! > 23) return `hour ${redact(m[4]!)}`;
  if (minute! > 59) return `minute ${redact(m[5]!)}`;
  if (day! < 1 || day! > 28) return `day ${redact(m[3]!)} of month ${redact(m[2]!)}`;
  return 'its offset is out of range';
}

export function parseExpiresIn(value: unknown, path: string, redact: Redact): number {
  const seconds = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  if (typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  // A number is shown: no credential field is a number, and -30 or 0 says at once what went wrong.
  // A string may be anything (a token at the wrong path): only its kind.
  const found = typeof value === 'number' ? `the number ${redact(String(value))}` : kind(value);
  throw answerError(
    'EXPIRY_UNPARSABLE',
    `expiresInPath ${path} matched ${found}, expected a positive number of seconds`,
  );
}

/** The `exp` claim of a JWT, in ms; undefined for opaque tokens or a JWT without a usable exp. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { exp?: unknown };
    // An exp past the year 9999 is no usable expiry either.
    return typeof payload.exp === 'number' && payload.exp > 0 && payload.exp * 1000 <= MAX_DATE_MS
      ? payload.exp * 1000
      : undefined;
  } catch {
    return undefined;
  }
}

/** notAfter of a PEM certificate, in ms; undefined when it does not parse. */
export function certificateExpiry(pem: string): number | undefined {
  try {
    const notAfter = Date.parse(new X509Certificate(pem).validTo);
    return Number.isFinite(notAfter) ? notAfter : undefined;
  } catch {
    return undefined;
  }
}
