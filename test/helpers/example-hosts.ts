// Lets the examples' manifests run unmodified: a server certificate of the test CA that names every
// host the examples use, and an HTTP CONNECT proxy that routes those hosts to local stand-ins. The
// plugin reaches them the way it reaches a real API behind a corporate proxy: HTTPS_PROXY in its
// environment, TLS end to end, the CA trusted through NODE_EXTRA_CA_CERTS (the examples set no
// tls.caFile, as for a public API).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki, type KeyPair } from './pki.js';

const EXAMPLE_HOSTS = [
  'auth.upbound.io',
  'keycloak.example.com',
  'login.microsoftonline.com',
  'sts.example.com',
  'vault.example.com',
  'k8s.example.com',
  'rancher.example.com',
  'oauth2.googleapis.com',
  'sts.googleapis.com',
  'iamcredentials.googleapis.com',
];

let cached: KeyPair | undefined;

/** A server certificate for localhost and every host of EXAMPLE_HOSTS, signed by the test CA. */
export function exampleHostsCert(): KeyPair {
  if (cached) return cached;
  const pki = makePki();
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-hosts-'));
  const san = ['DNS:localhost', 'IP:127.0.0.1', ...EXAMPLE_HOSTS.map((h) => `DNS:${h}`)].join(',');
  writeFileSync(
    join(dir, 'hosts.ext'),
    `subjectAltName=${san}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  const openssl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl([
    'req',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'hosts.key',
    '-out',
    'hosts.csr',
    '-subj',
    '/CN=example hosts',
  ]);
  // -set_serial: no serial file next to the shared CA.
  openssl([
    'x509',
    '-req',
    '-in',
    'hosts.csr',
    '-CA',
    pki.ca.certFile,
    '-CAkey',
    pki.ca.keyFile,
    '-set_serial',
    `0x${randomBytes(8).toString('hex')}`,
    '-out',
    'hosts.crt',
    '-extfile',
    'hosts.ext',
    '-days',
    '2',
  ]);
  const certFile = join(dir, 'hosts.crt');
  const keyFile = join(dir, 'hosts.key');
  cached = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8'), certFile, keyFile };
  return cached;
}

export interface ConnectProxy {
  url: string;
  /** Every CONNECT target asked for, as host:port, in order. */
  connects: string[];
  close: () => Promise<void>;
}

/** An HTTP CONNECT proxy that tunnels `host` (any port) to 127.0.0.1:routes[host]; other hosts get 502. */
export async function startConnectProxy(routes: Record<string, number>): Promise<ConnectProxy> {
  const connects: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      client.off('data', onData);
      const target = /^CONNECT (\S+) HTTP\/1\.[01]\r\n/.exec(head)?.[1] ?? '';
      connects.push(target);
      const port = routes[target.replace(/:\d+$/, '')];
      if (port === undefined) {
        client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      const upstream = net.connect(port, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = Buffer.from(head.slice(end + 4), 'latin1');
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('close', () => sockets.delete(upstream));
      upstream.on('error', () => client.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connects,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
