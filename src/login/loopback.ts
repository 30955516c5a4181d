// The loopback listener of a browser login (RFC 8252 §7.3): a plain HTTP server on 127.0.0.1 (and
// ::1 where free) that hands each request to the grant's pure handler and writes back its small
// static page. main.ts loads it for a browser login only; the grant decides every answer.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Loopback, LoopbackAnswer, LoopbackRequest } from './grants/index.js';

// node:http as the module, not by an ES import (see request/http.ts: an ES import loads undici).
const http = process.getBuiltinModule('node:http');

/** Every answer: no script, nothing remote, not kept, not framed, no referrer, and the connection closed. */
const HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  Connection: 'close',
};

/**
 * Listens on `port` of 127.0.0.1 and of ::1 where the machine has it. Taken on either (EADDRINUSE,
 * thrown: the caller tries the next port): a browser that reaches localhost at ::1 must not hand
 * the code to another program that holds the port there.
 */
export async function listenLoopback(
  port: number,
  handle: (request: LoopbackRequest) => LoopbackAnswer,
): Promise<Loopback> {
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    // Only the request line and two headers are read: a callback has no body.
    const fetchMode = req.headers['sec-fetch-mode'];
    const answer = handle({
      method: req.method ?? '',
      target: req.url ?? '',
      host: req.headers.host,
      ...(typeof fetchMode === 'string' ? { fetchMode } : {}),
    });
    res.writeHead(answer.status, { ...HEADERS, 'Content-Length': Buffer.byteLength(answer.body) });
    res.end(answer.body);
  };
  const servers: Server[] = [];
  servers.push(await listen(http.createServer(serve), port, '127.0.0.1'));
  try {
    servers.push(await listen(http.createServer(serve), port, '::1'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      servers[0]!.close();
      throw error;
    }
    // No IPv6 loopback on this machine: 127.0.0.1 serves.
  }
  return {
    close: () =>
      Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              // Every connection, not only the idle ones: one that sent a byte and then nothing (any
              // local program can open it) is neither, and would hold close() and the login for ever.
              // The callback's page was written before the login goes on, so nothing is cut short.
              server.closeAllConnections();
            }),
        ),
      ).then(() => undefined),
  };
}

function listen(server: Server, port: number, host: string): Promise<Server> {
  // A browser keeps a connection open for a while; the login is over when its answer is written.
  server.keepAliveTimeout = 1;
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
