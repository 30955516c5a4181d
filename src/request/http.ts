// The request to the token API, on node:https: attempts with retries, redirects, limits, proxies
// and the --verbose trace. Loaded lazily by main.ts on the first request, so a cached credential never pays for it.
//
// Why not got (the library we started with): importing it costs the single binary 35-50 ms, more
// than a whole `curl | jq` plugin run (bench/), and of what it offers we used only the plumbing:
// the retry policy (retry.ts), the redirect policy and the error messages (http-errors.ts) were
// ours already. got 14 also stops retrying connection failures on Node >= 24.20
// (sindresorhus/got#2469).
import tls, { type SecureContext } from 'node:tls';
import { makeSecureContext } from './tls-context.js';
import { CredentialError, RequestError } from '../errors.js';
import {
  Failure,
  MAX_REDIRECTS,
  TLS_HINTS,
  UNTRUSTED_CODES,
  errorBodySummary,
  proxyTlsError,
  stripQuery,
  toRequestError,
} from './http-errors.js';
import { chooseProxy, proxySecrets, showProxy, type ProxyChoice } from './proxy.js';
import type { RenderedRequest, TlsMaterial } from './build.js';
import {
  parseRetryAfter,
  RETRY_AFTER_CAP_MS,
  RETRY_STATUS_CODES,
  retryDelay,
  singleUseMayResend,
  singleUseTimeoutMs,
} from './retry.js';
import { distinguishedName, probeServer, type HttpObservation } from './observe-http.js';
import { exchange, type Answer } from './exchange.js';

export interface HttpOptions {
  /** Per attempt, redirects included. */
  timeoutMs: number;
  retryLimit: number;
  maxResponseBytes: number;
  allowInsecureHTTP: boolean;
  /** Whole call, ms since epoch. */
  deadline: number;
  /** The whole call's length (--timeout), named when the deadline passes. */
  wholeTimeoutMs?: number;
  /** Header names the user templated: dropped when a redirect changes origin. */
  templatedHeaders: string[];
  env: Record<string, string | undefined>;
  now: () => number;
  random: () => number;
  /**
   * The trace of the exchange. Each line (and each announcement) is the plugin's frame: fixed words,
   * statuses, sizes, times, with every part the server or a library gave redacted where it is put in,
   * so that the caller does not search it for the values a secret decided (Deps.trace's `framed`).
   */
  log: (line: string) => void;
  /** A wait of more than a second is said on stderr before it starts, verbose or not: kubectl seems hung otherwise. */
  announce?: (line: string) => void;
  redact: (text: string) => string;
  /** Registers a value that must never be shown: the password of a proxy URL. */
  secret?: (value: string) => void;
  /** doctor: each exchange as it ends (request/observe-http.ts); absent on a normal call. */
  observe?: (seen: HttpObservation) => void;
  /**
   * A single-use grant's request (retry.ts SINGLE_USE_GRANTS): never sent again once it may have
   * reached the server, and its attempt has the whole time left to the deadline.
   */
  singleUse?: boolean;
  /** Non-2xx statuses returned as answers, not thrown: RFC 8628 polling reads the error of a 400. */
  answerStatuses?: readonly number[];
  /** Ends the request at once (a login's Ctrl-C): its socket is destroyed, nothing holds the process. */
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  contentType: string | undefined;
  body: string;
  /** The body's size as received; `body` is its UTF-8 reading. */
  bytes: number;
}

const REDIRECT_STATUSES = [301, 302, 303, 307, 308];
// Failures worth another attempt: nothing reached the API, or its answer broke off. TLS failures,
// the deadline and a too large answer would only fail the same way again.
const RETRY_ERROR_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRINUSE',
  'ETIMEDOUT',
  'ECONNRESET',
  'EPIPE',
];

export async function send(request: RenderedRequest, options: HttpOptions): Promise<HttpResponse> {
  const secureContext = makeSecureContext(request.tls);
  for (let attempt = 1; ; attempt++) {
    const started = options.now();
    let failure: Failure | undefined;
    let answer: Answer | undefined;
    let route: ProxyChoice = { proxy: undefined, variable: undefined, bypass: undefined };
    // A single-use request's one attempt may take all the time left: a resend would be a reuse.
    const attempting = options.singleUse
      ? { ...options, timeoutMs: singleUseTimeoutMs(started, options.deadline) }
      : options;
    try {
      answer = await attemptOnce(request, attempting, secureContext, started, (chosen) => (route = chosen));
    } catch (error) {
      if (error instanceof CredentialError) throw error;
      if (!(error instanceof Failure)) throw error;
      failure = error;
    }
    const tries = attempt > 1 ? ` after ${attempt} attempts` : '';
    if (answer && ((answer.status >= 200 && answer.status <= 299) || options.answerStatuses?.includes(answer.status))) {
      options.log(`answer ${answer.status} after ${options.now() - started} ms, ${answer.body.length} bytes`);
      return {
        status: answer.status,
        contentType: answer.headers['content-type'],
        body: answer.body.toString('utf8'),
        bytes: answer.body.length,
      };
    }
    const retryable =
      (answer ? RETRY_STATUS_CODES.includes(answer.status) : isRetryable(failure!)) &&
      (!options.singleUse || singleUseMayResend({ status: answer?.status, code: failure?.code }));
    // Read once: the wait, the trace, the announcement and the error all speak of the same value.
    const said = answer ? headerValue(answer.headers['retry-after']) : undefined;
    const retryAfter = said === undefined ? undefined : { said: said.trim(), ms: parseRetryAfter(said, options.now()) };
    if (retryable && attempt <= options.retryLimit) {
      const now = options.now();
      const delay = retryDelay({
        attempt,
        retryAfterMs: retryAfter?.ms,
        now,
        deadline: options.deadline,
        random: options.random(),
        lastAttemptMs: now - started,
      });
      traceRetry(options, attempt, started, answer ? `HTTP ${answer.status}` : failure!.code, delay, retryAfter);
      if (delay > 1000) announceWait(options, delay, answer?.status, failure?.code, retryAfter);
      if (delay > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          options.signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        });
        if (!options.signal?.aborted) continue;
      }
    }
    if (answer) {
      const said = errorBodySummary(answer.body, answer.headers['content-type'], options.redact, answer.status);
      if (said.verboseExcerpt !== undefined)
        options.log(`answer ${answer.status} body (excerpt): ${said.verboseExcerpt}`);
      // The plugin's frame (framed): the server's reason phrase and error fields redacted in full here.
      throw new RequestError(
        'HTTP_STATUS',
        `the token API answered ${answer.status}${answer.statusMessage ? ` ${options.redact(answer.statusMessage)}` : ''}${tries}${said.summary ? `: ${said.summary}` : ''}`,
        {
          framed: true,
          status: answer.status,
          retryAfterMs: retryAfter?.ms,
        },
      );
    }
    // An https:// proxy's own certificate fails the same way the token API's would: ask the proxy
    // alone, so the message blames the hop that failed. Only on this failure path.
    if (route.proxy?.protocol === 'https:' && isTlsFailure(failure!)) {
      const problem = await proxyHandshake(route.proxy, options);
      if (problem) throw proxyTlsError(route, problem, options.redact, failure!);
    }
    const issuer =
      UNTRUSTED_CODES.includes(failure!.code) && !route.proxy
        ? await peerIssuer(failure!.url, request.tls, options)
        : undefined;
    throw toRequestError(failure!, attempt, options, request, route, issuer);
  }
}

/**
 * The issuer of the certificate chain a server presents, for the message of a failed verification:
 * the top of the chain it sent, the CA a trust would have to hold. Only on that failure path, within
 * the deadline.
 */
function peerIssuer(url: URL, material: TlsMaterial, options: HttpOptions): Promise<string | undefined> {
  return probeServer(url, material, Math.max(1, Math.min(options.deadline - options.now(), 2_000)), (socket) => {
    let certificate = socket.getPeerCertificate(true);
    for (
      let hops = 0;
      hops < 10 && certificate.issuerCertificate && certificate.issuerCertificate !== certificate;
      hops++
    ) {
      certificate = certificate.issuerCertificate;
    }
    return distinguishedName(certificate.issuer) || undefined;
  });
}

function isTlsFailure(failure: Failure): boolean {
  return TLS_HINTS[failure.code] !== undefined || /^ERR_(TLS|SSL)_|CERT|SSL/.test(failure.code);
}

/** The TLS error code of a handshake with the proxy alone (Node's default trust, as its agent uses), or undefined. */
function proxyHandshake(proxy: URL, options: HttpOptions): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: Number(proxy.port || 443),
      servername: proxy.hostname,
      ALPNProtocols: ['http/1.1'],
    });
    const timer = setTimeout(() => finish(undefined), Math.max(1, Math.min(options.deadline - options.now(), 5_000)));
    const finish = (code: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    socket.once('secureConnect', () => finish(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? 'TLS'));
  });
}

function isRetryable(failure: Failure): boolean {
  // A proxy that cannot reach the token API (502, 503…) is a connection error one hop further.
  if (failure.code === 'ERR_PROXY_TUNNEL') return (failure.proxyStatus ?? 0) >= 500;
  return RETRY_ERROR_CODES.includes(failure.code);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** An answer's Retry-After as it was written (trimmed) and in ms (undefined when it reads as neither form). */
interface RetryAfter {
  said: string;
  ms: number | undefined;
}

/** `the token API asked to retry after 20s (429); waiting`: said before a wait of more than a second. */
function announceWait(
  options: HttpOptions,
  delay: number,
  status: number | undefined,
  code: string | undefined,
  retryAfter: RetryAfter | undefined,
): void {
  const seconds = delay / 1000;
  const shown = `${seconds >= 10 ? Math.round(seconds) : Math.round(seconds * 10) / 10}s`;
  const what = status !== undefined ? String(status) : options.redact(code ?? 'no answer');
  const asked = retryAfter?.ms !== undefined;
  options.announce?.(
    asked
      ? `the token API asked to retry after ${shown} (${what}); waiting`
      : `the token API failed (${what}); retrying in ${shown}`,
  );
}

/** One or two trace lines for a failed attempt that could be retried: what failed, how long it took, what comes next. */
function traceRetry(
  options: HttpOptions,
  attempt: number,
  started: number,
  failure: string,
  delay: number,
  retryAfter: RetryAfter | undefined,
): void {
  const took = options.now() - started;
  if (delay === 0) {
    const why =
      retryAfter !== undefined && (retryAfter.ms ?? 0) > RETRY_AFTER_CAP_MS
        ? `Retry-After ${options.redact(retryAfter.said)} asks for more than ${RETRY_AFTER_CAP_MS / 1000} s`
        : 'another attempt could not start before the whole-call deadline (--timeout)';
    options.log(`attempt ${attempt} failed (${options.redact(failure)}) after ${took} ms; not retrying: ${why}`);
    return;
  }
  options.log(`attempt ${attempt} failed (${options.redact(failure)}); retrying`);
  const reason =
    retryAfter?.ms !== undefined ? `Retry-After ${options.redact(retryAfter.said)}` : 'backoff with jitter';
  options.log(`attempt ${attempt} took ${took} ms; attempt ${attempt + 1} in ${delay} ms (${reason})`);
}

/** One attempt: the request and the redirects it leads to, within the per-attempt timeout. */
async function attemptOnce(
  request: RenderedRequest,
  options: HttpOptions,
  secureContext: SecureContext,
  started: number,
  onRoute: (route: ProxyChoice) => void,
): Promise<Answer> {
  const { log, redact } = options;
  const origin = new URL(request.url).origin;
  let target = new URL(request.url);
  let method = request.method;
  let headers: Record<string, string> = { ...request.headers };
  let body = request.body;
  let route = routeFor(target, options);
  onRoute(route);
  for (let redirects = 0; ; redirects++) {
    const answer = await exchange(target, method, headers, body, {
      secureContext,
      tls: request.tls,
      route,
      started,
      options,
    });
    const location = headerValue(answer.headers.location);
    if (!REDIRECT_STATUSES.includes(answer.status) || location === undefined) return answer;
    if (redirects >= MAX_REDIRECTS)
      throw new Failure('ERR_TOO_MANY_REDIRECTS', `more than ${MAX_REDIRECTS} redirects`, target);

    let next: URL;
    try {
      // Location is bytes; Node hands them over as latin1, servers mean UTF-8.
      next = new URL(Buffer.from(location, 'latin1').toString('utf8'), target);
    } catch (error) {
      throw new Failure('ERR_INVALID_URL', 'Invalid URL', target, undefined, error);
    }
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw new Failure('ERR_UNSUPPORTED_PROTOCOL', `Unsupported protocol: ${next.protocol}`, target);
    }
    if (next.protocol === 'http:' && !options.allowInsecureHTTP) {
      throw new RequestError(
        'REDIRECT_REFUSED',
        `the token API redirected to http:// (${redact(stripQuery(next))}); refusing without allowInsecureHTTP`,
        { framed: true },
      );
    }
    // 303 means "GET the answer there"; 301/302/307/308 repeat the request as it was.
    if (answer.status === 303 && method !== 'GET' && method !== 'HEAD') {
      method = 'GET';
      body = undefined;
      headers = withoutHeaders(headers, (name) => name === 'content-type' || name === 'content-length');
    }
    if (next.origin !== origin) {
      if (body !== undefined) {
        throw new RequestError(
          'REDIRECT_REFUSED',
          `the token API redirected the request body to another origin (${redact(next.origin)}); refusing to resend it: point url at the final location`,
          { framed: true },
        );
      }
      const templated = options.templatedHeaders.map((name) => name.toLowerCase());
      headers = withoutHeaders(
        headers,
        (name) => name === 'authorization' || name === 'cookie' || name === 'host' || templated.includes(name),
      );
    }
    log(`redirect ${answer.status} -> ${redact(next.toString())}`);
    if (next.origin !== target.origin) {
      route = routeFor(next, options);
      onRoute(route);
    }
    target = next;
  }
}

function withoutHeaders(headers: Record<string, string>, drop: (lowerName: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name.toLowerCase())));
}

/** The proxy for one host (proxy.ts, curl's rules), decided again for every host a redirect leads to. */
function routeFor(target: URL, options: HttpOptions): ProxyChoice {
  const route = chooseProxy(target, options.env);
  const { proxy, variable } = route;
  if (proxy) {
    for (const secret of proxySecrets(proxy)) options.secret?.(secret);
    options.log(
      `through the proxy ${options.redact(showProxy(proxy))} from ${variable} to ${options.redact(target.host)}`,
    );
  } else if (variable) {
    options.log(`directly to ${options.redact(target.host)}, not through the proxy from ${variable}: ${route.bypass}`);
  }
  return route;
}
