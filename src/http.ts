// The only importer of got, loaded lazily by get-token.ts so that a cached credential never pays
// for it: retries, redirects, limits, proxies and the --verbose trace. http-errors.ts turns got's
// errors into ours, with every message passed through the redactor.
import https from 'node:https';
import http from 'node:http';
import { rootCertificates } from 'node:tls';
import got, { type RequestError as GotRequestError, type Response } from 'got';
import { CredentialError, RequestError, ResponseError } from './errors.js';
import { bodyExcerpt, describeFailure, MAX_REDIRECTS, RedirectRefused, stripQuery, toRequestError } from './http-errors.js';
import { chooseProxy, proxySecrets, showProxy, type ProxyChoice } from './proxy.js';
import type { RenderedRequest } from './request.js';
import { parseRetryAfter, RETRY_AFTER_CAP_MS, RETRY_STATUS_CODES, retryDelay } from './retry.js';

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
  /** Registers a value that must never be shown: the password of a proxy URL. */
  secret?: (value: string) => void;
}

export interface HttpResponse {
  status: number;
  contentType: string | undefined;
  body: string;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

// Failures before a connection exists. got 14 on Node >= 24.20 does not retry them: the request's
// end() callback then fails with ERR_SOCKET_CLOSED_BEFORE_CONNECTION, which got takes as final
// (sindresorhus/got#2469, fixed in got 16). So got retries everything else and send() retries these.
const CONNECT_ERROR_CODES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH', 'EADDRINUSE'];
const GOT_RETRY_ERROR_CODES = ['ETIMEDOUT', 'ECONNRESET', 'EPIPE'];

interface SendState {
  attempts: number;
  connectError: string | undefined;
  /** When the current attempt started (ms since epoch), for the --verbose trace. */
  attemptStarted: number;
}

export async function send(request: RenderedRequest, options: HttpOptions): Promise<HttpResponse> {
  const state: SendState = { attempts: 0, connectError: undefined, attemptStarted: options.now() };
  for (;;) {
    try {
      return await sendOnce(request, { ...options, retryLimit: options.retryLimit - state.attempts }, state);
    } catch (error) {
      const code = state.connectError;
      if (code === undefined || state.attempts > options.retryLimit) throw error;
      const delay = retryDelay({ attempt: state.attempts, retryAfterMs: undefined, now: options.now(), deadline: options.deadline, random: options.random() });
      traceRetry(options, state, code, delay, undefined);
      if (delay === 0) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** One or two trace lines for a failed attempt that could be retried: what failed, how long it took, what comes next. */
function traceRetry(options: HttpOptions, state: SendState, failure: string, delay: number, retryAfter: string | undefined): void {
  const attempt = state.attempts;
  const took = options.now() - state.attemptStarted;
  if (delay === 0) {
    const why =
      retryAfter !== undefined && (parseRetryAfter(retryAfter, options.now()) ?? 0) > RETRY_AFTER_CAP_MS
        ? `Retry-After ${retryAfter.trim()} asks for more than ${RETRY_AFTER_CAP_MS / 1000} s`
        : 'another attempt could not start before the whole-call deadline (--timeout)';
    options.log(`attempt ${attempt} failed (${failure}) after ${took} ms; not retrying: ${why}`);
    return;
  }
  options.log(`attempt ${attempt} failed (${failure}); retrying`);
  const reason = retryAfter !== undefined && parseRetryAfter(retryAfter, options.now()) !== undefined ? `Retry-After ${retryAfter.trim()}` : 'backoff with jitter';
  options.log(`attempt ${attempt} took ${took} ms; attempt ${attempt + 1} in ${delay} ms (${reason})`);
}

async function sendOnce(request: RenderedRequest, options: HttpOptions, state: SendState): Promise<HttpResponse> {
  const { log, redact } = options;
  const started = options.now();
  const origin = new URL(request.url).origin;
  let tooLarge = false;
  const before = state.attempts;
  state.attempts = before + 1;
  state.connectError = undefined;

  const tlsOptions: https.AgentOptions = {
    keepAlive: false,
    rejectUnauthorized: !request.tls.insecureSkipVerify,
    ...(request.tls.ca !== undefined ? { ca: [...rootCertificates, request.tls.ca] } : {}),
    ...(request.tls.cert !== undefined ? { cert: request.tls.cert } : {}),
    ...(request.tls.key !== undefined ? { key: request.tls.key } : {}),
    ...(request.tls.serverName !== undefined ? { servername: request.tls.serverName } : {}),
  };
  // The proxy is chosen here (proxy.ts, curl's rules) for every host a redirect leads to; Node
  // >= 24.5 then tunnels through CONNECT when its Agent is given that one proxy as `proxyEnv`.
  let route: ProxyChoice = { proxy: undefined, variable: undefined, bypass: undefined };
  const agentsFor = (target: URL) => {
    route = chooseProxy(target, options.env);
    const { proxy, variable } = route;
    if (proxy) for (const secret of proxySecrets(proxy)) options.secret?.(secret);
    if (proxy) log(`through the proxy ${redact(showProxy(proxy))} from ${variable} to ${redact(target.host)}`);
    else if (variable) log(`directly to ${redact(target.host)}, not through the proxy from ${variable}: ${route.bypass}`);
    const proxyEnv = proxy ? { [target.protocol === 'http:' ? 'HTTP_PROXY' : 'HTTPS_PROXY']: proxy.href } : undefined;
    type ProxyAgentOptions = https.AgentOptions & { proxyEnv?: Record<string, string> };
    return {
      https: new https.Agent({ ...tlsOptions, ...(proxyEnv ? { proxyEnv } : {}) } as ProxyAgentOptions),
      http: new http.Agent({ keepAlive: false, ...(proxyEnv ? { proxyEnv } : {}) } as ProxyAgentOptions),
    };
  };

  const promise = got(request.url, {
    method: request.method as 'POST',
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    agent: agentsFor(new URL(request.url)),
    // Node's timers hold at most 2^31-1 ms (24.8 days); a longer --timeout or timeout is that long.
    timeout: { request: Math.min(options.timeoutMs, MAX_TIMER_MS) },
    signal: AbortSignal.timeout(Math.min(Math.max(options.deadline - options.now(), 1), MAX_TIMER_MS)),
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
        const header = error.response?.headers['retry-after'];
        const retryAfter = parseRetryAfter(header, options.now());
        const delay = retryDelay({ attempt: before + attemptCount, retryAfterMs: retryAfter, now: options.now(), deadline: options.deadline, random: options.random() });
        traceRetry(options, state, redact(describeFailure(error)), delay, header);
        return delay;
      },
    },
    hooks: {
      beforeRequest: [
        () => {
          state.attemptStarted = options.now();
        },
      ],
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
          // got turns a 303 into a GET without a body but keeps the body's content-type.
          if (next.body === undefined) for (const name of Object.keys(next.headers)) if (name.toLowerCase() === 'content-type') delete next.headers[name];
          log(`redirect ${response.statusCode} -> ${redact(target.toString())}`);
          if (target.origin !== new URL(response.url).origin) next.agent = agentsFor(target);
        },
      ],
      beforeRetry: [
        (_error, retryCount) => {
          state.attempts = before + retryCount + 1;
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
    // got passes a 3xx it did not follow (a 304, a 302 without Location) as a success: it is not one.
    if (response.statusCode < 200 || response.statusCode > 299) {
      const body = bodyExcerpt(response.body, redact);
      throw new RequestError('HTTP_STATUS', `the token API answered ${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}${state.attempts > 1 ? ` after ${state.attempts} attempts` : ''}${body ? `: ${body}` : ''}`);
    }
    // With decompress off, got hands over a Buffer for a content-encoded body despite responseType 'text'.
    const body: string = typeof response.body === 'string' ? response.body : Buffer.from(response.rawBody).toString('utf8');
    log(`answer ${response.statusCode} after ${options.now() - started} ms, ${response.rawBody.length} bytes`);
    return { status: response.statusCode, contentType: response.headers['content-type'], body };
  } catch (error) {
    if (error instanceof CredentialError) throw error;
    if (tooLarge) {
      throw new ResponseError('RESPONSE_TOO_LARGE', `the token API answered with more than maxResponseBytes (${options.maxResponseBytes} bytes)`, { cause: error });
    }
    const failure = toRequestError(error as GotRequestError, state.attempts, options, request, route);
    const code = (error as GotRequestError).code;
    const tunnelStatus = ((error as { cause?: { code?: string; statusCode?: number } }).cause ?? {}) as { code?: string; statusCode?: number };
    if (!(error as GotRequestError).response && CONNECT_ERROR_CODES.includes(code)) state.connectError = code;
    // A proxy that cannot reach the token API (502, 503…) is a connection error one hop further.
    else if (tunnelStatus.code === 'ERR_PROXY_TUNNEL' && (tunnelStatus.statusCode ?? 0) >= 500) state.connectError = `proxy answered ${tunnelStatus.statusCode}`;
    throw failure;
  }
}
