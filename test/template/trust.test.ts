// The templates' taint (issues 17 and 18), through the CLI's run() in process with main.ts's real
// deps and real local token APIs: a value a secret decided never shows in render or validate; the URL
// up to its query is shown; a step's answer never moves a URL's origin nor breaks a header (exit 4
// naming the step); the cache key names every env variable any branch reads. The bounds, which need
// a process of their own (its stack), are test/integration/template-trust.test.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, allSecrets, closedPort, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const S = 'Hunter2-S3cr3t!';
const secrets = allSecrets([S]);
const COMMANDS = [['validate'], ['render'], []];

const run = (
  args: string[],
  config: Record<string, unknown>,
  env: Record<string, string> = { S },
  now?: () => number,
) =>
  runInProcess([...args, '--config-inline', provider(config), ...(args.length === 0 ? ['--timeout', '3s'] : [])], {
    env,
    now,
  });

describe('a value decided by a secret', () => {
  const guessed = {
    method: 'GET',
    url: `https://example.invalid/?a={{ env.S }}&b={{ env.S == '${S}' ? 'guessed' : 'wrong' }}`,
    tokenPath: '$.t',
  };

  it('is [REDACTED] in render and validate', async () => {
    const rendered = await run(['render'], guessed);
    expect(rendered.code).toBe(0);
    expect(rendered.stdout.split('\n')[0]).toBe('GET https://example.invalid/?a=[REDACTED]&b=[REDACTED]');
    const validated = await run(['validate'], guessed);
    expect(validated.stdout).toBe(
      'config from --config-inline is valid: GET https://example.invalid/?a=[REDACTED]&b=[REDACTED]\n',
    );
    for (const result of [rendered, validated]) {
      expect(result.stdout + result.stderr).not.toContain('guessed');
      expect(result.stdout + result.stderr).not.toContain(S);
    }
  });

  it('cannot be spelled out by lets that binary-search each character', async () => {
    const alphabet = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).filter(
      (c) => !`"'\\{}`.includes(c),
    );
    const search = (prefix: string, chars: string[]): string => {
      if (chars.length === 1) return JSON.stringify(chars[0]);
      const middle = Math.floor(chars.length / 2);
      return `(env.S >= ${prefix} + ${JSON.stringify(chars[middle])} ? ${search(prefix, chars.slice(middle))} : ${search(prefix, chars.slice(0, middle))})`;
    };
    const lets: Record<string, string> = { p0: '""' };
    for (let i = 0; i < S.length; i++) {
      lets[`c${i}`] = search(`p${i}`, alphabet);
      lets[`p${i + 1}`] = `p${i} + c${i}`;
    }
    const letters = Array.from(S, (_, i) => `{{ c${i} }}`);
    for (const url of [
      `https://example.invalid/?q=${letters.join('.')}`,
      `https://example.invalid/${letters.join('/')}`,
    ]) {
      for (const command of [['render'], ['validate']]) {
        const result = await run(command, { let: lets, method: 'GET', url, tokenPath: '$.t' });
        expect(result.code).toBe(0);
        expect(result.stdout).not.toMatch(/H.u.n.t.e.r/);
        expect(result.stdout).toContain('[REDACTED]');
      }
    }
  });
});

describe('a failure a secret chose', () => {
  // Each let fails or not as one bit of the secret says (a key that misses, text that is not JSON or
  // base64, a list where text goes): naming the lets that failed spelled the secret out in validate.
  const shapes = [
    (c: string) => `{ a: 1 }[${c} ? 'a' : 'b']`,
    (c: string) => `[1, 2][${c} ? 0 : 5]`,
    (c: string) => `(${c} ? { a: 1 } : { b: 1 }).a`,
    (c: string) => `fromJson(${c} ? '1' : 'xxxxxxxx')`,
    (c: string) => `base64decode(${c} ? 'YQ' : '!!')`,
    (c: string) => `(${c} || 'x') < 1`,
    (c: string) => `file(${c} ? 'nowhere' : 'nothing')`,
  ];
  it.each(shapes.map((shape) => [shape('C'), shape]))('names no let that failed: %s', async (_name, shape) => {
    const lets: Record<string, string> = {};
    for (let i = 0; i < S.length; i++) lets[`c${i}`] = shape(`env.S > ${JSON.stringify(S.slice(0, i))} + 'Z'`);
    await expectOneWay({ let: lets, method: 'GET', url: 'https://127.0.0.1:9/', tokenPath: '$.t' });
    const result = await run([], { let: lets, method: 'GET', url: 'https://127.0.0.1:9/', tokenPath: '$.t' });
    expectFailure(result, 2, /which template and why is not said/, secrets);
    expect(result.stderr).not.toMatch(/let\.c\d/);
  });
});

/**
 * validate and render compute no value a secret decided, and check nothing made of one (issue 27,
 * one bit per run): they pass whatever the secret holds, showing such values as [REDACTED]. get-token
 * still fails when the request cannot be made, with the one message.
 */
async function expectOneWay(config: Record<string, unknown>): Promise<void> {
  for (const command of [['validate'], ['render']]) {
    const result = await run(command, config);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    for (const secret of secrets) expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toMatch(/H.u.n.t/);
  }
}

describe('a check of a rendered field a secret chose', () => {
  // One field per character of the secret, each rendered fine or not as a comparison says: a URL
  // that is no URL, http://, a header with a line break, a CA file that cannot be read. The first
  // field that failed its check was named, and told where the secret's letters cross a bound.
  const cond = (i: number) => `env.S > ${JSON.stringify(S.slice(0, i))} + 'Z'`;
  const step = (i: number, fields: Record<string, unknown>) => ({
    name: `s${i}`,
    method: 'GET',
    url: 'https://127.0.0.1:9/',
    ...fields,
  });
  const indices = Array.from(S, (_, i) => i);
  const configs: Array<[string, Record<string, unknown>]> = [
    [
      'a step URL that is no URL',
      { steps: indices.map((i) => step(i, { url: `https://{{ ${cond(i)} ? 'okhost' : 'bad host' }}/` })) },
    ],
    [
      'a step URL with http://',
      { steps: indices.map((i) => step(i, { url: `{{ ${cond(i)} ? 'https' : 'http' }}://127.0.0.1:9/` })) },
    ],
    [
      'a header with a line break',
      { headers: Object.fromEntries(indices.map((i) => [`X${i}`, `{{ ${cond(i)} ? 'okokokok' : 'ok\nokokok' }}`])) },
    ],
    [
      'a CA file that cannot be read',
      { steps: indices.map((i) => step(i, { tls: { caFile: `{{ ${cond(i)} ? 'nowhere' : 'nothing' }}` } })) },
    ],
  ];
  it.each(configs)('names no field: %s', async (_name, fields) => {
    await expectOneWay({ method: 'GET', url: 'https://127.0.0.1:9/', tokenPath: '$.t', ...fields });
    expectFailure(
      await run([], { method: 'GET', url: 'https://127.0.0.1:9/', tokenPath: '$.t', ...fields }),
      2,
      /which template and why is not said/,
      secrets,
    );
  });
});

describe('urlencode() of text with a lone surrogate', () => {
  it.each(COMMANDS)('is exit 2 naming the field, not an internal error (%s)', async (...command) => {
    const result = await run(command, {
      method: 'GET',
      url: `https://127.0.0.1:9/?a={{ urlencode(fromJson('"\\\\ud800"')) }}`,
      tokenPath: '$.t',
    });
    expectFailure(
      result,
      2,
      /^webAPIProviderConfig\.url: .*urlencode\(\) was given text with a lone surrogate/,
      secrets,
    );
  });
});

describe('a URL path a secret decided', () => {
  it('is [REDACTED] in the message of a request that fails too', async () => {
    const port = await closedPort();
    const lets: Record<string, string> = {};
    Array.from(S).forEach((_, i) => (lets[`c${i}`] = `env.S >= '${S.slice(0, i)}' + 'm' ? '${S[i]}' : 'x'`));
    const url = `http://127.0.0.1:${port}/${Array.from(S, (_, i) => `{{ c${i} }}`).join('/')}`;
    const result = await run([], {
      let: lets,
      method: 'GET',
      url,
      allowInsecureHTTP: true,
      tokenPath: '$.t',
      retry: { limit: 0 },
    });
    expect(result.code).toBe(3);
    expect(result.stderr).not.toMatch(/H.u.n.t/);
    expect(result.stderr).toContain(`http://127.0.0.1:${port}/[REDACTED]/`);
  });
});

describe('a secret spelled one comparison at a time, echoed by the server', () => {
  // Each letter is a value a secret decided, too short for the redactor alone: render shows each as
  // [REDACTED], but a 400 that echoes the path, the query or the body spelled the secret out.
  const alphabet = Array.from({ length: 94 }, (_, i) => String.fromCharCode(33 + i)).filter(
    (c) => !`"'\\{}`.includes(c),
  );
  const search = (prefix: string, chars: string[]): string => {
    if (chars.length === 1) return JSON.stringify(chars[0]);
    const middle = Math.floor(chars.length / 2);
    return `(${prefix} + ${JSON.stringify(chars[middle])} <= env.S ? ${search(prefix, chars.slice(middle))} : ${search(prefix, chars.slice(0, middle))})`;
  };
  const lets: Record<string, string> = { p0: '""' };
  for (let i = 0; i < S.length; i++) {
    lets[`c${i}`] = search(`p${i}`, alphabet);
    lets[`p${i + 1}`] = `p${i} + c${i}`;
  }
  const letters = Array.from(S, (_, i) => `{{ c${i} }}`);
  const spelled = new RegExp(Array.from(S, (c) => c.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('.{0,6}'));
  it.each([
    ['the path', { url: `/echo/${letters.join('/')}` }],
    ['the query', { url: `/echo?q=${letters.join('.')}` }],
    [
      'the form',
      { url: '/echo', method: 'POST', form: Object.fromEntries(letters.map((letter, i) => [`f${i}`, letter])) },
    ],
    ['the body', { url: '/echo', method: 'POST', body: letters.join(',') }],
  ])('is [REDACTED] in what the server echoes of %s', async (_name, fields) => {
    const api = await startApi((request, response) =>
      json(response, 400, {
        error: 'invalid_request',
        error_description: `you sent ${decodeURIComponent(request.url)} ${decodeURIComponent(request.body)}`,
      }),
    );
    // The searches are thousands of comparisons: --timeout 60s gives a busy machine room to send the request at all.
    const result = await run(['--timeout', '60s'], {
      let: lets,
      method: 'GET',
      tokenPath: '$.t',
      tls: { caFile: pki.ca.certFile },
      retry: { limit: 0 },
      ...fields,
      url: `${api.url}${fields.url}`,
    });
    expect(api.requests.map((r) => decodeURIComponent(r.url + r.body)).join('')).toMatch(spelled);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('you sent');
    expect(result.stderr).not.toMatch(spelled);
  });
});

describe('the URL up to its query', () => {
  it('is shown when its host comes from env, and hidden once that value also reaches a header', async () => {
    const env = { HOST: 'api.example.test', S };
    const shown = await run(
      ['validate'],
      { method: 'POST', url: 'https://{{ env.HOST }}/oauth/token?x={{ env.S }}', tokenPath: '$.t' },
      env,
    );
    expect(shown.stdout).toBe(
      'config from --config-inline is valid: POST https://api.example.test/oauth/token?x=[REDACTED]\n',
    );
    const hidden = await run(
      ['validate'],
      {
        method: 'POST',
        url: 'https://{{ env.HOST }}/oauth/token',
        headers: { 'X-Host': '{{ env.HOST }}' },
        tokenPath: '$.t',
      },
      env,
    );
    expect(hidden.stdout).toBe('config from --config-inline is valid: POST https://[REDACTED]/oauth/token\n');
  });

  it('keeps a tls value from env hidden in its message', async () => {
    const result = await run(
      ['validate'],
      { method: 'POST', url: 'https://api.example.test/token', tls: { caFile: '{{ env.CA_FILE }}' }, tokenPath: '$.t' },
      { CA_FILE: '/nonexistent/ca-file-Kq93.pem' },
    );
    expectFailure(result, 2, 'webAPIProviderConfig.tls.caFile: cannot read [REDACTED]: no such file', ['ca-file-Kq93']);
  });
});

describe("a step's answer", () => {
  const tls = { caFile: pki.ca.certFile };
  const withStep = (url: string, main: Record<string, unknown>) => ({
    steps: [{ name: 'login', method: 'POST', url: `${url}/login`, json: { s: '{{ env.S }}' } }],
    method: 'POST',
    tokenPath: '$.access_token',
    tls,
    ...main,
  });

  it('that would change the origin of a URL is exit 4 naming the step, before the request goes', async () => {
    const api = await startApi((request, response) => {
      if (request.path === '/login')
        return json(response, 200, { user: `localhost:${new URL(api.url).port}/f/tok.json?` });
      json(response, 200, { access_token: SECRET.token });
    });
    const port = new URL(api.url).port;
    const result = await run(
      [],
      withStep(api.url, {
        url: `https://{{ steps.login.user }}@127.0.0.1:${port}/v1/creds`,
        headers: { Authorization: 'Bearer {{ env.S }}' },
      }),
    );
    expectFailure(
      result,
      4,
      `webAPIProviderConfig.url: what steps.login answered changes the URL's origin (scheme, userinfo, host or port) from the one the config gives (https://127.0.0.1:${port}); a step's answer decides values, never where a request goes`,
      secrets,
    );
    expect(api.requests.map((r) => r.path)).toEqual(['/login']);
  });

  it.each([
    ['a line break', 'a\r\nX-Injected: 1', 'a line break or NUL'],
    ['NUL', 'a\u0000b', 'a line break or NUL'],
    ['U+2028', 'a\u2028b', 'U+2028'],
    ['U+0100', 'a\u0100b', 'U+0100'],
  ])('that gives a header %s is exit 4 naming the step', async (_name, value, what) => {
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { token: value });
      json(response, 200, { access_token: SECRET.token });
    });
    const result = await run(
      [],
      withStep(api.url, { url: `${api.url}/creds`, headers: { 'X-Token': '{{ steps.login.token }}' } }),
    );
    expectFailure(
      result,
      4,
      `webAPIProviderConfig.headers.X-Token: what steps.login answered gives it ${what}, which an HTTP header cannot carry; check the API and the template`,
      secrets,
    );
    expect(api.requests.map((r) => r.path)).toEqual(['/login']);
  });

  it('that gives a header a line break through a comparison is exit 4 too, naming nothing', async () => {
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { token: 'a\r\nX-Injected: 1' });
      json(response, 200, { access_token: SECRET.token });
    });
    const result = await run(
      [],
      withStep(api.url, {
        url: `${api.url}/creds`,
        headers: { 'X-Token': '{{ steps.login.token == "zz" ? "a" : steps.login.token }}' },
      }),
    );
    expectFailure(result, 4, /which template and why is not said/, secrets);
    expect(api.requests.map((r) => r.path)).toEqual(['/login']);
  });
});

describe('the cache key', () => {
  it('records an env variable read only in a branch that a step decides: rotating it misses', async () => {
    let role = 'user';
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { role });
      json(response, 200, {
        access_token: SECRET.token,
        expires_in: 3600,
        got: new URLSearchParams(request.body).get('s'),
      });
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-branch-')), 'cache');
    const config = {
      steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
      method: 'POST',
      url: `${api.url}/token`,
      form: { s: "{{ steps.login.role == 'admin' ? env.ADMIN_SECRET : env.USER_SECRET }}" },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: pki.ca.certFile },
    };
    role = 'admin';
    const first = await run(['--cache', '--cache-dir', dir], config, {
      ADMIN_SECRET: 'admin-one-Qz1',
      USER_SECRET: 'user-one-Wx2',
    });
    expect(first.code).toBe(0);
    const rotated = await run(['--cache', '--cache-dir', dir], config, {
      ADMIN_SECRET: 'admin-two-Qz3',
      USER_SECRET: 'user-one-Wx2',
    });
    expect(rotated.code).toBe(0);
    expect(api.requests.filter((r) => r.path === '/token').map((r) => new URLSearchParams(r.body).get('s'))).toEqual([
      'admin-one-Qz1',
      'admin-two-Qz3',
    ]);
  });

  it('never writes an env name a secret gave: the cache is off for a config that reads env[env.X], and rotating that variable is fetched again', async () => {
    const api = await startApi((request, response) =>
      json(response, 200, { access_token: `tok-${request.headers['x-v']}`, expires_in: 3600 }),
    );
    const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-env-name-')), 'cache');
    const config = {
      method: 'GET',
      url: `${api.url}/token`,
      headers: { 'X-V': '{{ env[env.S] ?? "none-given" }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: pki.ca.certFile },
    };
    const first = await run(['--cache', '--cache-dir', dir, '-o', 'token'], config, { S, [S]: 'first-Vq1' });
    expect(first.stdout).toBe('tok-first-Vq1\n');
    const rotated = await run(['--cache', '--cache-dir', dir, '-o', 'token'], config, { S, [S]: 'second-Vq2' });
    expect(rotated.stdout).toBe('tok-second-Vq2\n');
    const files = existsSync(dir) ? readdirSync(dir) : [];
    for (const file of files) expect(readFileSync(join(dir, file), 'utf8')).not.toContain(S);
  });

  it('keeps in the ref only what the last fetch read: a path an answer names anew each time does not pile up', async () => {
    // The ref was the union of every earlier ref and this call's reads, so each new path stayed for
    // good, and every later call hashed every file ever named.
    const root = mkdtempSync(join(tmpdir(), 'webapi-credential-step-paths-'));
    let call = 0;
    const api = await startApi((request, response) => {
      if (request.path === '/login') {
        const path = join(root, `secret-${++call}`);
        writeFileSync(path, `step-path-secret-${call}-Kp2\n`);
        return json(response, 200, { path });
      }
      // Two seconds of life: reported one second early, so each call after a pause fetches again.
      json(response, 200, { access_token: SECRET.token, expires_in: 2 });
    });
    const config = {
      steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
      method: 'POST',
      url: `${api.url}/token`,
      form: { s: '{{ file(steps.login.path) }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      expiryMargin: '1s',
      tls: { caFile: pki.ca.certFile },
    };
    const dir = join(root, 'cache');
    // The plugin's clock, 1.1 s on between calls: past the credential's reported expiry, without the wait.
    for (let i = 0; i < 4; i++) {
      const skew = i * 1_100;
      expect((await run(['--cache', '--cache-dir', dir], config, {}, () => Date.now() + skew)).code).toBe(0);
    }
    expect(call).toBe(4);
    const refs = readdirSync(dir).filter((name) => name.endsWith('.ref'));
    expect(refs).toHaveLength(1);
    const ref = JSON.parse(readFileSync(join(dir, refs[0]!), 'utf8')) as { files: string[] };
    expect(ref.files).toEqual([pki.ca.certFile, join(root, 'secret-4')].sort());
  });

  it('records a file whose path a step answered: rotating it misses', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webapi-credential-step-file-'));
    const path = join(root, 'client-secret');
    writeFileSync(path, 'step-file-one-Lm4\n');
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { path });
      json(response, 200, { access_token: SECRET.token, expires_in: 3600 });
    });
    const config = {
      steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
      method: 'POST',
      url: `${api.url}/token`,
      form: { s: '{{ file(steps.login.path) }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: pki.ca.certFile },
    };
    const dir = join(root, 'cache');
    const sent = () => api.requests.filter((r) => r.path === '/token').map((r) => new URLSearchParams(r.body).get('s'));
    // The first run learns the path and stores its credential under the key that holds the file's
    // content too: the repeats are hits.
    for (let i = 0; i < 3; i++) expect((await run(['--cache', '--cache-dir', dir], config, {})).code).toBe(0);
    expect(sent()).toHaveLength(1);
    const before = sent().length;
    expect((await run(['--cache', '--cache-dir', dir], config, {})).code).toBe(0);
    expect(sent()).toHaveLength(before);
    writeFileSync(path, 'step-file-two-Lm5\n');
    expect((await run(['--cache', '--cache-dir', dir], config, {})).code).toBe(0);
    expect(sent()).toHaveLength(before + 1);
    expect(sent().at(-1)).toBe('step-file-two-Lm5');
  });
});
