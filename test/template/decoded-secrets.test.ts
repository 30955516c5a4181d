// A value a helper computes from a secret is a secret: where the secret is secret everywhere (it also
// reaches a header), so is what is computed from it, in the URL's path too. The redactor finds a
// secret's copies and encodings (urlencode, base64, case), but not what decoding it gives:
// `base64decode(env.S)` in the path was shown in clear by validate, render and get-token's error
// lines, and base64 round-trips, so that was the whole secret; so was a part of `fromJson(env.S)`.
// The table below walks every helper: one added later without a case here fails the test.
import { describe, expect, it } from 'vitest';
import { HELPER_NAMES, helperNamed, type HelperContext } from '../../src/template/helpers.js';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { closedPort, provider } from '../helpers/integration.js';

const pki = makePki();
const context: HelperContext = {
  readFile: () => '',
  nowMs: () => 0,
  uuid: () => '00000000-0000-4000-8000-000000000000',
};
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const b64url = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

interface Case {
  /** The secret, env.S. */
  secret: string;
  /** The template in the URL's path, made of env.S. */
  expression: string;
  /** What it yields: must not be shown. */
  yields: () => Promise<string>;
}

const call = async (name: string, ...args: unknown[]) => String(await helperNamed(name)!.call(args, context));

/** Every helper: a case, or why none (a helper without an argument computes nothing from a secret). */
const CASES: Record<string, Case[] | string> = {
  urlencode: [
    {
      secret: 'Secret value/with space!',
      expression: 'urlencode(env.S)',
      yields: () => call('urlencode', 'Secret value/with space!'),
    },
  ],
  base64: [
    { secret: 'plain-secret-Qx81', expression: 'base64(env.S)', yields: () => call('base64', 'plain-secret-Qx81') },
  ],
  base64url: [
    {
      secret: 'plain-secret-??>>Qx81',
      expression: 'base64url(env.S)',
      yields: () => call('base64url', 'plain-secret-??>>Qx81'),
    },
  ],
  base64decode: [
    {
      secret: b64('decoded-secret-Hv27Lq'),
      expression: 'base64decode(env.S)',
      yields: async () => 'decoded-secret-Hv27Lq',
    },
    // base64url in, as a JWT's parts are.
    {
      secret: b64url('url-decoded-secret-~~~Zp40'),
      expression: 'base64decode(env.S)',
      yields: async () => 'url-decoded-secret-~~~Zp40',
    },
    // Decoded twice.
    {
      secret: b64(b64('twice-decoded-Wm93')),
      expression: 'base64decode(base64decode(env.S))',
      yields: async () => 'twice-decoded-Wm93',
    },
  ],
  lower: [
    {
      secret: 'MiXeD-Case-Secret-Rt5',
      expression: 'lower(env.S)',
      yields: () => call('lower', 'MiXeD-Case-Secret-Rt5'),
    },
  ],
  upper: [
    {
      secret: 'MiXeD-Case-Secret-Rt5',
      expression: 'upper(env.S)',
      yields: () => call('upper', 'MiXeD-Case-Secret-Rt5'),
    },
  ],
  trim: [
    { secret: '  padded-secret-Jn6  ', expression: 'trim(env.S)', yields: () => call('trim', '  padded-secret-Jn6  ') },
  ],
  json: [{ secret: 'json-secret-"Pk2"', expression: 'json(env.S)', yields: () => call('json', 'json-secret-"Pk2"') }],
  fromJson: [
    {
      secret: '{"part":"parsed-secret-Yd35","n":1}',
      expression: 'fromJson(env.S).part',
      yields: async () => 'parsed-secret-Yd35',
    },
    { secret: '{"pin":98765432,"n":1}', expression: 'fromJson(env.S).pin', yields: async () => '98765432' },
    {
      secret: '{"list":["x","listed-secret-Ab19"]}',
      expression: 'fromJson(env.S).list[1]',
      yields: async () => 'listed-secret-Ab19',
    },
    {
      secret: b64('{"inner":"nested-secret-Ce04"}'),
      expression: 'fromJson(base64decode(env.S)).inner',
      yields: async () => 'nested-secret-Ce04',
    },
  ],
  basicAuth: [
    {
      secret: 'basic-secret-Mv58',
      expression: 'basicAuth("client", env.S)',
      yields: () => call('basicAuth', 'client', 'basic-secret-Mv58'),
    },
  ],
  jwt: [
    {
      secret: 'hmac-key-that-is-long-enough-Ls71',
      expression: 'jwt({ sub: "x", iat: 1, exp: 2, jti: "j" }, env.S, { alg: "HS256" })',
      yields: () =>
        call('jwt', { sub: 'x', iat: 1, exp: 2, jti: 'j' }, 'hmac-key-that-is-long-enough-Ls71', { alg: 'HS256' }),
    },
  ],
  file: 'its argument is a path, which is no secret (SPEC), and the content is a secret of its own, not one computed from the path',
  now: 'it takes no argument',
  uuid: 'it takes no argument',
};

describe('the helper table', () => {
  it('has a case here for every helper', () => {
    expect(Object.keys(CASES).sort()).toEqual([...HELPER_NAMES].sort());
  });
});

const cases = Object.entries(CASES).flatMap(([name, entry]) =>
  typeof entry === 'string' ? [] : entry.map((c) => ({ name, ...c })),
);

describe.each(cases)('$expression of a secret that also reaches a header', ({ secret, expression, yields }) => {
  const config = (origin: string) =>
    provider({
      method: 'GET',
      url: `${origin}/v1/{{ ${expression} }}/token`,
      headers: { 'X-Key': '{{ env.S }}' },
      tokenPath: '$.t',
      tls: { caFile: pki.ca.certFile },
      retry: { limit: 0 },
    });

  it.each(['validate', 'render'])('is not shown by %s', async (command) => {
    const shown = await yields();
    const result = await runInProcess([command, '--config-inline', config('https://api.example.test')], {
      env: { S: secret },
    });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).toContain('https://api.example.test/v1/');
    expect(result.stdout + result.stderr).not.toContain(shown);
    expect(result.stdout + result.stderr).not.toContain(secret.trim());
  });

  it("is not shown in get-token's error line", async () => {
    const shown = await yields();
    // A request that cannot connect: its message names the URL.
    const origin = `https://127.0.0.1:${await closedPort()}`;
    const result = await runInProcess(['--config-inline', config(origin)], { env: { S: secret } });
    expect(result.code).toBe(3);
    expect(result.stderr).toContain(`${origin}/v1/`);
    expect(result.stderr).not.toContain(shown);
    expect(result.stderr).not.toContain(secret.trim());
  });
});

describe('the order of the fields', () => {
  const S = b64('decoded-secret-Hv27Lq');
  it.each([
    ['the URL first', ['url', 'header']],
    ['the header first', ['header', 'url']],
  ])('makes no difference: %s', async (_name, order) => {
    const redactor = new Redactor();
    const renderer = new TemplateRenderer(
      { env: { S }, vars: {}, cluster: undefined, readFile: () => '', nowMs: () => 0, uuid: () => '' },
      redactor,
    );
    renderer.setSteps('placeholders');
    let url = '';
    for (const field of order) {
      if (field === 'url')
        url = (
          await renderer.render(
            'https://api.example.test/{{ base64decode(env.S) }}/token',
            'webAPIProviderConfig.url',
            'url',
          )
        ).shown;
      else await renderer.render('{{ env.S }}', 'webAPIProviderConfig.headers.X-Key');
    }
    renderer.finish();
    expect(url).toBe('https://api.example.test/decoded-secret-Hv27Lq/token');
    expect(redactor.redact(url)).toBe('https://api.example.test/[REDACTED]/token');
  });
});

describe('a decoded secret that reaches no secret field', () => {
  it('is shown in the URL path, as a value read from env is (SPEC "Templates")', async () => {
    const result = await runInProcess(
      [
        'validate',
        '--config-inline',
        provider({ method: 'GET', url: 'https://api.example.test/{{ base64decode(env.S) }}/token', tokenPath: '$.t' }),
      ],
      { env: { S: b64('tenant-name') } },
    );
    expect(result).toEqual({
      code: 0,
      stdout: 'config from --config-inline is valid: GET https://api.example.test/tenant-name/token\n',
      stderr: '',
    });
  });
});

describe("fromJson()'s message", () => {
  it('tells nothing of the length of the text it was given', async () => {
    const run = (secret: string) =>
      runInProcess(
        [
          'validate',
          '--config-inline',
          provider({
            method: 'GET',
            url: 'https://api.example.test/token',
            headers: { 'X-Key': '{{ fromJson(env.S).a }}' },
            tokenPath: '$.t',
          }),
        ],
        { env: { S: secret } },
      );
    const short = await run('not-json');
    const long = await run('not-json-and-much-longer-than-that');
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/fromJson\(\) was given text that is not JSON/);
    expect(short.stderr).not.toMatch(/\d/);
    expect(long).toEqual(short);
  });
});
