// A real HTTP CONNECT proxy on loopback: Debian's tinyproxy, in the foreground (-d) on a free port
// with a generated config, optionally demanding Basic credentials. Tests read its log to see the
// CONNECT lines it served. .ci/run installs tinyproxy.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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
  /** Demand these Basic credentials (tinyproxy answers 407 otherwise). */
  auth?: { user: string; password: string };
}

function tinyproxyPath(): string {
  const found = spawnSync('sh', ['-c', 'command -v tinyproxy'], { encoding: 'utf8' }).stdout.trim();
  if (found === '') {
    throw new Error('tinyproxy is not installed: the proxy tests need the real proxy (apt-get install -y tinyproxy; .ci/run does it)');
  }
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function startOnce(binary: string, options: ProxyOptions): Promise<Proxy | undefined> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-proxy-'));
  const config = join(dir, 'tinyproxy.conf');
  const logFile = join(dir, 'tinyproxy.log');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Timeout 30',
      'MaxClients 100',
      'LogLevel Info',
      `LogFile "${logFile}"`,
      // No ConnectPort line: CONNECT to any port (the token APIs listen on random ones).
      ...(options.auth ? [`BasicAuth ${options.auth.user} ${options.auth.password}`] : []),
    ].join('\n') + '\n',
  );
  // The log goes to a file that the tests read synchronously: tinyproxy writes each line with
  // write(2) as it happens, so a CONNECT is on disk before the tunnel it opens carries a byte. (Read
  // from a pipe instead, the lines raced the in-process CLI's own events.)
  const child: ChildProcess = spawn(binary, ['-d', '-c', config], { stdio: ['ignore', 'ignore', 'ignore'] });
  const log = () => {
    try {
      return readFileSync(logFile, 'utf8');
    } catch {
      return '';
    }
  };
  let exited = false;
  child.on('exit', () => (exited = true));
  const started = Date.now();
  while (!log().includes('Accepting connections') && !exited && Date.now() - started < 5000) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!log().includes('Accepting connections')) {
    child.kill('SIGKILL');
    return undefined;
  }
  const credentials = options.auth ? `${encodeURIComponent(options.auth.user)}:${encodeURIComponent(options.auth.password)}@` : '';
  return {
    url: `http://${credentials}127.0.0.1:${port}`,
    port,
    requests: () => [...log().matchAll(/Request \(file descriptor \d+\): (\S+) (\S+) HTTP/g)].map((m) => `${m[1]} ${m[2]}`),
    connects: () => [...log().matchAll(/Request \(file descriptor \d+\): CONNECT (\S+) HTTP/g)].map((m) => m[1]!),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Starts tinyproxy; a port taken between choosing and binding it is retried on another. */
export async function startProxy(options: ProxyOptions = {}): Promise<Proxy> {
  const binary = tinyproxyPath();
  for (let attempt = 0; attempt < 3; attempt++) {
    const proxy = await startOnce(binary, options);
    if (proxy) return proxy;
  }
  throw new Error('tinyproxy did not start listening within 5 s, three times');
}
