// The --verbose trace of the network part: the redacted request once, then every attempt with what
// failed, how long it took and when the next one starts (or why none does), the proxy and the
// redirects, and the answer. (test/cli/commands.test.ts checks the request block and the
// stack trace; this file checks the attempts.)
import { createServer } from 'node:https';
import { describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import {
  ALL_SECRETS,
  CREDENTIAL,
  PREFIX,
  SECRET,
  SECRET_ENV,
  TOKEN_BODY,
  answer,
  apis,
  call,
  closedPort,
  config,
  pki,
  sequence,
  traceLines,
} from './support.js';

const startApi = apis();

describe.concurrent('--verbose traces every attempt', () => {
  it('shows the failure, the duration and the backoff of a retried attempt, then the answer', async () => {
    const api = await startApi(sequence([503, 'down']));
    const result = await call(config(`${api.url}/token`), ['--verbose']);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: CREDENTIAL });
    const lines = traceLines(result);
    expect(lines.slice(2)).toEqual([
      'attempt 1 failed (HTTP 503); retrying',
      expect.stringMatching(/^attempt 1 took \d+ ms; attempt 2 in (2[5-9]\d|[34]\d\d|500) ms \(backoff with jitter\)$/),
      expect.stringMatching(new RegExp(`^answer 200 after \\d+ ms, ${TOKEN_BODY.length} bytes$`)),
      'credential extracted, no expiry known',
    ]);
    expect(leaks(result, ALL_SECRETS, [SECRET.token])).toEqual([]);
  });

  it('names the Retry-After it waits for', async () => {
    const api = await startApi(sequence([429, 'slow down', { 'retry-after': '1' }]));
    const result = await call(config(`${api.url}/token`), ['--verbose']);
    expect(result.code).toBe(0);
    expect(traceLines(result).filter((l) => l.startsWith('attempt '))).toEqual([
      'attempt 1 failed (HTTP 429); retrying',
      expect.stringMatching(/^attempt 1 took \d+ ms; attempt 2 in 1000 ms \(Retry-After 1\)$/),
    ]);
  });

  it('says why it does not retry when no attempt could start before the deadline', async () => {
    // The 503 comes 200 ms before the 2 s deadline: too late for even the shortest backoff (250 ms).
    let started = 0;
    const api = await startApi(
      (_req, res) => void setTimeout(() => answer(res, 503, 'down'), started + 1800 - Date.now()),
    );
    started = Date.now();
    const result = await call(config(`${api.url}/token`), ['--verbose', '--timeout', '2s']);
    expect(result.code).toBe(3);
    expect(traceLines(result)).toContainEqual(
      expect.stringMatching(
        /^attempt 1 failed \(HTTP 503\) after \d+ ms; not retrying: another attempt could not start before the whole-call deadline \(--timeout\)$/,
      ),
    );
    expect(api.requests).toHaveLength(1);
  });

  it('traces connection failures with the same numbering as error answers', async () => {
    const port = await closedPort();
    // Nothing listens for the first attempt; as soon as it has failed, a server appears that answers 503, then the token.
    let calls = 0;
    const server = createServer({ cert: pki.server.cert, key: pki.server.key }, (_req, res) =>
      ++calls === 1 ? answer(res, 503, 'warming up') : answer(res, 200, TOKEN_BODY),
    );
    const result = await runInProcess(
      ['--verbose', '--config-inline', config(`https://localhost:${port}/token`, { retry: { limit: 3 } })],
      {
        env: SECRET_ENV,
        onStderr: (text) => {
          if (text.includes('attempt 1 failed (ECONNREFUSED)')) server.listen(port, '127.0.0.1');
        },
      },
    );
    server.closeAllConnections();
    server.close();
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: CREDENTIAL });
    expect(traceLines(result).filter((l) => l.startsWith('attempt '))).toEqual([
      'attempt 1 failed (ECONNREFUSED); retrying',
      expect.stringMatching(/^attempt 1 took \d+ ms; attempt 2 in \d+ ms \(backoff with jitter\)$/),
      'attempt 2 failed (HTTP 503); retrying',
      expect.stringMatching(/^attempt 2 took \d+ ms; attempt 3 in \d+ ms \(backoff with jitter\)$/),
    ]);
  });

  it('keeps every line prefixed or indented and every secret out, on failure as on success', async () => {
    const api = await startApi((req, res) => answer(res, 500, `echo ${req.headers['authorization']} ${req.body}`));
    const result = await call(config(`${api.url}/token?key={{ urlencode(env.API_KEY) }}`, { retry: { limit: 1 } }), [
      '--verbose',
    ]);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 3, stdout: '' });
    for (const line of result.stderr.trimEnd().split('\n')) expect(line).toMatch(/^(webapi-credential: | {2})/);
    expect(leaks(result, ALL_SECRETS)).toEqual([]);
    expect(result.stderr).toContain(
      `${PREFIX}answer 500 body (excerpt): echo Bearer [REDACTED] client_secret=[REDACTED]\n`,
    );
    expect(result.stderr).toContain(
      `${PREFIX}the token API answered 500 Internal Server Error after 2 attempts: application/json, 70 bytes (--verbose shows an excerpt)\n`,
    );
    expect(traceLines(result)[1]).toBe('request:');
    expect(result.stderr).toContain(`\n  POST ${api.url}/token?key=[REDACTED]\n`);
  });
});
