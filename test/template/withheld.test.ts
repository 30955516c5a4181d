// What `validate` and `render` show (withholdDecided): a value a secret decided is withheld, the same
// placeholder whatever the secret holds, so the output of a dry run tells nothing of the secret.
// And some misses an author meets, each named as it is.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

function renderer(env: Record<string, string>, withholdDecided: boolean) {
  return new TemplateRenderer(
    {
      env,
      vars: {},
      cluster: undefined,
      readFile: () => '',
      nowMs: () => 0,
      uuid: () => '00000000-0000-4000-8000-000000000000',
      withholdDecided,
    },
    new Redactor(),
  );
}

/** The UsageError that `run` rejects with (test/helpers/caught.ts). */
const failure = (run: () => Promise<unknown>): Promise<UsageError> => rejected(UsageError, run());

describe('validate and render withhold what a secret decided', () => {
  it.each([
    'env.S > "m" ? "a" : "b"',
    '(env.S > "m") && "yes"',
    '(env.S > "m") || "no"',
    '{ a: 1, b: 2 }[env.S > "m" ? "a" : "b"]',
    '{ a: 1 }[env.S > "m" ? "a" : "zz"]',
    'env.S === "x"',
  ])('{{ %s }} shows the same placeholder for every secret', async (expression) => {
    for (const S of ['zulu-S3cr3t-22', 'Alpha-S3cr3t-1']) {
      const r = renderer({ S }, true);
      const field = await r.render(`{{ ${expression} }}`, 'webAPIProviderConfig.headers.X');
      r.finish();
      expect(field.sent).toBe('[a secret decides]');
      expect(field.shown).toBe('[REDACTED]');
      expect(field.read.withheld).toBe(true);
    }
  });

  it('a run reads a null out of secret JSON, and its default', async () => {
    const r = renderer({ CFG: '{"n": null, "o": {"p": null}}' }, false);
    expect((await r.render('{{ fromJson(env.CFG).n ?? "none-given" }}', 'webAPIProviderConfig.headers.X')).sent).toBe(
      'none-given',
    );
    expect((await r.render('{{ fromJson(env.CFG).o.p ?? "none-given" }}', 'webAPIProviderConfig.headers.Y')).sent).toBe(
      'none-given',
    );
    r.finish();
  });

  it('a run computes the value (no placeholder is sent)', async () => {
    const r = renderer({ S: 'zulu-S3cr3t-22' }, false);
    const field = await r.render('{{ (env.S > "m") && "yes" }}', 'webAPIProviderConfig.headers.X');
    r.finish();
    expect(field.sent).toBe('yes');
  });
});

describe('misses, named as they are', () => {
  const run = (template: string, env: Record<string, string> = {}, lets: Array<[string, string]> = []) =>
    failure(async () => {
      const r = renderer(env, false);
      await r.defineLets(lets);
      await r.render(template, 'webAPIProviderConfig.headers.X');
      r.finish();
    });

  it.each<[string, string]>([
    ['{{ fromJson("{\\"a\\": null}").a.b }}', 'yields nothing'],
    ['{{ fromJson("{}").a.b }}', 'fromJson(…).a is not set'],
    [
      '{{ ("a" + vars.unset) === "ax" }}',
      'vars.unset is not set (pass --set unset=…, or give a default: vars.unset ?? "…")',
    ],
  ])('%s: %s', async (template, reason) => {
    expect((await run(template)).message).toBe(`webAPIProviderConfig.headers.X: ${template}: ${reason}`);
  });

  it('an env name a secret gives is not spelled out when it is unset, even when it reads as a name', async () => {
    const error = await run('{{ env[env.S] }}', { S: 'ZuluSecretName22' });
    expect(error.message).toBe(DECIDED_FAILURE);
  });

  it('a comparison of a secret, beside a miss, says nothing of the miss', async () => {
    const error = await run('{{ json([env.S > "m", fromJson("{}").x]) }}', { S: 'zulu-S3cr3t-22' });
    expect(error.message).toBe(DECIDED_FAILURE);
  });

  it('a let a secret decided, used beside a miss, says nothing of the miss', async () => {
    const error = await run('{{ c + fromJson("{}").x }}', { S: 'zulu-S3cr3t-22' }, [['c', 'env.S > "m" ? "x" : "y"']]);
    expect(error.message).toBe(DECIDED_FAILURE);
  });
});
