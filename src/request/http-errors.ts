// Failures of the request turned into ours: one line each, redacted, saying what failed and what
// to do.
import { X509Certificate } from 'node:crypto';
import { RequestError } from '../errors.js';
import { describeBody, HTML_HINT, looksLikeHtml } from '../credential/extract.js';
import { ERROR_FIELDS } from '../credential/error-fields.js';
import { showProxy, type ProxyChoice } from './proxy.js';
import { excerpt } from '../redact/redactor.js';
import { ownUrl, type RenderedRequest } from './build.js';

export const MAX_REDIRECTS = 5;

/** A request that got no usable answer: Node's error code (or ours: DEADLINE) and where it happened. */
export class Failure extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The URL of the hop that failed (a redirect's target, not always the configured url). */
    readonly url: URL,
    /** The status of an answer that broke off while its body arrived. */
    readonly partialStatus?: number,
    cause?: unknown,
    /** The status a proxy answered a CONNECT with (ERR_PROXY_TUNNEL). */
    readonly proxyStatus?: number,
  ) {
    super(message, { cause });
  }
}

/** What toRequestError needs from http.ts. */
export interface ErrorContext {
  timeoutMs: number;
  /** The whole call's deadline (--timeout), in ms, to name it when it passed. */
  wholeTimeoutMs?: number;
  now: () => number;
  redact: (text: string) => string;
  env: Record<string, string | undefined>;
}

/** A duration as a person wrote it: 30000 -> `30s`, 1500 -> `1500ms`. */
function showDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

// Failures of the chain: no trusted CA signed the server certificate. Their message names the trust
// used and the issuer none of it signed (found by a second handshake that sends nothing: http.ts).
export const UNTRUSTED_CODES = [
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
];

/**
 * `the server certificate's issuer CN=x is not among the trusted CAs (the system roots and
 * tls.caFile /etc/ca.pem); put that CA's certificate in tls.caFile`: what was trusted, what not, what to do.
 */
function untrustedMessage(
  code: string,
  issuer: string | undefined,
  tls: RenderedRequest['tls'],
  env: Record<string, string | undefined>,
): string {
  const extra = env['NODE_EXTRA_CA_CERTS'];
  const trust = `not among the trusted CAs (the system roots${extra ? ` with NODE_EXTRA_CA_CERTS ${extra}` : ''}${tls.caFrom ? ` and ${tls.caFrom}` : ''})`;
  const field = tls.caFrom?.split(' ')[0];
  const fix = (what: string) => (field ? `put ${what} in ${field}` : `set tls.caFile or tls.caData to ${what}`);
  const named = issuer === undefined ? '' : ` ${issuer}`;
  if (code === 'DEPTH_ZERO_SELF_SIGNED_CERT')
    return `the server certificate is self-signed${issuer === undefined ? '' : ` (${issuer})`}, ${trust}; ${fix('it')}`;
  if (code === 'SELF_SIGNED_CERT_IN_CHAIN')
    return `the server certificate chain ends in the CA${named}, ${trust}; ${fix("that CA's certificate")}`;
  return `the server certificate's issuer${named} is ${trust}; ${fix("that CA's certificate")}`;
}

/** A short, redacted view of an error body; bytes that are not text are not shown. */
function bodyExcerpt(body: Buffer, redact: (text: string) => string): string {
  const text = body.toString('utf8');
  return /[\ufffd\u0000]/.test(text) ? 'binary data, not UTF-8 text' : excerpt(text, redact);
}

// Deeper than this, an error field is no message for people; the cut also keeps the stack safe.
const MAX_FIELD_DEPTH = 8;

function redactStrings(value: unknown, redact: (text: string) => string, depth = 0): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_FIELD_DEPTH) return '…';
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, redact, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [redact(k), redactStrings(v, redact, depth + 1)]));
}

/**
 * What a non-2xx answer said, for the one-line message: the standard error fields of a JSON object,
 * redacted; for any other body only its type and size, as an echo of the request may carry a
 * secret in a form nobody thought of. The excerpt of such a body is for the --verbose trace.
 */
export function errorBodySummary(
  body: Buffer,
  contentType: string | undefined,
  redact: (text: string) => string,
  status?: number,
): { summary: string; verboseExcerpt?: string } {
  if (body.length === 0) return { summary: '' };
  let document: unknown;
  try {
    const text = body.toString('utf8');
    document = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    document = undefined;
  }
  if (document !== null && typeof document === 'object' && !Array.isArray(document)) {
    const fields = Object.entries(document).filter(([name]) => ERROR_FIELDS.has(name));
    // Each value is redacted as the API wrote it: JSON.stringify would escape an echo once more.
    if (fields.length > 0)
      return { summary: excerpt(JSON.stringify(redactStrings(Object.fromEntries(fields), redact)), redact) };
  }
  // A page where the API was expected (a 404, a 405, a proxy's 502): the url is likely wrong. A 401
  // or 403 page is a refusal like any other, and says what to check instead (get-token).
  const refusal = status === 401 || status === 403;
  const page = !refusal && looksLikeHtml(contentType, body.subarray(0, 512).toString('utf8')) ? `; ${HTML_HINT}` : '';
  return {
    summary: `${describeBody(contentType, body.length, redact)}${page} (--verbose shows an excerpt)`,
    verboseExcerpt: bodyExcerpt(body, redact),
  };
}

export function stripQuery(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export const TLS_HINTS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate is not signed by a trusted CA; set tls.caFile or tls.caData',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'the server certificate is not signed by a trusted CA; set tls.caFile or tls.caData',
  SELF_SIGNED_CERT_IN_CHAIN: 'the server certificate chain ends in an untrusted CA; set tls.caFile or tls.caData',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed; set tls.caFile or tls.caData to trust it',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  CERT_NOT_YET_VALID: "the server certificate is not valid yet (check this machine's clock)",
  ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not name this host; fix url or set tls.serverName',
};

/**
 * `the server certificate is for DNS:auth.internal, IP Address:10.0.0.7, not 127.0.0.1`: the names
 * it holds (Node's checkServerIdentity keeps the peer certificate on its error), so the fix shows.
 */
function nameMismatch(failure: Failure, shownHost: string): string {
  const cause = failure.cause as
    { cert?: { subjectaltname?: unknown; subject?: { CN?: unknown } }; host?: unknown } | undefined;
  const altNames = typeof cause?.cert?.subjectaltname === 'string' ? cause.cert.subjectaltname : undefined;
  const commonName =
    typeof cause?.cert?.subject?.CN === 'string' ? `CN=${cause.cert.subject.CN} (no subjectAltName)` : undefined;
  const names = altNames ?? commonName;
  // The name checked, as the URL is shown when it is the URL's own host (tls.serverName may name another).
  const checked = typeof cause?.host === 'string' ? cause.host : failure.url.hostname;
  const host = checked === failure.url.hostname ? shownHost : checked;
  if (names === undefined) return TLS_HINTS['ERR_TLS_CERT_ALTNAME_INVALID']!;
  const shown = names.length > 300 ? `${names.slice(0, 300)}…` : names;
  return `the server certificate is for ${shown}, not ${host}; fix url or set tls.serverName to one of those names`;
}

/**
 * Node's TLS server drops a client certificate it refuses without an alert: all the client sees is
 * a reset. An expired (or not yet valid) certificate is the one reason we can name ourselves.
 */
function clientCertificateProblem(pem: string | undefined, now: number): string | undefined {
  if (pem === undefined) return undefined;
  try {
    const certificate = new X509Certificate(pem);
    const from = Date.parse(certificate.validFrom);
    const to = Date.parse(certificate.validTo);
    if (to < now) return `the client certificate expired at ${new Date(to).toISOString()}: renew it`;
    if (from > now)
      return `the client certificate is not valid before ${new Date(from).toISOString()} (check this machine's clock)`;
  } catch {
    // request.ts has parsed it already; nothing to add.
  }
  return undefined;
}

/** An https:// proxy whose own certificate is not trusted: the proxy named, not the token API. */
export function proxyTlsError(
  route: ProxyChoice,
  code: string,
  redact: (text: string) => string,
  failure: Failure,
): RequestError {
  const hint = (TLS_HINTS[code] ?? 'its certificate is not trusted').replace(
    /; set tls\.caFile or tls\.caData.*$|; fix url or set tls\.serverName$/,
    '',
  );
  return new RequestError(
    'PROXY_TLS',
    `TLS handshake with the proxy ${redact(showProxy(route.proxy!))} (from ${route.variable}) failed: ${hint.replace(/^the server certificate/, 'its certificate')}; trust its CA through NODE_EXTRA_CA_CERTS or fix ${route.variable} (${code})`,
    { cause: failure },
  );
}

// Failures that happen between us and the proxy; anything past it the proxy reports as a status.
const PROXY_CONNECT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'];

export function toRequestError(
  failure: Failure,
  attempts: number,
  options: ErrorContext,
  request: RenderedRequest,
  route: ProxyChoice,
  issuer?: string,
): Error {
  const { redact } = options;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  // Every message below is the plugin's frame (framed: the reporter does not search it for the values
  // a secret decided), its parts that may echo what was sent redacted here in full: the request's own
  // URL is the one shown (a value a secret decided is [REDACTED] there), a redirect's is the server's.
  const own = ownUrl(failure.url, request);
  const url = own ?? redact(stripQuery(failure.url));
  // Its origin and host as shown too: a letter a secret chose in the host is [REDACTED] there, and is
  // too short for the redactor to find anywhere.
  const origin =
    own !== undefined
      ? own.replace(/^([^:/]+:\/\/[^/]*)[\s\S]*$/, '$1')
      : redact(`${failure.url.protocol}//${failure.url.host}`);
  const host = origin.replace(/^[^:/]+:\/\//, '');
  const hostname = host.replace(/:\d+$/, '');
  const code = failure.code;
  const noAnswer = failure.partialStatus !== undefined ? 'no complete answer' : 'no answer';
  const arriving =
    failure.partialStatus !== undefined ? `; ${failure.partialStatus} and part of the body had arrived` : '';
  if (code === 'DEADLINE') {
    const waited =
      options.wholeTimeoutMs !== undefined
        ? `--timeout ${showDuration(options.wholeTimeoutMs)}`
        : 'the whole-call deadline (--timeout)';
    return new RequestError('DEADLINE', `${noAnswer} from ${url} within ${waited}${tries}${arriving}`, {
      cause: failure,
      framed: true,
    });
  }
  if (code === 'ETIMEDOUT' && failure.cause === undefined) {
    return new RequestError(
      'TIMEOUT',
      `${noAnswer} from ${url} within the per-attempt timeout ${showDuration(options.timeoutMs)} (the config's timeout)${tries}${arriving}`,
      { cause: failure, framed: true },
    );
  }
  if (route.proxy) {
    const proxy = `the proxy ${redact(showProxy(route.proxy))} (from ${route.variable})`;
    if (code === 'ERR_PROXY_TUNNEL') {
      // Node's message ends with the proxy's status line: "… via http://proxy/: HTTP/1.1 407 Proxy Authentication Required".
      const statusLine = /(HTTP\/[\d.]+ \d{3}[^\n]*)$/.exec(failure.message)?.[1]?.trim() ?? 'no 200 answer';
      const status = failure.proxyStatus;
      const hint = status === 407 || status === 401 ? `; check the user and password in ${route.variable}` : '';
      return new RequestError(
        'PROXY',
        `${proxy} did not open a tunnel to ${host}: ${redact(statusLine)}${hint}${tries}`,
        { cause: failure, framed: true },
      );
    }
    if (PROXY_CONNECT_CODES.includes(code)) {
      const what =
        code === 'ECONNREFUSED'
          ? 'refused the connection'
          : code.endsWith('UNREACH')
            ? 'is unreachable'
            : 'cannot be resolved';
      return new RequestError('PROXY', `${proxy} ${what} (${code})${tries}`, { cause: failure, framed: true });
    }
  }
  if (code === 'ERR_TOO_MANY_REDIRECTS')
    return new RequestError('REDIRECTS', `more than ${MAX_REDIRECTS} redirects from ${url}`, {
      cause: failure,
      framed: true,
    });
  // The configured url was checked before sending: only a redirect's Location can be one of these.
  if (code === 'ERR_UNSUPPORTED_PROTOCOL' || code === 'ERR_INVALID_URL') {
    return new RequestError(
      'REDIRECT_REFUSED',
      `the token API at ${url} redirected to a location that is not an http(s) URL (${redact(failure.message)})`,
      { cause: failure, framed: true },
    );
  }
  if (UNTRUSTED_CODES.includes(code) && !route.proxy) {
    return new RequestError(
      'TLS',
      `TLS handshake with ${url} failed: ${redact(untrustedMessage(code, issuer, request.tls, options.env))} (${code})`,
      { cause: failure, framed: true },
    );
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new RequestError(
      'TLS',
      `TLS handshake with ${url} failed: ${redact(nameMismatch(failure, hostname))} (${code})`,
      {
        cause: failure,
        framed: true,
      },
    );
  }
  const hint = TLS_HINTS[code];
  if (hint)
    return new RequestError('TLS', `TLS handshake with ${url} failed: ${hint} (${code})`, {
      cause: failure,
      framed: true,
    });
  // OpenSSL reads the first bytes of an HTTP answer as a TLS record: "wrong version number".
  if (/wrong version number|packet length too long|http request/i.test(failure.message)) {
    return new RequestError(
      'TLS_PLAIN_HTTP',
      `the server at ${origin} answered in plain HTTP, not TLS: use http:// with allowInsecureHTTP, or the TLS port${tries}`,
      { cause: failure, framed: true },
    );
  }
  // OpenSSL's message carries a process address and a source file: keep only the alert's name.
  const alert = /alert (certificate required|handshake failure|bad certificate|unknown ca)/i.exec(failure.message);
  if (alert) {
    return new RequestError(
      'TLS',
      `TLS handshake with ${url} failed: the server rejected the client certificate; set tls.certFile and tls.keyFile to one it trusts (${alert[0]})`,
      { cause: failure, framed: true },
    );
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new RequestError('DNS', `cannot resolve the host of ${url} (${code})${tries}`, {
      cause: failure,
      framed: true,
    });
  if (code === 'ECONNREFUSED')
    return new RequestError('CONNECT', `connection to ${url} refused${tries}`, { cause: failure, framed: true });
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    const certificate =
      failure.partialStatus !== undefined ? undefined : clientCertificateProblem(request.tls.cert, options.now());
    return new RequestError(
      'CONNECT',
      `connection to ${url} reset by the server (${code})${tries}${arriving}${certificate ? `; ${certificate}` : ''}`,
      { cause: failure, framed: true },
    );
  }
  if (code === 'HPE_HEADER_OVERFLOW')
    return new RequestError(
      'HTTP_PARSE',
      `the token API at ${url} answered with headers larger than 16 KiB (${code})`,
      { cause: failure, framed: true },
    );
  if (code.startsWith('HPE_'))
    return new RequestError(
      'HTTP_PARSE',
      `the token API at ${url} answered with something that is not HTTP/1.1 (${code})`,
      { cause: failure, framed: true },
    );
  return new RequestError(
    'REQUEST',
    `request to ${url} failed: ${redact(failure.message.split('\n')[0] ?? '')}${code ? ` (${code})` : ''}${tries}`,
    { cause: failure, framed: true },
  );
}
