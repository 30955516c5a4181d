// A value a secret decided (the word a comparison chose) is searched in what may echo what was sent,
// never in the plugin's own frame of a message: a word of the frame that equals the chosen word
// (the URL's path, a field name, a fixed word) reads the same whichever word the secret chose, or
// re-running with another threshold would spell the secret out one bit at a time. Each case runs
// with two thresholds on either side of the secret, so that each word is chosen once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { closedPort } from '../helpers/integration.js';

const SECRET = 'hunter2-decides-31337';
/** A port nothing listens on: its connection is refused. */
let closed: number;
/** A server that answers 400, echoing the header it was sent. */
let echo: Server;
let echoPort: number;

beforeAll(async () => {
  closed = await closedPort();
  echo = createServer((request, response) => {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        error: 'invalid_request',
        error_description: `bad header ${String(request.headers['x-word'])}`,
      }),
    );
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
});
afterAll(() => new Promise((resolve) => echo.close(resolve)));

/** Both runs, one per threshold: the secret is between them, so each branch is chosen once. */
async function bothWays(args: string[], extraEnv: Record<string, string> = {}) {
  return Promise.all(
    ['a', 'z'].map((t) => runInProcess([...args, '--set', `t=${t}`], { env: { SECRET, ...extraEnv } })),
  );
}

const decidedHeader = (url: string, yes: string, no: string) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url,
      allowInsecureHTTP: true,
      retry: { limit: 0 },
      tokenPath: '$.access_token',
      headers: { 'X-Word': `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}` },
    },
  });

describe("a word a secret decided is not searched in the plugin's own frame", () => {
  // The words the frame holds: the URL's path, a host, and the message's fixed words.
  it.each([
    ['token', 'other', '/token'],
    ['refused', 'accepted', '/token'],
    ['connection', 'different', '/api/connection'],
    ['127.0.0.1', 'localhost', '/token'],
  ])('a network error naming the URL reads the same whether the secret chose %s or %s', async (yes, no, path) => {
    const url = `http://127.0.0.1:${closed}${path}`;
    const [first, second] = await bothWays(['get-token', '--config-inline', decidedHeader(url, yes, no), '--no-cache']);
    expect(first!.code).toBe(3);
    expect(first!.stdout).toBe('');
    expect(first!.stderr).toBe(`webapi-credential: connection to ${url} refused\n`);
    expect(second).toEqual(first);
    expect(leaks(first!, [SECRET])).toEqual([]);
  });

  it('the --verbose trace of the request reads the same whichever word the secret chose', async () => {
    const url = `http://127.0.0.1:${closed}/token`;
    const [first, second] = await bothWays([
      'get-token',
      '--config-inline',
      decidedHeader(url, 'token', 'other'),
      '--no-cache',
      '--verbose',
    ]);
    expect(first!.code).toBe(3);
    expect(first!.stderr).toContain(`request:\n  POST ${url}\n`);
    expect(first!.stderr).toContain('X-Word: [REDACTED]\n');
    expect(second).toEqual(first);
    expect(leaks(first!, [SECRET])).toEqual([]);
  });

  it.each([
    ['login', 'consent'],
    ['browser', 'history'],
    ['secret', 'plain'],
  ])("the browser login's refusal reads the same whether the secret chose %s or %s", async (yes, no) => {
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `http://127.0.0.1:${closed}/token`,
        allowInsecureHTTP: true,
        form: { client_id: 'kubectl' },
        login: {
          authorizationCode: {
            url: `http://127.0.0.1:${closed}/authorize`,
            query: { scope: 'openid', prompt: `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}` },
          },
          timeout: '5s',
        },
      },
    });
    const [first, second] = await bothWays(['login', '--config-inline', config, '--no-cache', '--no-browser']);
    expect(first).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "webapi-credential: login.authorizationCode puts a secret in the browser's URL, where the process list, the browser's history and the identity provider's logs show it: give its url and query as plain text (a client secret belongs in the token request's form)\n",
    });
    expect(second).toEqual(first);
    expect(leaks(first!, [SECRET])).toEqual([]);
  });

  it.each([['render'], ['validate']])('%s reads the same whichever word the secret chose', async (command) => {
    const url = `http://127.0.0.1:${closed}/token`;
    const [first, second] = await bothWays([command, '--config-inline', decidedHeader(url, 'token', 'other')]);
    expect(first!.code, first!.stderr).toBe(0);
    expect(first!.stdout).toContain(url);
    expect(second).toEqual(first);
    expect(leaks(first!, [SECRET])).toEqual([]);
  });
});

describe('a word a secret decided is still searched in what may echo what was sent', () => {
  it("a server's answer echoing the chosen word shows it as [REDACTED], whichever it is", async () => {
    const url = `http://127.0.0.1:${echoPort}/token`;
    const [first, second] = await bothWays([
      'get-token',
      '--config-inline',
      decidedHeader(url, 'tokenword', 'otherword'),
      '--no-cache',
    ]);
    expect(first!.code).toBe(3);
    expect(first!.stdout).toBe('');
    expect(first!.stderr).toContain('bad header [REDACTED]');
    expect(second).toEqual(first);
    for (const word of ['tokenword', 'otherword', SECRET]) expect(first!.stderr + second!.stderr).not.toContain(word);
  });

  it.each([
    ['answered', 'different'],
    ['token', 'other'],
  ])(
    "a refusal's frame reads the same whether the secret chose %s or %s, the echo in its error fields redacted",
    async (yes, no) => {
      const url = `http://127.0.0.1:${echoPort}/token`;
      const [first, second] = await bothWays([
        'get-token',
        '--config-inline',
        decidedHeader(url, yes, no),
        '--no-cache',
      ]);
      expect(first).toEqual({
        code: 3,
        stdout: '',
        stderr:
          'webapi-credential: the token API answered 400 Bad Request: {"error":"invalid_request","error_description":"bad header [REDACTED]"}\n',
      });
      expect(second).toEqual(first);
    },
  );

  it('a secret read is still searched in the frame: the URL path a secret read gives, once it is secret everywhere, is [REDACTED]', async () => {
    const read = 'read-path-secret-4242';
    const config = JSON.stringify({
      webAPIProviderConfig: {
        method: 'POST',
        url: `http://127.0.0.1:${closed}/{{ env.P }}`,
        allowInsecureHTTP: true,
        retry: { limit: 0 },
        tokenPath: '$.access_token',
        headers: { 'X-P': '{{ env.P }}' },
      },
    });
    const result = await runInProcess(['get-token', '--config-inline', config, '--no-cache'], { env: { P: read } });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: `webapi-credential: connection to http://127.0.0.1:${closed}/[REDACTED] refused\n`,
    });
  });
});
