// The retry policy as a real token API counts and times the attempts: which answers are retried,
// how long the client waits (backoff with jitter, Retry-After in seconds or as a date, capped), and
// that no retry starts past the whole-call deadline. A wait is measured only from below (it happened);
// how long the client meant to wait is read from its --verbose trace (`attempt 2 in 312 ms`), which a
// busy machine does not change.
import { describe, expect, it } from 'vitest';
import { STATUS_CODES } from 'node:http';
import type { CliResult } from '../helpers/cli.js';
import { answer, apis, call, config, expectFailure, expectSuccess, sequence, timed, traceLines } from './support.js';

const startApi = apis();

/** The waits the client planned before each retry (ms, computed, not measured), and why, from its --verbose trace. */
function plannedWaits(result: CliResult): Array<{ planned: number; reason: string }> {
  return traceLines(result).flatMap((line) => {
    const match = /^attempt \d+ took \d+ ms; attempt \d+ in (\d+) ms \((.+)\)$/.exec(line);
    return match ? [{ planned: Number(match[1]), reason: match[2]! }] : [];
  });
}

describe.concurrent('retries', () => {
  it.each([408, 429, 500, 502, 503, 504, 599])(
    'retries a %i answer and takes the token from the next one',
    async (status) => {
      const api = await startApi(sequence([status, 'try again']));
      expectSuccess(await call(config(`${api.url}/token`)));
      expect(api.requests).toHaveLength(2);
    },
  );

  it.each([400, 401, 403, 404, 405, 409, 410, 413, 422, 451])('does not retry a %i answer', async (status) => {
    const api = await startApi(sequence([status, 'no']));
    const result = await call(config(`${api.url}/token`));
    // A refusal names what the credentials were made of (the header's and the form's env values).
    const check = status === 401 || status === 403 ? '; check env.API_KEY and env.CLIENT_SECRET' : '';
    expectFailure(
      result,
      3,
      `the token API answered ${status}${STATUS_CODES[status] ? ` ${STATUS_CODES[status]}` : ''}: application/json, 2 bytes (--verbose shows an excerpt)${check}`,
    );
    expect(api.requests).toHaveLength(1);
  });

  it('makes three attempts by default (retry.limit 2), waiting longer before the second retry than the first', async () => {
    const { handler, gaps } = timed((_req, res) => answer(res, 503, 'down'));
    const api = await startApi(handler);
    const result = await call(config(`${api.url}/token`), ['--verbose']);
    expect(result.code).toBe(3);
    expect(traceLines(result).at(-1)).toBe(
      'the token API answered 503 Service Unavailable after 3 attempts: application/json, 4 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(3);
    // Equal jitter: 250-500 ms, then 500-1000 ms, as planned and as waited.
    const [first, second] = plannedWaits(result);
    expect(first!.planned).toBeGreaterThanOrEqual(250);
    expect(first!.planned).toBeLessThanOrEqual(500);
    expect(second!.planned).toBeGreaterThanOrEqual(500);
    expect(second!.planned).toBeLessThanOrEqual(1000);
    expect(gaps()[0]).toBeGreaterThanOrEqual(first!.planned - 10);
    expect(gaps()[1]).toBeGreaterThanOrEqual(second!.planned - 10);
  });

  it('makes one attempt only with retry.limit 0', async () => {
    const api = await startApi((_req, res) => answer(res, 503, 'down'));
    expectFailure(
      await call(config(`${api.url}/token`, { retry: { limit: 0 } })),
      3,
      'the token API answered 503 Service Unavailable: application/json, 4 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('waits until the HTTP date a Retry-After names', async () => {
    const { handler, gaps } = timed(
      sequence([429, 'slow down', { 'retry-after': new Date(Date.now() + 2000).toUTCString() }]),
    );
    const api = await startApi(handler);
    const result = await call(config(`${api.url}/token`), ['--verbose']);
    expect(result.code).toBe(0);
    // The date has whole seconds: the wait is at most two seconds (less the time the answer took to come).
    const [wait] = plannedWaits(result);
    expect(wait!.reason).toMatch(/^Retry-After /);
    expect(wait!.planned).toBeLessThanOrEqual(2000);
    expect(gaps()[0]).toBeGreaterThanOrEqual(Math.min(900, wait!.planned - 10));
  });

  it('honours Retry-After on a 503 too', async () => {
    const { handler, gaps } = timed(sequence([503, 'maintenance', { 'retry-after': '1' }]));
    const api = await startApi(handler);
    expectSuccess(await call(config(`${api.url}/token`)));
    expect(gaps()[0]).toBeGreaterThanOrEqual(950);
  });

  it('falls back to backoff when Retry-After is neither seconds nor a date', async () => {
    const { handler, gaps } = timed(sequence([429, 'slow down', { 'retry-after': 'soon' }]));
    const api = await startApi(handler);
    const result = await call(config(`${api.url}/token`), ['--verbose']);
    expect(result.code).toBe(0);
    const [wait] = plannedWaits(result);
    expect(wait!.reason).toBe('backoff with jitter');
    expect(wait!.planned).toBeGreaterThanOrEqual(250);
    expect(wait!.planned).toBeLessThanOrEqual(500);
    expect(gaps()[0]).toBeGreaterThanOrEqual(240);
  });

  it('does not wait for a Retry-After above the 60 s cap, even when the deadline is further away', async () => {
    const api = await startApi(sequence([429, 'slow down', { 'retry-after': '61' }]));
    const result = await call(config(`${api.url}/token`), ['--timeout', '5m', '--verbose']);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 3, stdout: '' });
    // The trace ends with the message: an ordinary failure has no stack, even under --verbose.
    expect(traceLines(result).slice(-3)).toEqual([
      expect.stringMatching(
        /^attempt 1 failed \(HTTP 429\) after \d+ ms; not retrying: Retry-After 61 asks for more than 60 s$/,
      ),
      'answer 429 body (excerpt): slow down',
      'the token API answered 429 Too Many Requests: application/json, 9 bytes (--verbose shows an excerpt)',
    ]);
    expect(api.requests).toHaveLength(1);
  });

  it('stops retrying before the whole-call deadline and reports the last answer, not a timeout', async () => {
    const api = await startApi((_req, res) => answer(res, 503, 'down'));
    const result = await call(config(`${api.url}/token`, { retry: { limit: 10 } }), ['--timeout', '6s']);
    // It stops on its own, before the 6 s deadline: past it, the message would be the deadline's. No
    // retry starts without room for an attempt as long as the last one, however busy the machine.
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 3, stdout: '' });
    const lines = result.stderr.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.pop()).toMatch(
      /^webapi-credential: the token API answered 503 Service Unavailable after \d+ attempts: application\/json, 4 bytes \(--verbose shows an excerpt\)$/,
    );
    // A wait of more than a second is said before it starts (kubectl seems hung otherwise).
    for (const line of lines)
      expect(line).toMatch(/^webapi-credential: warning: the token API failed \(503\); retrying in \d(\.\d)?s$/);
    // Attempts start at about 0, 0.25-0.5, 0.75-1.5, 1.75-3.5 and 3.75-7.5 s: at most five fit in 6 s
    // (fewer when the machine is busy enough to slow each one down; two unless start-up took 5 s).
    expect(result.stderr).toContain(`after ${api.requests.length} attempts`);
    expect(api.requests.length).toBeGreaterThanOrEqual(2);
    expect(api.requests.length).toBeLessThanOrEqual(5);
  });

  it('retries a connection the server resets before answering, then names the reset', async () => {
    const api = await startApi((_req, res) => void res.socket?.destroy());
    const result = await call(config(`${api.url}/token`));
    expectFailure(result, 3, `connection to ${api.url}/token reset by the server (ECONNRESET) after 3 attempts`);
    expect(api.requests).toHaveLength(3);
  });

  it('counts connection failures and error answers against the same retry.limit', async () => {
    let calls = 0;
    const api = await startApi((_req, res) => {
      calls++;
      if (calls === 1) res.socket?.destroy();
      else answer(res, 502, 'bad gateway');
    });
    const result = await call(config(`${api.url}/token`, { retry: { limit: 2 } }));
    expectFailure(
      result,
      3,
      'the token API answered 502 Bad Gateway after 3 attempts: application/json, 11 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(3);
  });
});
