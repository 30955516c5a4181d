// An unset env variable is named even where a secret chose a value beside it: which names are unset
// is no secret (validate lists them), and "env.UNSET is not set" is what the author needs to read.
// A value missing anywhere else after a secret chose says nothing of which or why.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

async function failure(template: string): Promise<UsageError> {
  const r = new TemplateRenderer(
    {
      env: { S: 'zulu-S3cr3t-22' },
      vars: {},
      cluster: undefined,
      readFile: () => '',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
    },
    new Redactor(),
  );
  try {
    await r.render(template, 'webAPIProviderConfig.headers.X');
    r.finish();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError, got none');
}

const UNSET = 'env.UNSET is not set (set it in the environment or the kubeconfig exec env)';

describe('a missing value beside a value a secret chose', () => {
  it.each([
    'json([env.S > "m" ? "a" : "b", env.UNSET])',
    'json({ a: env.S > "m" ? "a" : "b", b: env.UNSET })',
    'base64(env.S > "m" ? "a" : "b") + env.UNSET',
    '(env.S > "m" ? "a" : "b") + env.UNSET',
    'env.S > "m" ? env.UNSET : "b"',
    '(env.S > "m") && env.UNSET',
  ])('{{ %s }} names the unset variable', async (expression) => {
    const template = `{{ ${expression} }}`;
    expect((await failure(template)).message).toBe(`webAPIProviderConfig.headers.X: ${template}: ${UNSET}`);
  });

  it('{{ env.S > "m" ? fromJson("{}").x : "b" }} names neither the field nor the member', async () => {
    expect((await failure('{{ env.S > "m" ? fromJson("{}").x : "b" }}')).message).toBe(DECIDED_FAILURE);
  });

  it.each<[string, string]>([
    ['json([1, fromJson("{}").x])', 'fromJson(…).x is not set'],
    ['base64(fromJson("{}").x)', 'fromJson(…).x is not set'],
    ['base64(fromJson("null"))', 'base64() was given null'],
  ])('with no secret: {{ %s }} says %s', async (expression, reason) => {
    const template = `{{ ${expression} }}`;
    expect((await failure(template)).message).toBe(`webAPIProviderConfig.headers.X: ${template}: ${reason}`);
  });
});

describe('&& whose left a secret decided to be null or missing, in a run', () => {
  // Whether a secret's field is null is what it holds (README: a test of a secret null counts as a
  // comparison), and `&&` gives its left when it is falsy: the rule of both() is that neither side of
  // a secret's `&&` may be null, so the run fails with the one message that names nothing, rather
  // than send null (json()) or let a default after it (`?? "off"`) hide which value the field held.
  async function run(template: string, CFG: string) {
    const r = new TemplateRenderer(
      {
        env: { CFG },
        vars: {},
        cluster: undefined,
        readFile: () => '',
        nowMs: () => 0,
        uuid: () => '00000000-0000-4000-8000-000000000000',
      },
      new Redactor(),
    );
    const field = await r.render(template, 'webAPIProviderConfig.headers.X');
    r.finish();
    return field.sent;
  }

  it.each<[string, string]>([
    ['{{ json({ on: fromJson(env.CFG).flag && "yes" }) }}', '{"flag":null}'],
    ['{{ (fromJson(env.CFG).flag && "yes") ?? "off" }}', '{"flag":null}'],
    ['{{ (fromJson(env.CFG).flag && "yes") ?? "off" }}', '{}'],
  ])('%s with CFG=%s fails, naming nothing', async (template, CFG) => {
    const error = await rejected(UsageError, run(template, CFG));
    expect(error.message).toBe(DECIDED_FAILURE);
    expect(error.message).not.toContain('flag');
  });

  it('gives the right side when the left is true, and the left when it is false', async () => {
    expect(await run('{{ (fromJson(env.CFG).flag && "yes") ?? "off" }}', '{"flag":true}')).toBe('yes');
    expect(await run('{{ json({ on: fromJson(env.CFG).flag && "yes" }) }}', '{"flag":false}')).toBe('{"on":false}');
  });
});
