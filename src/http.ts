// The only importer of got, loaded lazily by get-token.ts so that a cached credential never pays
// for it. Turns got's errors into ours, with every message passed through the redactor.
import https from 'node:https';
import http from 'node:http';
import { rootCertificates } from 'node:tls';
import got, { type RequestError as GotRequestError, type Response } from 'got';
import { RequestError, ResponseError } from './errors.js';
import type { RenderedRequest } from './request.js';
import { excerpt } from './redact.js';
import { parseRetryAfter, RETRY_STATUS_CODES, retryDelay } from './retry.js';

export interface HttpOptions {
  /** Per attempt. */
  timeoutMs: number;
  retryLimit: number;
  maxResponseBytes: number;
  allowInsecureHTTP: boolean;
  /** Whole call, ms since epoch. */
  deadline: number;
  /** Header names the user templated: dropped when a redirect changes origin. */
  templatedHeaders: string[];
  env: Record<string, string | undefined>;
  now: () => number;
  random: () => number;
  log: (line: string) => void;
  redact: (text: string) => string;
}

export interface HttpResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

const MAX_REDIRECTS = 5;

class RedirectRefused extends Error {}

// Failures before a connection exists. got 14 on Node >= 24.20 does not retry them: the request's
// end() callback then fails with ERR_SOCKET_CLOSED_BEFORE_CONNECTION, which got takes as final
// (sindresorhus/got#2469, fixed in got 16). So got retries everything else and send() retries these.
const CONNECT_ERROR_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRINUSE'];
const GOT_RETRY_ERROR_CODES = ['ETIMEDOUT', 'ECONNRESET', 'EPIPE'];

export async function send(request: RenderedRequest, options: HttpOptions): Promise<HttpResponse> {
  const state = { attempts: 0, connectError: undefined as string | undefined };
  for (;;) {
    try {
      return await sendOnce(request, { ...options, retryLimit: options.retryLimit - state.attempts }, state);
    } catch (error) {
      const code = state.connectError;
      const delay =
        code !== undefined && state.attempts <= options.retryLimit
          ? retryDelay({ attempt: state.attempts, retryAfterMs: undefined, now: options.now(), deadline: options.deadline, random: options.random() })
          : 0;
      if (delay === 0) throw error;
      options.log(`attempt ${state.attempts} failed (${code}); retrying`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

async function sendOnce(request: RenderedRequest, options: HttpOptions, state: { attempts: number; connectError: string | undefined }): Promise<HttpResponse> {
  const { log, redact } = options;
  const started = options.now();
  const origin = new URL(request.url).origin;
  let tooLarge = false;
  const before = state.attempts;
  state.attempts = before + 1;
  state.connectError = undefined;

  const agentOptions: https.AgentOptions & { proxyEnv?: Record<string, string | undefined> } = {
    keepAlive: false,
    // Node >= 24.5 speaks HTTPS_PROXY/NO_PROXY through CONNECT when given the environment.
    proxyEnv: options.env,
    rejectUnauthorized: !request.tls.insecureSkipVerify,
    ...(request.tls.ca !== undefined ? { ca: [...rootCertificates, request.tls.ca] } : {}),
    ...(request.tls.cert !== undefined ? { cert: request.tls.cert } : {}),
    ...(request.tls.key !== undefined ? { key: request.tls.key } : {}),
    ...(request.tls.serverName !== undefined ? { servername: request.tls.serverName } : {}),
  };

  const promise = got(request.url, {
    method: request.method as 'POST',
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    agent: { https: new https.Agent(agentOptions), http: new http.Agent({ proxyEnv: options.env } as http.AgentOptions) },
    timeout: { request: options.timeoutMs },
    signal: AbortSignal.timeout(Math.max(options.deadline - options.now(), 1)),
    // A decompression bomb cannot pass maxResponseBytes when nothing is decompressed.
    decompress: false,
    responseType: 'text',
    followRedirect: true,
    maxRedirects: MAX_REDIRECTS,
    retry: {
      limit: options.retryLimit,
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      statusCodes: RETRY_STATUS_CODES,
      errorCodes: GOT_RETRY_ERROR_CODES,
      maxRetryAfter: Number.MAX_SAFE_INTEGER,
      calculateDelay: ({ attemptCount, computedValue, error }) => {
        if (computedValue === 0 || tooLarge) return 0;
        const headers = error.response?.headers;
        const retryAfter = parseRetryAfter(headers?.['retry-after'] as string | undefined, options.now());
        return retryDelay({ attempt: attemptCount, retryAfterMs: retryAfter, now: options.now(), deadline: options.deadline, random: options.random() });
      },
    },
    hooks: {
      beforeRedirect: [
        (next, response) => {
          const target = next.url as URL;
          if (target.protocol === 'http:' && !options.allowInsecureHTTP) {
            throw new RedirectRefused(`the token API redirected to http:// (${redact(stripQuery(target))}); refusing without allowInsecureHTTP`);
          }
          if (target.origin !== origin) {
            if (next.body !== undefined && response.statusCode !== 303) {
              throw new RedirectRefused(`the token API redirected the request body to another origin (${redact(target.origin)}); refusing to resend it: point url at the final location`);
            }
            for (const name of Object.keys(next.headers)) {
              const lower = name.toLowerCase();
              if (lower === 'authorization' || lower === 'cookie' || options.templatedHeaders.some((h) => h.toLowerCase() === lower)) delete next.headers[name];
            }
          }
          log(`redirect ${response.statusCode} -> ${redact(target.toString())}`);
        },
      ],
      beforeRetry: [
        (error, retryCount) => {
          state.attempts = before + retryCount + 1;
          log(`attempt ${retryCount} failed (${redact(describeFailure(error))}); retrying`);
        },
      ],
    },
  });
  promise.on('downloadProgress', (progress: { transferred: number; total?: number }) => {
    if (progress.transferred > options.maxResponseBytes || (progress.total ?? 0) > options.maxResponseBytes) {
      tooLarge = true;
      promise.cancel();
    }
  });

  try {
    const response = (await promise) as Response<string>;
    log(`answer ${response.statusCode} after ${options.now() - started} ms, ${Buffer.byteLength(response.body)} bytes`);
    return { status: response.statusCode, contentType: response.headers['content-type'], body: response.body };
  } catch (error) {
    if (tooLarge) {
      throw new ResponseError('RESPONSE_TOO_LARGE', `the token API answered with more than maxResponseBytes (${options.maxResponseBytes} bytes)`, { cause: error });
    }
    const failure = toRequestError(error as GotRequestError, state.attempts, options, request.url);
    const code = (error as GotRequestError).code;
    if (!(error as GotRequestError).response && CONNECT_ERROR_CODES.includes(code)) state.connectError = code;
    throw failure;
  }
}

function stripQuery(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

function describeFailure(error: GotRequestError): string {
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

function toRequestError(error: GotRequestError, attempts: number, options: HttpOptions, requestUrl: string): Error {
  const { redact } = options;
  const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof RedirectRefused) return new RequestError('REDIRECT_REFUSED', cause.message, { cause: error });
  const response = error.response;
  if (response) {
    const status = `${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
    const body = typeof response.body === 'string' ? excerpt(response.body, redact) : '';
    return new RequestError('HTTP_STATUS', `the token API answered ${status}${tries}${body ? `: ${body}` : ''}`, { cause: error });
  }
  const url = redact(stripQuery(new URL(error.options?.url ?? requestUrl)));
  const code = error.code ?? '';
  const innerCode = (cause as NodeJS.ErrnoException | undefined)?.code ?? code;
  // The whole-call AbortSignal.timeout() surfaces as got's TimeoutError caused by a DOMException.
  if (code === 'ERR_ABORTED' || error.name === 'AbortError' || cause instanceof DOMException) {
    return new RequestError('DEADLINE', `no answer from ${url} within the whole-call deadline (--timeout)${tries}`, { cause: error });
  }
  if (code === 'ETIMEDOUT') {
    return new RequestError('TIMEOUT', `no answer from ${url} within ${options.timeoutMs} ms (timeout, ${error.name === 'TimeoutError' ? (error as { event?: string }).event ?? 'request' : 'request'} phase)${tries}`, { cause: error });
  }
  if (code === 'ERR_TOO_MANY_REDIRECTS') return new RequestError('REDIRECTS', `more than ${MAX_REDIRECTS} redirects from ${url}`, { cause: error });
  const hint = TLS_HINTS[innerCode];
  if (hint) return new RequestError('TLS', `TLS handshake with ${url} failed: ${hint} (${innerCode})`, { cause: error });
  // OpenSSL's message carries a process address and a source file: keep only the alert's name.
  const alert = /alert (certificate required|handshake failure|bad certificate|unknown ca)/i.exec(error.message);
  if (alert) {
    return new RequestError('TLS', `TLS handshake with ${url} failed: the server rejected the client certificate; set tls.certFile and tls.keyFile to one it trusts (${alert[0]})`, { cause: error });
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new RequestError('DNS', `cannot resolve the host of ${url} (${code})${tries}`, { cause: error });
  if (code === 'ECONNREFUSED') return new RequestError('CONNECT', `connection to ${url} refused${tries}`, { cause: error });
  if (code === 'ECONNRESET' || code === 'EPIPE') return new RequestError('CONNECT', `connection to ${url} reset by the server (${code})${tries}`, { cause: error });
  return new RequestError('REQUEST', `request to ${url} failed: ${redact((error.message ?? String(error)).split('\n')[0] ?? '')}${code ? ` (${code})` : ''}${tries}`, { cause: error });
}
