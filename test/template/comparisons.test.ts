// Comparisons in templates, asserted both ways: a comparison that always came out true, or `<` read
// as `<=`, would send the production key to staging (`{{ env.ENV === "prod" ? a : b }}`). And the
// one-bit rule: where a secret chooses a branch, a branch that is null or of another kind fails the
// same whichever branch the secret chose, so that whether a run fails tells nothing of the secret.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

function renderWith(
  env: Record<string, string>,
  template: string,
  where = 'webAPIProviderConfig.headers.X',
): Promise<string> {
  const renderer = new TemplateRenderer(
    {
      env,
      vars: { tier: 'gold' },
      cluster: undefined,
      readFile: () => 'file-content-Vv2',
      nowMs: () => 0,
      uuid: randomUUID,
    },
    new Redactor(),
  );
  return (async () => {
    const text = (await renderer.render(template, where)).sent;
    renderer.finish();
    return text;
  })();
}

const failure = (promise: Promise<unknown>): Promise<UsageError> => rejected(UsageError, promise);

describe('comparisons, true and false', () => {
  it.each<[string, string]>([
    ['1 === 1', 'true'],
    ['1 === 2', 'false'],
    ['1 === "1"', 'false'],
    ['"a" !== "a"', 'false'],
    ['"a" !== "b"', 'true'],
    ['1 == "1"', 'true'],
    ['1 == "2"', 'false'],
    ['"2" == 2', 'true'],
    ['"3" == 2', 'false'],
    ['"a" == "a"', 'true'],
    ['"a" == "b"', 'false'],
    ['null == vars.unset', 'true'],
    ['vars.unset == null', 'true'],
    ['null == 0', 'false'],
    ['vars.unset == ""', 'false'],
    ['"" == null', 'false'],
    ['1 != "1"', 'false'],
    ['1 != 2', 'true'],
    ['null != vars.unset', 'false'],
    ['null != "x"', 'true'],
    ['true == "true"', 'false'],
    ['1 == (1 === 1)', 'false'],
    ['0 == (1 === 2)', 'false'],
    ['1 != (1 === 1)', 'true'],
    ['1 == [1]', 'false'],
    ['1 < 2', 'true'],
    ['2 < 2', 'false'],
    ['3 < 2', 'false'],
    ['2 <= 2', 'true'],
    ['3 <= 2', 'false'],
    ['1 <= 2', 'true'],
    ['2 > 2', 'false'],
    ['3 > 2', 'true'],
    ['1 > 2', 'false'],
    ['2 >= 2', 'true'],
    ['1 >= 2', 'false'],
    ['3 >= 2', 'true'],
    ['"10" < "9"', 'true'],
    ['"b" > "a"', 'true'],
    ['"a" > "b"', 'false'],
    ['!(1 === 1)', 'false'],
    ['!(1 === 2)', 'true'],
  ])('{{ %s }} renders %s', async (expression, expected) => {
    expect(await renderWith({}, `{{ ${expression} }}`)).toBe(expected);
  });

  it.each<[string, string]>([
    ['null < 1', '< compares numbers or strings only'],
    ['1 <= [1]', '<= compares numbers or strings only'],
    ['{ a: 1 } > 1', '> compares numbers or strings only'],
    ['true >= 1', '>= compares numbers or strings only'],
  ])('refuses {{ %s }}', async (expression, reason) => {
    const error = await failure(renderWith({}, `{{ ${expression} }}`));
    expect(error.message).toBe(`webAPIProviderConfig.headers.X: {{ ${expression} }}: ${reason}`);
  });

  it.each<[string, string]>([
    ['prod', 'prod-key-Qx1'],
    ['staging', 'staging-key-Zz2'],
    ['production', 'staging-key-Zz2'],
  ])('chooses by an env value, both ways: ENV=%s sends %s', async (value, expected) => {
    expect(await renderWith({ ENV: value }, '{{ env.ENV === "prod" ? "prod-key-Qx1" : "staging-key-Zz2" }}')).toBe(
      expected,
    );
    expect(await renderWith({ ENV: value }, '{{ env.ENV !== "prod" ? "staging-key-Zz2" : "prod-key-Qx1" }}')).toBe(
      expected,
    );
    expect(await renderWith({ ENV: value }, '{{ env.ENV == "prod" ? "prod-key-Qx1" : "staging-key-Zz2" }}')).toBe(
      expected,
    );
  });

  it.each<[string, string, string]>([
    ['a number in env against a number', '{{ env.N > 5 ? "many" : "few" }}', 'few'],
    ['a number in env against itself as text', '{{ env.N == 5 ? "five" : "other" }}', 'five'],
    ['a string order', '{{ env.N < "10" ? "before" : "after" }}', 'after'],
  ])('compares %s', async (_name, template, expected) => {
    expect(await renderWith({ N: '5' }, template)).toBe(expected);
  });
});

describe('a branch a secret chose', () => {
  // Two secrets, one on each side of every comparison below.
  const SECRETS = ['Alpha-S3cr3t-1', 'zulu-S3cr3t-22'];

  it.each<[string, string]>([
    ['one branch null', '{{ env.S > "m" ? "value-a" : null }}'],
    ['a string and a number', '{{ env.S > "m" ? "value-a" : 1234 }}'],
    ['a list and an object', '{{ json(env.S > "m" ? [1] : { a: 1 }) }}'],
    ['a list and a string', '{{ json(env.S > "m" ? [1] : "x") }}'],
    ['a boolean and a string', '{{ env.S > "m" ? true : "value-b" }}'],
    ['&& with a null right side', '{{ (env.S > "m") && null }}'],
    ['|| with a null right side', '{{ (env.S > "m") || null }}'],
    ['?? with a null right side', '{{ ({ a: "x" })[env.S > "m" ? "a" : "b"] ?? null }}'],
  ])('fails the same for either secret when it has %s', async (_name, template) => {
    for (const S of SECRETS) {
      const error = await failure(renderWith({ S }, template));
      expect(error.code).toBe('TEMPLATE_DECIDED');
      expect(error.message).toBe(DECIDED_FAILURE);
    }
  });

  it.each<[string, string, string]>([
    [
      'one branch missing',
      '{{ env.S > "m" ? "value-a" : vars.unset }}',
      'webAPIProviderConfig.headers.X: {{ env.S > "m" ? "value-a" : vars.unset }}: vars.unset is not set (pass --set unset=…, or give a default: vars.unset ?? "…")',
    ],
  ])('fails with one message for either secret when it has %s', async (_name, template, message) => {
    for (const S of SECRETS) expect((await failure(renderWith({ S }, template))).message).toBe(message);
  });

  it('fails a key that misses for one secret with the failure that names nothing (the one bit a run may tell)', async () => {
    const template = '{{ ({ a: "value-a" })[env.S > "m" ? "a" : "b"] }}';
    expect((await failure(renderWith({ S: SECRETS[0]! }, template))).message).toBe(DECIDED_FAILURE);
    expect(await renderWith({ S: SECRETS[1]! }, template)).toBe('value-a');
  });

  it.each<[string, string, [string, string]]>([
    ['two strings', '{{ env.S > "m" ? "value-a" : "value-b" }}', ['value-b', 'value-a']],
    ['two numbers', '{{ env.S > "m" ? 1 : 2 }}', ['2', '1']],
    ['two lists', '{{ json(env.S > "m" ? [1] : [2, 3]) }}', ['[2,3]', '[1]']],
    ['&& with a string', '{{ (env.S > "m") && "value-a" }}', ['false', 'value-a']],
    ['|| with a string', '{{ (env.S > "m") || "value-b" }}', ['value-b', 'true']],
    ['?? with a default', '{{ ({ a: "value-a" })[env.S > "m" ? "a" : "b"] ?? "value-b" }}', ['value-b', 'value-a']],
    ['a key of an object', '{{ ({ a: "value-a", b: "value-b" })[env.S > "m" ? "a" : "b"] }}', ['value-b', 'value-a']],
    ['!', '{{ !(env.S > "m") ? "value-a" : "value-b" }}', ['value-a', 'value-b']],
  ])('renders the branch it chose when both are usable: %s', async (_name, template, expected) => {
    expect([await renderWith({ S: SECRETS[0]! }, template), await renderWith({ S: SECRETS[1]! }, template)]).toEqual(
      expected,
    );
  });
});
