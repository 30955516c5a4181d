// The device prompt's note on another host names the device authorization endpoint's host. When a
// secret decided a letter of that host (`https://127.0.0.{{ env.S < t ? '1' : '2' }}`), the redactor
// cannot find the letter in the text (it looks for nothing under 4 bytes): the host must be the one
// shown ([REDACTED] where a secret decided it), and whether the note is said must not depend on the
// host the secret chose either. End to end in process, a person said to be at the terminal, against
// one real device authorization endpoint listening on 127.0.0.1 and 127.0.0.2 on the same port.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execInfoEnv } from '../helpers/device-config.js';
import { leaks, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makeLeaf, makePki, pair } from '../helpers/pki.js';

const SECRET = 'hunter2-decides-31337';
const pki = makePki();
const servers: Server[] = [];
let port = 0;
/** The host of the page the device endpoint names. */
let pageHost = 'localhost';
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** A server certificate of the test CA for both loopback addresses. */
function twoLoopbacks(): { cert: string; key: string } {
  const san = 'DNS:localhost,IP:127.0.0.1,IP:127.0.0.2';
  makeLeaf(pki.dir, 'two-loopbacks', 'ca', '/CN=localhost', san, 'serverAuth', ['-days', '2']);
  return pair(pki.dir, 'two-loopbacks');
}

/** The device endpoint names a page on `pageHost`; the token endpoint denies the login at its first poll. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    const body =
      request.url === '/device'
        ? {
            device_code: 'device-code-4242-Zq',
            user_code: 'ABCD-EFGH',
            verification_uri: `https://${pageHost}:${port}/verify`,
            expires_in: 60,
            interval: 1,
          }
        : { error: 'access_denied' };
    response.writeHead(request.url === '/device' ? 200 : 400, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
}

function listen(server: Server, host: string, at: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(at, host, () => resolve());
  });
}

beforeAll(async () => {
  const tls = twoLoopbacks();
  // The same port on both addresses: only the letter the secret chose differs in the URL.
  for (let attempt = 0; attempt < 10 && servers.length < 2; attempt++) {
    const first = createServer(tls, answer);
    await listen(first, '127.0.0.1', 0);
    port = (first.address() as AddressInfo).port;
    const second = createServer(tls, answer);
    try {
      await listen(second, '127.0.0.2', port);
      servers.push(first, second);
    } catch {
      first.close();
    }
  }
  expect(servers).toHaveLength(2);
});
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function bothWays(deviceHost: string): Promise<CliResult[]> {
  const config = JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `https://127.0.0.1:${port}/token`,
      form: { client_id: 'kubectl' },
      tls: { caFile: pki.ca.certFile },
      retry: { limit: 0 },
      tokenPath: '$.access_token',
      login: { deviceAuthorization: { url: `https://${deviceHost}:${port}/device`, form: { scope: 'openid' } } },
    },
  });
  const results: CliResult[] = [];
  for (const t of ['a', 'z'])
    results.push(
      await runInProcess(['get-token', '--config-inline', config, '--set', `t=${t}`], {
        env: { SECRET, ...execInfoEnv(true) },
        now: () => NOW,
        // The server answers the first poll: its second of interval is not waited.
        loginSleep: () => Promise.resolve(),
      }),
    );
  for (const result of results) expect(leaks(result, [SECRET])).toEqual([]);
  return results;
}

describe("the device prompt's note names the endpoint's host as shown", () => {
  it('a letter of the host a secret decided reads [REDACTED], the same whichever the secret chose', async () => {
    const [first, second] = await bothWays(`127.0.0.{{ env.SECRET < vars.t ? '1' : '2' }}`);
    expect(first!.code, first!.stderr).toBe(2);
    const note = first!.stderr.split('\n').find((line) => line.includes('note: '));
    expect(note).toBeDefined();
    expect(note).not.toMatch(/127\.0\.0\.[12]\b/);
    expect(second).toEqual(first);
  }, 20_000);

  it("whether the note is said does not tell whether the secret chose the page's host", async () => {
    pageHost = '127.0.0.1';
    try {
      const [first, second] = await bothWays(`127.0.0.{{ env.SECRET < vars.t ? '1' : '2' }}`);
      expect(first!.code, first!.stderr).toBe(2);
      expect(second).toEqual(first);
    } finally {
      pageHost = 'localhost';
    }
  }, 20_000);

  it('a host no secret decided is named as it is, and no note when the page is on it', async () => {
    const [other] = await bothWays('127.0.0.1');
    expect(other!.stderr).toContain(
      `note: that page is on localhost, not on 127.0.0.1 (the device authorization endpoint's host): open it only if localhost is your identity provider's`,
    );
    const [same] = await bothWays('localhost');
    expect(same!.stderr).not.toContain('note: ');
  }, 20_000);
});
