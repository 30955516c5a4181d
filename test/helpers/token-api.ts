// A real HTTPS token API on loopback, with the test PKI. Tests give it a handler and read back
// every request it received (method, path, headers, body).
import { createServer } from 'node:https';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makePki, type KeyPair } from './pki.js';

export interface ReceivedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** CN of the client certificate, when one was presented. */
  clientCN?: string;
}

export type Handler = (request: ReceivedRequest, response: ServerResponse) => void | Promise<void>;

export interface TokenApi {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  handle: (handler: Handler) => void;
  close: () => Promise<void>;
}

export interface TokenApiOptions {
  /** Server certificate; the test CA's localhost certificate by default. */
  serverCert?: KeyPair;
  /** Require a client certificate signed by the client CA. */
  mutualTls?: boolean;
  /** Plain http:// instead of https://. */
  insecure?: boolean;
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(text);
}

export async function startTokenApi(handler: Handler, options: TokenApiOptions = {}): Promise<TokenApi> {
  const pki = makePki();
  const requests: ReceivedRequest[] = [];
  let current = handler;
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://localhost');
      const socket = req.socket as { getPeerCertificate?: () => { subject?: { CN?: string } } };
      const peer = socket.getPeerCertificate?.();
      const received: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        ...(peer?.subject?.CN ? { clientCN: peer.subject.CN } : {}),
      };
      requests.push(received);
      Promise.resolve(current(received, res)).catch((error: unknown) => {
        res.writeHead(500);
        res.end(String(error));
      });
    });
  };
  const cert = options.serverCert ?? pki.server;
  const server = options.insecure
    ? createHttpServer(listener)
    : createServer(
        {
          cert: cert.cert,
          key: cert.key,
          ...(options.mutualTls ? { requestCert: true, rejectUnauthorized: true, ca: pki.clientCa.cert } : {}),
        },
        listener,
      );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${options.insecure ? 'http' : 'https'}://localhost:${port}`,
    port,
    requests,
    handle: (next) => {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** A JWT-shaped token (unsigned) whose exp is `expSeconds`. */
export function fakeJwt(expSeconds: number, claims: Record<string, unknown> = {}): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'test', exp: expSeconds, ...claims })}.c2lnbmF0dXJl`;
}
