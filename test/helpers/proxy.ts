// A real HTTP proxy on loopback: the npm package `proxy` (a CONNECT-capable forward proxy, the one
// the proxy-agent family tests against), optionally demanding Basic credentials with a 407 as
// tinyproxy or Squid would. It runs in the test process; every request line is recorded when it
// arrives, before the proxy opens the tunnel, so a test sees it before the CLI gets an answer.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxy } from 'proxy';

export interface Proxy {
  /** http://127.0.0.1:<port>, with the credentials when the proxy demands them. */
  url: string;
  port: number;
  /** Every request line the proxy received, `METHOD target`, in order. */
  requests: () => string[];
  /** The `host:port` of every CONNECT the proxy was asked for, in order. */
  connects: () => string[];
  close: () => Promise<void>;
}

export interface ProxyOptions {
  /** Demand these Basic credentials (the proxy answers 407 otherwise). */
  auth?: { user: string; password: string };
}

export async function startProxy(options: ProxyOptions = {}): Promise<Proxy> {
  const lines: string[] = [];
  const server = createServer();
  // Registered before createProxy adds its own listeners: ours run first.
  server.on('request', (req: IncomingMessage) => lines.push(`${req.method} ${req.url}`));
  server.on('connect', (req: IncomingMessage) => lines.push(`CONNECT ${req.url}`));
  const proxy = createProxy(server);
  const { auth } = options;
  if (auth) {
    const expected = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
    proxy.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@` : '';
  return {
    url: `http://${credentials}127.0.0.1:${port}`,
    port,
    requests: () => [...lines],
    connects: () => lines.filter((line) => line.startsWith('CONNECT ')).map((line) => line.slice('CONNECT '.length)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
