// Bodies that are too large, never end, arrive a byte at a time, stop half way or are compressed:
// maxResponseBytes is enforced while the body streams in, and the deadlines bound everything else.
import type { ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:tls';
import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { CREDENTIAL, SECRET, apis, call, config, expectFailure, expectSuccess, pki } from './support.js';

const startApi = apis();

/** A JSON token answer padded to exactly `size` bytes. */
function bodyOf(size: number): string {
  const shell = JSON.stringify({ access_token: SECRET.token, padding: '' });
  return JSON.stringify({ access_token: SECRET.token, padding: 'p'.repeat(size - shell.length) });
}

/** Writes 16 KiB chunks for as long as the client reads them; counts what the socket accepted. */
function flood(res: ServerResponse, counter: { bytes: number }): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"access_token":"');
  const chunk = Buffer.alloc(16 * 1024, 0x61);
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) counter.bytes += chunk.length;
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

/** Headers, the start of a body, then one byte every 100 ms until the client goes. */
function drip(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"access_token":"');
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('x')), 100);
  res.on('close', () => clearInterval(timer));
}

describe.concurrent('maxResponseBytes', () => {
  it('cuts off a server that streams forever as soon as the limit is passed, long before the deadline', async () => {
    const sent = { bytes: 0 };
    const api = await startApi((_req, res) => flood(res, sent));
    const result = await call(config(`${api.url}/token`, { maxResponseBytes: 65_536 }), ['--timeout', '20s']);
    // The limit ended it, not the deadline (which says so instead).
    expectFailure(result, 4, 'the token API answered with more than maxResponseBytes (65536 bytes)');
    // Socket buffers take some, but the stream is not drained: a buffering client would still be reading.
    expect(sent.bytes).toBeLessThan(64 * 1024 * 1024);
    expect(api.requests).toHaveLength(1);
  });

  it.each([
    { how: 'with a content-length', chunked: false },
    { how: 'streamed in chunks without a length', chunked: true },
  ])('accepts a body of exactly maxResponseBytes and refuses one byte more, $how', async ({ chunked }) => {
    const api = await startApi((req, res) => {
      const body = bodyOf(Number(req.query.get('size')));
      res.writeHead(200, {
        'content-type': 'application/json',
        ...(chunked ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
      });
      if (chunked) {
        for (let i = 0; i < body.length; i += 1000) res.write(body.slice(i, i + 1000));
        res.end();
      } else res.end(body);
    });
    const limit = 20_000;
    const [exact, over] = await Promise.all([
      call(config(`${api.url}/token?size=${limit}`, { maxResponseBytes: limit })),
      call(config(`${api.url}/token?size=${limit + 1}`, { maxResponseBytes: limit })),
    ]);
    expectSuccess(exact);
    expectFailure(over, 4, `the token API answered with more than maxResponseBytes (${limit} bytes)`);
    // A too-large answer is not retried.
    expect(api.requests).toHaveLength(2);
  });

  it('refuses a content-length above the limit without waiting for the body', async () => {
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10000000' });
      res.write('{');
    });
    // The body never comes: waiting for it would end at the deadline, and say so.
    const result = await call(config(`${api.url}/token`), ['--timeout', '20s']);
    expectFailure(result, 4, 'the token API answered with more than maxResponseBytes (1048576 bytes)');
  });

  it('does not inflate a gzip body: a decompression bomb is read as the few bytes it is', async () => {
    // 200 MiB of zeros in about 200 KiB: inflated, it would pass any limit and any memory.
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024));
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const result = await call(config(`${api.url}/token`));
    expectFailure(result, 4, 'the token API answered with something that is not JSON (application/json, 203860 bytes)');
    expect(api.requests[0]!.headers['accept-encoding']).toBeUndefined();
  });
});

describe.concurrent('slow and broken bodies', () => {
  it('ends a body that drips in at the whole-call deadline, saying the answer was incomplete', async () => {
    const api = await startApi((_req, res) => drip(res));
    const started = Date.now();
    const result = await call(config(`${api.url}/token`), ['--timeout', '1500ms']);
    // The whole-call deadline ended it (the message names it), not the 10 s per-attempt timeout.
    expectFailure(
      result,
      3,
      `no complete answer from ${api.url}/token within --timeout 1500ms; 200 and part of the body had arrived`,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
  });

  it('ends a body that drips in at the per-attempt timeout, and retries it', async () => {
    const api = await startApi((_req, res) => drip(res));
    const result = await call(config(`${api.url}/token`, { timeout: '600ms', retry: { limit: 1 } }), [
      '--timeout',
      '20s',
    ]);
    expectFailure(
      result,
      3,
      `no complete answer from ${api.url}/token within the per-attempt timeout 600ms (the config's timeout) after 2 attempts; 200 and part of the body had arrived`,
    );
    expect(api.requests).toHaveLength(2);
  });

  it('reports a connection closed half way through the body as a reset, not as an answer', async () => {
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"access_token":"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const result = await call(config(`${api.url}/token`, { retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      `connection to ${api.url}/token reset by the server (ECONNRESET); 200 and part of the body had arrived`,
    );
  });

  it('succeeds on a body that arrives slowly but within the limits', async () => {
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({ access_token: SECRET.token });
      let i = 0;
      const timer = setInterval(() => {
        res.write(body.slice(i, i + 10));
        i += 10;
        if (i >= body.length) {
          clearInterval(timer);
          res.end();
        }
      }, 20);
    });
    expectSuccess(await call(config(`${api.url}/token`)), CREDENTIAL);
  });

  it('accepts a --timeout and a per-attempt timeout longer than Node timers can hold (24.8 days)', async () => {
    const api = await startApi((_req, res) => void res.end(JSON.stringify({ access_token: SECRET.token })));
    expectSuccess(
      await call(config(`${api.url}/token`, { timeout: '9999999h' }), ['--timeout', '99999999999999999999h']),
      CREDENTIAL,
    );
  });

  it('names headers that overflow what Node reads', async () => {
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'p'.repeat(100_000) });
      res.end('{}');
    });
    expectFailure(
      await call(config(`${api.url}/token`, { retry: { limit: 0 } })),
      3,
      `the token API at ${api.url}/token answered with headers larger than 16 KiB (HPE_HEADER_OVERFLOW)`,
    );
  });

  it('says when the server does not speak HTTP at all', async () => {
    const server = createTlsServer({ cert: pki.server.cert, key: pki.server.key }, (socket) => {
      socket.on('data', () => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const result = await call(config(`https://localhost:${port}/token`, { retry: { limit: 0 } }));
      expectFailure(
        result,
        3,
        `the token API at https://localhost:${port}/token answered with something that is not HTTP/1.1 (HPE_INVALID_CONSTANT)`,
      );
    } finally {
      server.close();
    }
  });
});
