// The bounds of one pass over a config's templates, met by a config that stays under the per-value
// bound (1 MiB) everywhere: the total computed (16 MiB) and the steps taken (4 000 000, in
// bounds.perf.test.ts: the large inputs' tier). Without
// them, a config of many small fields could keep the plugin busy past --timeout. The steps are
// reached with long lists, which count a step per item: a config of many nodes takes ~15 s in
// process on a busy machine, too slow for this tier.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { rejected } from '../helpers/caught.js';

const renderer = (env: Record<string, string> = {}) =>
  new TemplateRenderer(
    { env, vars: {}, cluster: undefined, readFile: () => '', nowMs: () => 0, uuid: randomUUID },
    new Redactor(),
  );

/** The UsageError that `run` rejects with (test/helpers/caught.ts). */
const failure = (run: () => Promise<unknown>): Promise<UsageError> => rejected(UsageError, run());

describe('the bounds of a pass', () => {
  it('refuses fields that together compute more than 16 MiB, each value under 1 MiB', async () => {
    const lets: Array<[string, string]> = [['b0', `'${'x'.repeat(1000)}'`]];
    for (let i = 1; i <= 9; i++) lets.push([`b${i}`, `b${i - 1} + b${i - 1}`]);
    const few = renderer();
    await few.defineLets(lets);
    for (let i = 0; i < 4; i++) await few.render('{{ b9 + "z" }}', `webAPIProviderConfig.form.f${i}`);
    expect(() => few.finish()).not.toThrow();
    const error = await failure(async () => {
      const many = renderer();
      await many.defineLets(lets);
      for (let i = 0; i < 40; i++) await many.render('{{ b9 + "z" }}', `webAPIProviderConfig.form.f${i}`);
      many.finish();
    });
    expect(error.code).toBe('TEMPLATE_TOO_LARGE');
    expect(error.message).toMatch(
      /^webAPIProviderConfig\.form\.f\d+: \{\{ b9 \+ "z" \}\}: the templates compute more than 16 MiB in all$/,
    );
  });

  it('takes 16 MiB computed exactly, and refuses a value more', async () => {
    // Each let is 1 MiB exactly as JSON (its text and two quotes), the most one value may be.
    const env = { A: 'a'.repeat(1024 * 1024 - 2) };
    const lets: Array<[string, string]> = Array.from({ length: 16 }, (_, i) => [`v${i}`, 'env.A + ""']);
    const at = renderer(env);
    await at.defineLets(lets);
    expect(() => at.finish()).not.toThrow();
    const error = await failure(async () => {
      const over = renderer(env);
      await over.defineLets([...lets, ['w', '"a" + "b"']]);
      over.finish();
    });
    expect(error.code).toBe('TEMPLATE_TOO_LARGE');
    expect(error.message).toBe(
      'webAPIProviderConfig.let.w: {{ "a" + "b" }}: the templates compute more than 16 MiB in all',
    );
  });

  // The steps taken (4 000 000 exactly): test/template/bounds.perf.test.ts, on lists of a million items.

  // A JSON answer of objects, lists, numbers, booleans and nulls, padded to an exact length.
  function jsonOfLength(length: number): string {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ k: `v${i}`, l: [i, true, null] }));
    const bare = JSON.stringify({ a: items, b: '' });
    return JSON.stringify({ a: items, b: 'p'.repeat(length - bare.length) });
  }

  it('measures a value as its JSON: 1 MiB exactly is taken, one character more refused', async () => {
    const at = renderer({ X: jsonOfLength(1024 * 1024) });
    expect((await at.render('{{ fromJson(env.X).a[1].k }}', 'webAPIProviderConfig.headers.X')).sent).toBe('v1');
    expect(() => at.finish()).not.toThrow();
    const error = await failure(async () => {
      const over = renderer({ X: jsonOfLength(1024 * 1024 + 1) });
      await over.render('{{ fromJson(env.X).a[1].k }}', 'webAPIProviderConfig.headers.X');
      over.finish();
    });
    expect(error.code).toBe('TEMPLATE_TOO_LARGE');
    expect(error.message).toBe(
      'webAPIProviderConfig.headers.X: {{ fromJson(env.X).a[1].k }}: the value exceeds 1 MiB (a template computes values of at most 1 MiB)',
    );
  });
});
