// The step bound of one pass over a config's templates (src/template/evaluate-value.ts), met exactly:
// 4 000 000 steps taken, one more refused, counted with lists of a million items (the perf tier: the
// large inputs; test/template/bounds.test.ts has the other bounds). The steps are reached with long
// lists, which count a step per item: a config of many nodes takes ~15 s in process on a busy machine.
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
  it('takes 4 000 000 steps exactly, and refuses one more', async () => {
    // fromJson(env.X) of a list of n items is 2n + 5 steps: three nodes, and the list measured (each
    // item and the list itself counted as it is listed, then as it is measured). 3 × 1 000 005 +
    // 999 985 = 4 000 000; a let of a literal is one step more.
    const list = (n: number) => `[${'0,'.repeat(n - 1)}0]`;
    const env = { L: list(500_000), M: list(499_990) };
    const lets: Array<[string, string]> = [
      ['a', 'fromJson(env.L)'],
      ['b', 'fromJson(env.L)'],
      ['c', 'fromJson(env.L)'],
      ['d', 'fromJson(env.M)'],
    ];
    const at = renderer(env);
    await at.defineLets(lets);
    expect(() => at.finish()).not.toThrow();
    const error = await failure(async () => {
      const over = renderer(env);
      await over.defineLets([...lets, ['e', '1']]);
      over.finish();
    });
    expect(error.code).toBe('TEMPLATE_TOO_LARGE');
    expect(error.message).toBe(
      'webAPIProviderConfig.let.e: {{ 1 }}: the templates take more than 4000000 steps to evaluate',
    );
  });
});
