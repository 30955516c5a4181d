// One HTTP request and its whole answer on node:http(s): the agent (through the proxy chosen for the
// host, with the request's TLS settings), the per-attempt timeout and the whole-call deadline,
// the answer read up to maxResponseBytes. http.ts makes the attempts, the redirects and the retries.
import type { AgentOptions, ClientRequest, IncomingHttpHeaders, IncomingMessage } from 'node:http';
import https from 'node:https';
import type { SecureContext } from 'node:tls';
import { ResponseError } from '../errors.js';
import { Failure } from './http-errors.js';
import type { ProxyChoice } from './proxy.js';
import type { TlsMaterial } from './build.js';
import { watchExchange, type HttpObservation } from './observe-http.js';

// node:http as the module, not by an ES import: the import builds a namespace of all its exports,
// and reading them loads Node's bundled undici (fetch, web streams, WebSocket) with http2, zlib,
// worker_threads and perf_hooks, ~110 modules that a request never uses (1.5 × the instructions of
// `node -e 0`: docs/performance.md). The single binary's CommonJS bundle builds no namespace.
const http = process.getBuiltinModule('node:http');

// Node's timers hold at most 2^31-1 ms (24.8 days); a longer --timeout or timeout is that long.
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Answer {
  status: number;
  statusMessage: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What an exchange reads of http.ts's HttpOptions (the fields are documented there). */
interface ExchangeOptions {
  timeoutMs: number;
  maxResponseBytes: number;
  deadline: number;
  now: () => number;
  observe?: (seen: HttpObservation) => void;
  signal?: AbortSignal;
}

export interface ExchangeContext {
  secureContext: SecureContext;
  tls: TlsMaterial;
  route: ProxyChoice;
  /** When the attempt started: the per-attempt timeout runs from there. */
  started: number;
  options: ExchangeOptions;
}

/** One HTTP request and its whole answer, read up to maxResponseBytes while it streams in. */
export function exchange(
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  context: ExchangeContext,
): Promise<Answer> {
  const { options, tls, route } = context;
  // Node >= 24.5 tunnels through CONNECT when its Agent is given the one proxy chosen above.
  const proxyEnv = route.proxy
    ? { [target.protocol === 'http:' ? 'HTTP_PROXY' : 'HTTPS_PROXY']: route.proxy.href }
    : undefined;
  const agent =
    target.protocol === 'http:'
      ? new http.Agent({ keepAlive: false, ...(proxyEnv ? { proxyEnv } : {}) } as AgentOptions)
      : new https.Agent({
          keepAlive: false,
          secureContext: context.secureContext,
          rejectUnauthorized: !tls.insecureSkipVerify,
          ...(tls.serverName !== undefined ? { servername: tls.serverName } : {}),
          ...(proxyEnv ? { proxyEnv } : {}),
        } as https.AgentOptions);
  const attemptEnd = context.started + options.timeoutMs;
  const deadlineFirst = options.deadline <= attemptEnd;
  const wait = Math.min(Math.max((deadlineFirst ? options.deadline : attemptEnd) - options.now(), 1), MAX_TIMER_MS);

  const watcher = options.observe ? watchExchange(target, tls, options) : undefined;
  const exchanged = new Promise<Answer>((resolve, reject) => {
    let response: IncomingMessage | undefined;
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', aborted);
      outcome();
    };
    const aborted = () => failWith('ABORTED', 'the request was cancelled');
    const fail = (failure: Error) =>
      finish(() => {
        request?.destroy();
        agent.destroy();
        reject(failure);
      });
    const failWith = (code: string, message: string, cause?: unknown, proxyStatus?: number) =>
      fail(new Failure(code, message, target, response ? response.statusCode : undefined, cause, proxyStatus));

    const timer = setTimeout(
      () =>
        deadlineFirst
          ? failWith('DEADLINE', 'the whole-call deadline passed')
          : failWith('ETIMEDOUT', `timeout of ${options.timeoutMs} ms`),
      wait,
    );
    const requestFn = target.protocol === 'http:' ? http.request : https.request;
    let request: ClientRequest;
    try {
      request = requestFn(target, { method, headers, agent });
    } catch (error) {
      // request.ts checks header values; anything Node still refuses is reported, not thrown.
      clearTimeout(timer);
      agent.destroy();
      reject(
        new Failure(
          (error as NodeJS.ErrnoException).code ?? 'REQUEST',
          (error as Error).message,
          target,
          undefined,
          error,
        ),
      );
      return;
    }
    watcher?.attach(request);
    if (options.signal?.aborted) aborted();
    else options.signal?.addEventListener('abort', aborted, { once: true });
    request.on('error', (error: NodeJS.ErrnoException & { statusCode?: number }) =>
      failWith(error.code ?? 'REQUEST', error.message, error, error.statusCode),
    );
    request.on('response', (incoming) => {
      response = incoming;
      const declared = Number(incoming.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxResponseBytes) return fail(tooLarge(options));
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) fail(tooLarge(options));
        else chunks.push(chunk);
      });
      incoming.on('aborted', () => failWith('ECONNRESET', 'the answer broke off'));
      incoming.on('error', (error: NodeJS.ErrnoException) =>
        failWith(error.code ?? 'ECONNRESET', error.message, error),
      );
      incoming.on('end', () =>
        finish(() => {
          agent.destroy();
          resolve({
            status: incoming.statusCode ?? 0,
            statusMessage: incoming.statusMessage ?? '',
            headers: incoming.headers,
            body: Buffer.concat(chunks),
          });
        }),
      );
    });
    request.end(body);
  });
  return watcher ? watcher.follow(exchanged) : exchanged;
}

function tooLarge(options: ExchangeOptions): ResponseError {
  return new ResponseError(
    'RESPONSE_TOO_LARGE',
    `the token API answered with more than maxResponseBytes (${options.maxResponseBytes} bytes)`,
  );
}
