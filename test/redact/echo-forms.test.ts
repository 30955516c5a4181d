// A token API that refuses a key often says which key it refused, in whatever form its framework
// writes: Go's JSON encoder, an HTML page, upper case, base64, hex, wrapped lines, a reason phrase, a
// redirect. Every one of those forms must come out as [REDACTED] (SPEC "Errors").
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { leakedForms, secretEchoes } from '../helpers/secret-forms.js';
import { json } from '../helpers/token-api.js';
import {
  PREFIX,
  SECRET,
  SECRET_ENV,
  allSecrets,
  basic,
  closedPort,
  expectFailure,
  provider,
  tokenApis,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };
/** Characters that each encoder treats its own way: the URL path set keeps `|`, encodes space and `^`. */
const KEY = 'abc|def ghi^jkl&<Zq>"+/Xy9';
const env = { ...SECRET_ENV, ECHO_KEY: KEY };
const sendsKey = (url: string, extra: Record<string, unknown> = {}) =>
  basic(url, { tls, headers: { 'X-Api-Key': '{{ env.ECHO_KEY }}' }, retry: { limit: 0 }, ...extra });
const run = (config: Record<string, unknown>, args: string[] = []) =>
  runInProcess([...args, '--config-inline', provider(config)], { env });

/** No form of the key, nor of any secret of the suite, on either stream. */
function expectHidden(result: CliResult, others: string[] = []): void {
  expect(leakedForms(result, [KEY, SECRET.apiKey, SECRET.token, ...others])).toEqual([]);
}

const echoes = Object.entries(secretEchoes(KEY));

describe.concurrent('a 401 that echoes the key', () => {
  it.each(echoes)('hides the key %s in a JSON error field', async (_name, form) => {
    const api = await startApi((_req, res) => {
      // Written by hand: JSON.stringify would re-escape what the server's own encoder chose.
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        `{"error":"invalid_client","error_description":"key ${JSON.stringify(form).slice(1, -1)} refused","detail":"x"}`,
      );
    });
    const result = await run(sendsKey(`${api.url}/token`));
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"key [REDACTED] refused"}; check env.ECHO_KEY',
      allSecrets([KEY]),
    );
    expectHidden(result);
  });

  it.each(echoes)('hides the key %s in the body excerpt of --verbose', async (_name, form) => {
    const api = await startApi((_req, res) => {
      res.writeHead(401, { 'content-type': 'text/html' });
      res.end(`<p>key ${form} refused</p>`);
    });
    const result = await run(sendsKey(`${api.url}/token`), ['--verbose']);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 3, stdout: '' });
    expect(result.stderr).toContain(`\n${PREFIX}answer 401 body (excerpt): <p>key [REDACTED] refused</p>\n`);
    expect(result.stderr).toContain(
      `\n${PREFIX}the token API answered 401 Unauthorized: text/html, ${Buffer.byteLength(`<p>key ${form} refused</p>`)} bytes (--verbose shows an excerpt); check env.ECHO_KEY\n`,
    );
    expectHidden(result);
  });

  it('hides the key in the reason phrase, upper-cased', async () => {
    const api = await startApi((_req, res) => {
      res.writeHead(401, `Bad key ${KEY.toUpperCase()}`, { 'content-type': 'application/json' });
      res.end('{"error":"invalid_client"}');
    });
    const result = await run(sendsKey(`${api.url}/token`));
    expectFailure(
      result,
      3,
      'the token API answered 401 Bad key [REDACTED]: {"error":"invalid_client"}; check env.ECHO_KEY',
      allSecrets([KEY]),
    );
    expectHidden(result);
  });

  it('hides the key in a Location header traced under --verbose', async () => {
    const api = await startApi((req, res) => {
      if (req.path === '/token') {
        res.writeHead(302, { location: `/moved/${KEY.replace(/[/"]/g, encodeURIComponent)}` });
        res.end();
      } else json(res, 401, { error: 'invalid_client' });
    });
    const result = await run(sendsKey(`${api.url}/token`), ['--verbose']);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 3, stdout: '' });
    expect(result.stderr).toContain(`\n${PREFIX}redirect 302 -> ${api.url}/moved/[REDACTED]\n`);
    expectHidden(result);
  });
});

describe.concurrent('a secret in the URL path', () => {
  const inPath = (url: string) => sendsKey(`${url}/keys/{{ env.ECHO_KEY }}/token`);

  it('is hidden by render, though the URL serializer encoded it', async () => {
    const result = await runInProcess(['render', '--config-inline', provider(inPath('https://localhost:1'))], { env });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.split('\n')[0]).toBe('POST https://localhost:1/keys/[REDACTED]/token');
    expectHidden(result);
  });

  it('is hidden in an error naming the URL', async () => {
    const port = await closedPort();
    const result = await run(inPath(`https://localhost:${port}`));
    expectFailure(
      result,
      3,
      `connection to https://localhost:${port}/keys/[REDACTED]/token refused`,
      allSecrets([KEY]),
    );
    expectHidden(result);
  });
});

describe.concurrent('a 2xx answer', () => {
  it('that is not JSON is named by type and size, never shown: it may hold a credential nobody registered', async () => {
    const issued = 'gho_16C7e42F292c6912E7710c838347Ae178B4a';
    const body = `access_token=${issued}&scope=repo&token_type=bearer`;
    const api = await startApi((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' });
      res.end(body);
    });
    const result = await run(sendsKey(`${api.url}/token`), ['--verbose']);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 4, stdout: '' });
    expect(result.stderr.trimEnd().split('\n').at(-1)).not.toContain('scope=repo');
    expect(result.stderr).toContain(
      `\n${PREFIX}the token API answered with something that is not JSON (application/x-www-form-urlencoded, ${body.length} bytes)\n`,
    );
    expect(result.stderr).not.toContain('scope=repo');
    expectHidden(result, [issued]);
  });

  it('whose path matches nothing names the keys, never their values', async () => {
    const api = await startApi((_req, res) => json(res, 200, { token: SECRET.token, scope: 'repo-scope-value' }));
    const result = await run(sendsKey(`${api.url}/token`));
    expectFailure(
      result,
      4,
      'tokenPath $.access_token matched nothing in the response; $ has keys "token", "scope"',
      allSecrets([KEY, 'repo-scope-value']),
    );
    expectHidden(result, ['repo-scope-value']);
  });
});

describe.concurrent('a long key spelled out, reversed or cut, and a secret number', () => {
  const LONG_KEY = 'Zq7kW9pmR2xT4vB8';
  const CFG = JSON.stringify({ pin: 48151623, region: 'eu' });
  const chars = Array.from(LONG_KEY);
  const loose: Array<[string, string]> = [
    ['spaced', chars.join(' ')],
    ['comma-split', chars.join(', ')],
    ['reversed', [...chars].reverse().join('')],
    ['one character short', chars.slice(0, -1).join('')],
  ];
  const runWith = (config: Record<string, unknown>) =>
    runInProcess(['--config-inline', provider(config)], { env: { ...SECRET_ENV, LONG_KEY, CFG } });
  /** No run of 6 characters of the key in any of these forms, nor the pin, on either stream. */
  const expectNoneOf = (result: CliResult) => {
    for (const [, form] of [...loose, ['as sent', LONG_KEY] as [string, string]]) {
      for (let i = 0; i + 6 <= form.length; i += 3)
        expect(`${result.stdout}${result.stderr}`).not.toContain(form.slice(i, i + 6));
    }
    expect(`${result.stdout}${result.stderr}`).not.toContain('48151623');
  };

  it.each(loose)('hides the key %s in a JSON error field', async (_name, form) => {
    const api = await startApi((_req, res) =>
      json(res, 401, { error: 'invalid_client', error_description: `key ${form} refused` }),
    );
    const result = await runWith(
      basic(`${api.url}/token`, { tls, headers: { 'X-Api-Key': '{{ env.LONG_KEY }}' }, retry: { limit: 0 } }),
    );
    expectFailure(
      result,
      3,
      'the token API answered 401 Unauthorized: {"error":"invalid_client","error_description":"key [REDACTED] refused"}; check env.LONG_KEY',
      allSecrets([LONG_KEY]),
    );
    expectNoneOf(result);
  });

  it('hides a secret number read with fromJson() that the API echoes alone', async () => {
    const api = await startApi((_req, res) =>
      json(res, 403, { error: 'access_denied', error_description: 'pin 48151623 is locked' }),
    );
    const result = await runWith(
      basic(`${api.url}/token`, {
        tls,
        headers: { 'X-Login': '{{ "user:" + fromJson(env.CFG).pin }}' },
        retry: { limit: 0 },
      }),
    );
    expectFailure(
      result,
      3,
      'the token API answered 403 Forbidden: {"error":"access_denied","error_description":"pin [REDACTED] is locked"}; check env.CFG',
      allSecrets(),
    );
    expectNoneOf(result);
  });
});
