// Config checks end in bounded time on every shape the schema allows (SPEC "Network behaviour":
// every stage near-linear in its input; the perf tier). Configs of growing size up to ~1 MiB, of one
// shape each, made of valid and invalid items: `validate` ends with exit 0 or 2, and on each shape the
// time grows about linearly from 64 KiB to 256 KiB (test/helpers/growth.ts). Before, 10 700
// invalid steps took 62 s, 20 000 lets 32 s and 21 422 valid steps 2 GB; the bench
// (bench/config-checks.mjs) has the numbers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectLinear } from '../helpers/growth.js';
import { runInProcess } from '../helpers/in-process.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-checks-'));
const MAX_BYTES = 1024 * 1024 - 1024;

/** Items of each shape: [field, key, value] for maps, a step for steps; `i` makes names unique. */
type Item = (i: number) => { step: Record<string, unknown> } | { field: string; key: string; value: unknown };
const ITEMS: Record<string, Item[]> = {
  steps: [
    (i) => ({ step: { name: `s${i}`, method: 'GET', url: 'https://127.0.0.1:9/s' } }),
    (i) => ({ step: { name: `s${i}`, method: 'GET', url: `https://127.0.0.1:9/{{ steps.s${i - 1}.v }}` } }),
    (i) => ({ step: { name: `s${i}`, method: 'GET', url: `https://127.0.0.1:9/{{ steps.later${i}.v }}` } }),
    (i) => ({ step: { name: 's0', method: 'GET', url: 'ftp://x', bogus: i } }),
    (i) => ({ step: { nmae: `s${i}`, timeout: '0s', tls: { caFile: 'a', caData: 'b' } } }),
  ],
  let: [
    (i) => ({ field: 'let', key: `l${i}`, value: i > 0 ? `l${i - 1}` : '"a"' }),
    (i) => ({ field: 'let', key: `l${i}`, value: `env.E${i} ?? "d"` }),
    (i) => ({ field: 'let', key: `l${i}`, value: `unknown${i}` }),
    (i) => ({ field: 'let', key: `l${i}`, value: `env.E${i}` }),
    (i) => ({ field: 'let', key: `bad name ${i}`, value: '"x"' }),
  ],
  headers: [
    (i) => ({ field: 'headers', key: `X-H${i}`, value: '{{ vars.a ?? "v" }}' }),
    (i) => ({ field: 'headers', key: `x-h${i}`, value: '${TOKEN}' }),
    (i) => ({ field: 'headers', key: `bad header ${i}`, value: 'v' }),
    (i) => ({ field: 'headers', key: `X-N${i}`, value: `{{ nope${i} }}` }),
  ],
  query: [
    (i) => ({ field: 'query', key: `q${i}`, value: ['{{ vars.a ?? "v" }}', 'w'] }),
    (i) => ({ field: 'query', key: `q${i}`, value: [1, '{{'] }),
    (i) => ({ field: 'query', key: `q${i}`, value: `{{ steps.x${i} }}` }),
  ],
  form: [
    (i) => ({ field: 'form', key: `f${i}`, value: ['{{ vars.a ?? "v" }}', 'w'] }),
    (i) => ({ field: 'form', key: `f${i}`, value: `{{ env.F${i} }}` }),
  ],
  json: [
    (i) => ({ field: 'json', key: `j${i}`, value: { a: ['{{ vars.a ?? "v" }}', { b: 'w' }] } }),
    (i) => ({ field: 'json', key: `j${i}`, value: [[[[`{{ zz${i} }}`]]]] }),
  ],
  unknown: [
    (i) => ({ field: '', key: `tokenPat${i}`, value: 1 }),
    (i) => ({ field: '', key: `caFile${i}`, value: 'x' }),
  ],
};

/** A config of items drawn in turn from `pattern` until its JSON text is about `bytes` long. */
function config(shape: string, pattern: number[], bytes: number): string {
  const provider: Record<string, unknown> = { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t' };
  const items = ITEMS[shape]!;
  let size = JSON.stringify(provider).length + 30;
  for (let i = 0; size < bytes; i++) {
    const item = items[pattern[i % pattern.length]! % items.length]!(i);
    if ('step' in item) ((provider['steps'] ??= []) as unknown[]).push(item.step);
    else if (item.field === '') provider[item.key] = item.value;
    else ((provider[item.field] ??= {}) as Record<string, unknown>)[item.key] = item.value;
    size += JSON.stringify('step' in item ? item.step : { [item.key]: item.value }).length;
  }
  return JSON.stringify({ webAPIProviderConfig: provider });
}

describe('config checks on large configs', () => {
  it('validate ends with exit 0 or 2 on every shape, up to 1 MiB', { timeout: 300_000 }, async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(ITEMS)),
        fc.array(fc.nat(9), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1024, max: MAX_BYTES }),
        async (shape, pattern, bytes) => {
          const path = join(dir, `config-${n++}.json`);
          const text = config(shape, pattern, bytes);
          writeFileSync(path, text);
          const result = await runInProcess(['validate', '--config', path]);
          expect(
            [0, 2],
            `${shape} ${text.length} bytes: exit ${result.code}: ${result.stderr.slice(0, 300)}`,
          ).toContain(result.code);
          expect(result.stderr).not.toMatch(/internal error|RangeError|\n {4}at /);
        },
      ),
      // Sizes up to the bound, each shape many times: the largest cases are the ones that matter.
      {
        numRuns: 24,
        examples: Object.keys(ITEMS).map((shape) => [shape, [0, 1, 2, 3, 4], MAX_BYTES] as [string, number[], number]),
      },
    );
  });

  // From 64 KiB to 256 KiB: the quadratic checks were already 16 times slower there (the property above reads 1 MiB).
  it.each(Object.keys(ITEMS))('validate of %s items takes about linear time, from 64 KiB to 256 KiB', async (shape) => {
    let n = 0;
    await expectLinear(
      async (bytes) => {
        const path = join(dir, `linear-${shape}-${n++}.json`);
        writeFileSync(path, config(shape, [0, 1, 2, 3, 4], bytes));
        expect([0, 2]).toContain((await runInProcess(['validate', '--config', path])).code);
      },
      Math.round(MAX_BYTES / 16),
      { runs: 5 },
    );
  });
});
