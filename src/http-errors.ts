// got's errors turned into ours: one line each, redacted, saying what failed and what to do.
// Types only from got: http.ts is still its only importer.
import { X509Certificate } from 'node:crypto';
import type { RequestError as GotRequestError } from 'got';
import { CredentialError, RequestError } from './errors.js';
import { showProxy, type ProxyChoice } from './proxy.js';
import { excerpt } from './redact.js';
import type { RenderedRequest } from './request.js';

export const MAX_REDIRECTS = 5;

/** Thrown by the redirect hook; its message is the user's. */
export class RedirectRefused extends Error {}

/** What toRequestError needs from http.ts. */
export interface ErrorContext {
  timeoutMs: number;
  now: () => number;
  redact: (text: string) => string;
}

/** A short, redacted view of an error body; bytes that are not text are not shown. */
export function bodyExcerpt(body: unknown, redact: (text: string) => string): string {
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : '';
  return /[\ufffd\u0000]/.test(text) ? 'binary data, not UTF-8 text' : excerpt(text, redact);
}

export function stripQuery(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

export function describeFailure(error: GotRequestError): string {
  if (error.response) return `HTTP ${error.response.statusCode}`;
  return error.code ?? error.message;
}

const TLS_HINTS: Record<string, string> = {
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate is not signed by a trusted CA; set tls.caFile or tls.caData',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the server certificate is not signed by a trusted CA; set tls.caFile or tls.caData',
  SELF_SIGNED_CERT_IN_CHAIN: 'the server certificate chain ends in an untrusted CA; set tls.caFile or tls.caData',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed; set tls.caFile or tls.caData to trust it',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  CERT_NOT_YET_VALID: 'the server certificate is not valid yet (check this machine\'s clock)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the server certificate does not name this host; fix url or set tls.serverName',
};

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
    if (from > now) return `the client certificate is not valid before ${new Date(from).toISOString()} (check this machine's clock)`;
  } catch {
    // request.ts has parsed it already; nothing to add.
  }
  return undefined;
}

// Failures that happen between us and the proxy; anything past it the proxy reports as a status.
const PROXY_CONNECT_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'];

export function toRequestError(error: GotRequestError, attempts: number, options: ErrorContext, request: RenderedRequest, route: ProxyChoice): Error {
  const { redact } = options;
  const requestUrl = request.url;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RedirectRefused) return new RequestError('REDIRECT_REFUSED', cause.message, { cause: error });
  // A UsageError from a hook (a bad proxy variable met on a redirect) keeps its own exit code.
  if (cause instanceof CredentialError) return cause;
  const response = error.response;
  // Only got's HTTPError is a status answer: a timeout or reset while the body arrives also carries the response.
  if (response && error.code === 'ERR_NON_2XX_3XX_RESPONSE') {
    const status = `${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
    const body = bodyExcerpt(response.body, redact);
    return new RequestError('HTTP_STATUS', `the token API answered ${status}${tries}${body ? `: ${body}` : ''}`, { cause: error });
  }
  const url = redact(stripQuery(new URL(error.options?.url ?? requestUrl)));
  const code = error.code ?? '';
  const innerCode = (cause as NodeJS.ErrnoException | undefined)?.code ?? code;
  const noAnswer = response ? 'no complete answer' : 'no answer';
  const arriving = response ? `; ${response.statusCode} and part of the body had arrived` : '';
  // The whole-call AbortSignal.timeout() surfaces as got's TimeoutError caused by a DOMException.
  if (code === 'ERR_ABORTED' || error.name === 'AbortError' || cause instanceof DOMException) {
    return new RequestError('DEADLINE', `${noAnswer} from ${url} within the whole-call deadline (--timeout)${tries}${arriving}`, { cause: error });
  }
  if (code === 'ETIMEDOUT') {
    return new RequestError('TIMEOUT', `${noAnswer} from ${url} within ${options.timeoutMs} ms (timeout, ${error.name === 'TimeoutError' ? (error as { event?: string }).event ?? 'request' : 'request'} phase)${tries}${arriving}`, { cause: error });
  }
  if (route.proxy) {
    const proxy = `the proxy ${redact(showProxy(route.proxy))} (from ${route.variable})`;
    if (innerCode === 'ERR_PROXY_TUNNEL') {
      // Node's message ends with the proxy's status line: "… via http://proxy/: HTTP/1.1 407 Proxy Authentication Required".
      const statusLine = /(HTTP\/[\d.]+ \d{3}[^\n]*)$/.exec(error.message)?.[1]?.trim() ?? 'no 200 answer';
      const status = (cause as { statusCode?: number } | undefined)?.statusCode;
      const hint = status === 407 || status === 401 ? `; check the user and password in ${route.variable}` : '';
      return new RequestError('PROXY', `${proxy} did not open a tunnel to ${redact(new URL(error.options?.url ?? requestUrl).host)}: ${redact(statusLine)}${hint}${tries}`, { cause: error });
    }
    if (PROXY_CONNECT_CODES.includes(innerCode)) {
      const what = innerCode === 'ECONNREFUSED' ? 'refused the connection' : innerCode.endsWith('UNREACH') ? 'is unreachable' : 'cannot be resolved';
      return new RequestError('PROXY', `${proxy} ${what} (${innerCode})${tries}`, { cause: error });
    }
  }
  if (code === 'ERR_TOO_MANY_REDIRECTS') return new RequestError('REDIRECTS', `more than ${MAX_REDIRECTS} redirects from ${url}`, { cause: error });
  // The configured url was checked before sending: only a redirect's Location can be one of these.
  if (code === 'ERR_UNSUPPORTED_PROTOCOL' || code === 'ERR_INVALID_URL') {
    return new RequestError('REDIRECT_REFUSED', `the token API at ${url} redirected to a location that is not an http(s) URL (${redact(error.message)})`, { cause: error });
  }
  const hint = TLS_HINTS[innerCode];
  if (hint) return new RequestError('TLS', `TLS handshake with ${url} failed: ${hint} (${innerCode})`, { cause: error });
  // OpenSSL's message carries a process address and a source file: keep only the alert's name.
  const alert = /alert (certificate required|handshake failure|bad certificate|unknown ca)/i.exec(error.message);
  if (alert) {
    return new RequestError('TLS', `TLS handshake with ${url} failed: the server rejected the client certificate; set tls.certFile and tls.keyFile to one it trusts (${alert[0]})`, { cause: error });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RequestError('DNS', `cannot resolve the host of ${url} (${code})${tries}`, { cause: error });
  if (code === 'ECONNREFUSED') return new RequestError('CONNECT', `connection to ${url} refused${tries}`, { cause: error });
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    const certificate = response ? undefined : clientCertificateProblem(request.tls.cert, options.now());
    return new RequestError('CONNECT', `connection to ${url} reset by the server (${code})${tries}${arriving}${certificate ? `; ${certificate}` : ''}`, { cause: error });
  }
  if (code === 'HPE_HEADER_OVERFLOW') return new RequestError('HTTP_PARSE', `the token API at ${url} answered with headers larger than 16 KiB (${code})`, { cause: error });
  if (code.startsWith('HPE_')) return new RequestError('HTTP_PARSE', `the token API at ${url} answered with something that is not HTTP/1.1 (${code})`, { cause: error });
  return new RequestError('REQUEST', `request to ${url} failed: ${redact((error.message ?? String(error)).split('\n')[0] ?? '')}${code ? ` (${code})` : ''}${tries}`, { cause: error });
}
