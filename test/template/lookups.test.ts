// What a template reads out of lists and objects, what the defaults (`??`, `||`, `&&`) give, and
// that a value a helper derives from a secret is hidden wherever it is printed. Each case is one a
// config author writes; each was once a change to the evaluator that no test noticed.
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

function setup(env: Record<string, string> = {}) {
  const redactor = new Redactor();
  const renderer = new TemplateRenderer(
    {
      env,
      vars: { tier: 'gold' },
      cluster: undefined,
      readFile: () => 'file-content-Vv2',
      nowMs: () => 1_700_000_000_000,
      uuid: randomUUID,
    },
    redactor,
  );
  const render = async (template: string, where = 'webAPIProviderConfig.headers.X') => {
    const text = (await renderer.render(template, where)).sent;
    renderer.finish();
    return text;
  };
  return { redactor, render };
}

const failure = (promise: Promise<unknown>): Promise<UsageError> => rejected(UsageError, promise);

const field = (template: string) => `webAPIProviderConfig.headers.X: ${template}: `;

describe('reading a list', () => {
  it.each<[string, string]>([
    ['[10, 20, 30][1]', '20'],
    ['[10, 20, 30][0]', '10'],
    ['[10, 20, 30][2]', '30'],
    ['[10, 20, 30]["1"]', '20'],
    ['[10, 20, 30].length', '3'],
    ['[10, 20, 30]["length"]', '3'],
    ['[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12][11]', '12'],
    ['[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]["11"]', '12'],
    ['fromJson("[\\"a\\",\\"b\\"]")[1]', 'b'],
  ])('{{ %s }} gives %s', async (expression, expected) => {
    expect(await setup().render(`{{ ${expression} }}`)).toBe(expected);
  });

  it.each<[string, string]>([
    ['[10, 20, 30][3]', '(…)[3]'],
    ['[10, 20, 30]["3"]', '(…)["3"]'],
    ['[10, 20, 30]["01"]', '(…)["01"]'],
    ['[10, 20, 30]["1x"]', '(…)["1x"]'],
    ['[10, 20, 30]["x1"]', '(…)["x1"]'],
    ['[10, 20, 30][" 1"]', '(…)[" 1"]'],
    ['[10, 20, 30][1.5]', '(…)[1.5]'],
    ['[10, 20, 30][-1]', '(…)[…]'],
    ['[10, 20, 30]["-1"]', '(…)["-1"]'],
    ['[10, 20, 30].first', '(…).first'],
  ])('{{ %s }} is not set', async (expression, named) => {
    const template = `{{ ${expression} }}`;
    expect((await failure(setup().render(template))).message).toBe(`${field(template)}${named} is not set`);
  });
});

describe('reading what has no properties', () => {
  it.each<[string, string]>([
    ['"abc".length', '(…).length: a string has no properties to read'],
    ['"abc"[0]', '(…)[0]: a string has no properties to read'],
    ['vars.tier.x', 'vars.tier.x: a string has no properties to read'],
    ['now().x', 'now(…).x: a number has no properties to read'],
    ['(1 === 1).x', '(…).x: a boolean has no properties to read'],
    ['({ a: 1 })[true]', '(…)[…]: a property name must be a string or a number'],
    ['({ a: 1 })[null]', '(…)[…]: a property name must be a string or a number'],
    ['[1][[0]]', '(…)[…]: a property name must be a string or a number'],
  ])('{{ %s }} fails', async (expression, reason) => {
    const template = `{{ ${expression} }}`;
    expect((await failure(setup().render(template))).message).toBe(`${field(template)}${reason}`);
  });
});

describe('+', () => {
  it.each<[string, string]>([
    ['1 + 2', '3'],
    ['1 + "2"', '12'],
    ['"1" + 2', '12'],
    ['true + 1', 'true1'],
    ['1 + true', '1true'],
    ['"a" + false', 'afalse'],
  ])('{{ %s }} gives %s: numbers add, anything else is joined as text', async (expression, expected) => {
    expect(await setup().render(`{{ ${expression} }}`)).toBe(expected);
  });

  it.each<[string, string]>([
    ['"Bearer " + null', 'a missing value was turned into text'],
    ['null + "x"', 'a missing value was turned into text'],
    ['"a" + [1]', '+ was given an object or a list; wrap it in json(…)'],
    ['{ a: 1 } + "a"', '+ was given an object or a list; wrap it in json(…)'],
  ])('{{ %s }} fails', async (expression, reason) => {
    const template = `{{ ${expression} }}`;
    expect((await failure(setup().render(template))).message).toBe(`${field(template)}${reason}`);
  });

  it('names every unset value on both sides at once', async () => {
    const template = '{{ env.FIRST_UNSET + ":" + env.SECOND_UNSET }}';
    expect((await failure(setup().render(template))).message).toBe(
      `${field(template)}env.FIRST_UNSET, env.SECOND_UNSET are not set (set them in the environment or the kubeconfig exec env)`,
    );
  });
});

describe('defaults', () => {
  it.each<[string, string]>([
    ['null ?? "d"', 'd'],
    ['vars.unset ?? "d"', 'd'],
    ['0 ?? 5', '0'],
    ['false ?? true', 'false'],
    ['"" ?? "d"', ''],
    ['"" || "d"', 'd'],
    ['0 || 5', '5'],
    ['"x" || "d"', 'x'],
    ['"a" && "b"', 'b'],
    ['0 && "b"', '0'],
    ['"" && "b"', ''],
  ])('{{ %s }} gives %j', async (expression, expected) => {
    expect(await setup().render(`[{{ ${expression} }}]`)).toBe(`[${expected}]`);
  });

  it.each<[string, [string, string]]>([
    // A secret chose the left side; the right is the default when it is null, as when it is missing.
    ['fromJson(env.S > "m" ? "null" : "1234") ?? 5678', ['5678', '1234']],
    ['fromJson(env.S > "m" ? "0" : "1234") || 5678', ['5678', '1234']],
    ['fromJson(env.S > "m" ? "0" : "1234") && 5678', ['0', '5678']],
  ])('{{ %s }} gives the default a secret chose, both ways', async (expression, expected) => {
    const results = [];
    for (const S of ['zulu-S3cr3t-22', 'Alpha-S3cr3t-1'])
      results.push(await setup({ S }).render(`{{ ${expression} }}`));
    expect(results).toEqual(expected);
  });
});

describe('a value a helper derives from a secret', () => {
  it.each<[string, Record<string, string>, string, string]>([
    [
      'the text base64decode() gives',
      { B64: Buffer.from('decoded-secret-Kx9').toString('base64') },
      '{{ base64decode(env.B64) }}',
      'decoded-secret-Kx9',
    ],
    ['a number fromJson() reads', { PIN: '9.8765432e7' }, '{{ fromJson(env.PIN) }}', '98765432'],
    ['a boolean fromJson() reads, as its text', { FLAG: ' true ' }, '{{ fromJson(env.FLAG) }}', 'true'],
    [
      'a member of JSON in a secret',
      { CFG: '{"client_secret":"inner-secret-Qw3"}' },
      '{{ fromJson(env.CFG).client_secret }}',
      'inner-secret-Qw3',
    ],
    ['upper() of a secret', { S: 'mixed-Case-Secret' }, '{{ upper(env.S) }}', 'MIXED-CASE-SECRET'],
  ])('is hidden wherever printed: %s', async (_name, env, template, value) => {
    const { render, redactor } = setup(env);
    expect(await render(template)).toBe(value);
    expect(redactor.redact(`the API said: ${value}.`)).toBe(`the API said: ${REDACTED}.`);
  });

  it.each<[string, string]>([
    ['joined with +', '{{ env.A + ":" + env.B + ":" + env.C }}'],
    ['in a list', '{{ json([env.A, "x", env.B, env.C]) }}'],
    ['in an object', '{{ json({ a: env.A, b: env.B, c: env.C }) }}'],
    ['given to a helper together', '{{ basicAuth(env.A + env.B, env.C) }}'],
    ['chosen by each other', '{{ env.A > env.B ? env.C + env.A : env.B + env.C }}'],
  ])('hides each of several secrets %s, not only the last', async (_name, template) => {
    const env = { A: 'first-secret-Aa1', B: 'second-secret-Bb2', C: 'third-secret-Cc3' };
    const { render, redactor } = setup(env);
    await render(template);
    for (const value of Object.values(env)) expect(redactor.redact(`echo ${value} end`)).toBe(`echo ${REDACTED} end`);
  });

  it('hides every field of a JWK given to jwt() as its key', async () => {
    const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    const { render, redactor } = setup({ JWK: JSON.stringify({ ...jwk, kid: 'key-id-Zq81' }) });
    const token = await render('{{ jwt({ iss: "me", aud: "api" }, fromJson(env.JWK), { alg: "ES256" }) }}');
    expect(token.split('.')).toHaveLength(3);
    expect(redactor.redact(`d=${jwk.d} x=${jwk.x} id key-id-Zq81`)).toBe(`d=${REDACTED} x=${REDACTED} id ${REDACTED}`);
    expect(redactor.redact(token)).toBe(REDACTED);
  });
});
