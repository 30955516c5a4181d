// Exit 3: the request did not get a 2xx answer. Connection failures, statuses, timeouts, and the
// retry policy as the token API counts the attempts.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, type Handler, type ReceivedRequest } from '../helpers/token-api.js';
import {
  SECRET,
  SECRET_ENV,
  basic,
  closedPort,
  execCredential,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };

/** A config that sends every secret of the suite: in a header, a form field and a query value. */
const sendsSecrets = (url: string, extra: Record<string, unknown> = {}) =>
  basic(url, {
    tls,
    headers: { 'X-Api-Key': '{{ env.API_KEY }}' },
    form: { client_secret: '{{ env.FORM_SECRET }}', note: '{{ env.JSON_SECRET }}' },
    query: { key: '{{ env.FORM_SECRET }}' },
    ...extra,
  });

const run = (config: Record<string, unknown>, args: string[] = []) =>
  runInProcess([...args, '--config-inline', provider(config)], { env: SECRET_ENV });

/** Answers with the given statuses in turn, then with a token. */
function sequence(...answers: Array<[number, string, Record<string, string>?]>): Handler {
  let index = 0;
  return (_req, res) => {
    const answer = answers[index++];
    if (answer) json(res, answer[0], answer[1], answer[2]);
    else json(res, 200, { access_token: SECRET.token });
  };
}

/** Records when each request arrived. */
function timed(handler: Handler): { handler: Handler; times: number[] } {
  const times: number[] = [];
  return { times, handler: (req: ReceivedRequest, res) => (times.push(Date.now()), handler(req, res)) };
}

describe.concurrent('request failures exit 3', () => {
  it('fails on connection refused after retrying, naming the URL without its query', async () => {
    const port = await closedPort();
    const started = Date.now();
    const result = await run(sendsSecrets(`https://localhost:${port}/token?tenant=a`, { retry: { limit: 1 } }));
    expectFailure(result, 3, `connection to https://localhost:${port}/token refused after 2 attempts`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('fails on connection refused at once when retry.limit is 0', async () => {
    const port = await closedPort();
    const result = await run(sendsSecrets(`https://localhost:${port}/token`, { retry: { limit: 0 } }));
    expectFailure(result, 3, `connection to https://localhost:${port}/token refused`);
  });

  it('fails on a host that does not resolve', async () => {
    const result = await run(sendsSecrets('https://nonexistent.invalid/token', { retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      /^cannot resolve the host of https:\/\/nonexistent\.invalid\/token \((ENOTFOUND|EAI_AGAIN)\)$/,
    );
  });

  it('names the status and the error fields of a JSON body, not the rest of it', async () => {
    const api = await startApi((req, res) =>
      json(res, 401, { error: 'invalid_client', header: req.headers['x-api-key'], body: req.body, query: req.url }),
    );
    const result = await run(sendsSecrets(`${api.url}/token`));
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client"}; check env.API_KEY, env.FORM_SECRET and env.JSON_SECRET',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('redacts a secret the API echoes JSON-escaped in an error field and cuts a long message to 200 characters', async () => {
    const api = await startApi((req, res) =>
      json(res, 403, `{"message":${req.body},"padding":"x","error":"${'p'.repeat(400)}"}`),
    );
    const result = await run(basic(`${api.url}/token`, { tls, json: { secret: '{{ env.JSON_SECRET }}' } }));
    const redacted = `{"message":{"secret":"[REDACTED]"},"error":"${'p'.repeat(400)}"}`;
    expectFailure(result, 3, `the token API answered 403 Forbidden: ${redacted.slice(0, 200)}…; check env.JSON_SECRET`);
  });

  it('does not retry a 4xx answer', async () => {
    const api = await startApi(sequence([400, 'bad request']));
    const result = await run(sendsSecrets(`${api.url}/token`, { retry: { limit: 2 } }));
    expectFailure(
      result,
      3,
      'the token API answered 400 Bad Request: application/json, 11 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('retries a 5xx answer retry.limit times and then reports the attempts', async () => {
    const api = await startApi((_req, res) => json(res, 503, 'down for maintenance'));
    const result = await run(sendsSecrets(`${api.url}/token`, { retry: { limit: 2 } }));
    expectFailure(
      result,
      3,
      'the token API answered 503 Service Unavailable after 3 attempts: application/json, 20 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(3);
    // The same request every time, secrets included.
    expect(new Set(api.requests.map((r) => `${r.url} ${r.body}`)).size).toBe(1);
  });

  it('succeeds when a retried 5xx is followed by a token', async () => {
    const api = await startApi(sequence([502, 'bad gateway'], [500, 'oops']));
    const result = await run(sendsSecrets(`${api.url}/token`));
    expectSuccess(result, execCredential({ token: SECRET.token }));
    expect(api.requests).toHaveLength(3);
  });

  it('waits for Retry-After on a 429 before trying again', async () => {
    const { handler, times } = timed(sequence([429, 'slow down', { 'retry-after': '1' }]));
    const api = await startApi(handler);
    const result = await run(sendsSecrets(`${api.url}/token`));
    expectSuccess(result, execCredential({ token: SECRET.token }));
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
  });

  it('fails on a 429 whose Retry-After reaches past the whole-call deadline, without waiting', async () => {
    const api = await startApi(sequence([429, 'slow down', { 'retry-after': '30' }]));
    const result = await run(sendsSecrets(`${api.url}/token`), ['--timeout', '20s']);
    // Waiting would have run into the deadline and said so (no answer within --timeout 20s), past the test's own timeout.
    expectFailure(
      result,
      3,
      'the token API answered 429 Too Many Requests: application/json, 9 bytes (--verbose shows an excerpt)',
    );
    expect(api.requests).toHaveLength(1);
  });

  it('gives up on each attempt after the per-attempt timeout and retries it', async () => {
    const api = await startApi(() => {});
    const result = await run(sendsSecrets(`${api.url}/token`, { timeout: '500ms', retry: { limit: 1 } }));
    expectFailure(
      result,
      3,
      `no answer from ${api.url}/token within the per-attempt timeout 500ms (the config's timeout) after 2 attempts`,
    );
    expect(api.requests).toHaveLength(2);
  });

  it('ends by itself at the whole-call --timeout on a server that never answers', async () => {
    const api = await startApi(() => {});
    const started = Date.now();
    const result = await run(sendsSecrets(`${api.url}/token`), ['--timeout', '2s']);
    // The whole-call deadline ended it, not the 10 s per-attempt timeout, which would say so instead.
    expectFailure(result, 3, `no answer from ${api.url}/token within --timeout 2s`);
    expect(api.requests).toHaveLength(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });
});

describe('what a token API says about a refusal reaches a terminal', () => {
  it('as one line: its control characters, C0 and C1 (ESC, an 8-bit CSI, BEL), shown as escapes', async () => {
    const api = await startApi((_req, res) =>
      json(res, 401, { error: 'invalid_client', error_description: 'bad\u001b[2J\u009b2Jclient\u0007' }),
    );
    const result = await run(sendsSecrets(`${api.url}/token`, { retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"bad\\u001b[2J\\u009b2Jclient\\u0007"}; check env.API_KEY, env.FORM_SECRET and env.JSON_SECRET',
    );
  });

  it('its format characters (a bidi override, isolates, a zero-width space, a BOM) and line separators, shown as escapes', async () => {
    // "client_id admin\u202e\u2066..." would read to a person as another client than the one the server named.
    const api = await startApi((_req, res) =>
      json(res, 401, {
        error: 'invalid_client',
        error_description: 'client \u202enimda\u2066\u2069\u200b\ufeff\u2028x',
      }),
    );
    const result = await run(sendsSecrets(`${api.url}/token`, { retry: { limit: 0 } }));
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"client \\u202enimda\\u2066\\u2069\\u200b x"}; check env.API_KEY, env.FORM_SECRET and env.JSON_SECRET',
    );
    // (The BOM and the line separator are white space to the message's folding, which made them one space.)
    expect(result.stderr).not.toMatch(/[\p{Cf}\p{Zl}\p{Zp}]/u);
  });
});
