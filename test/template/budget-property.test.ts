// Whatever graph of lets a config builds, sharing values, doubling them, nesting them, deciding them
// by a secret, an evaluation ends with a request or a config error (exit 2, never 1), and nothing shown
// spells the secret. What makes it end is the step budget (src/template/evaluate-value.ts, 4 000 000
// steps, pinned exactly by test/template/bounds.perf.test.ts) and the 16 MiB bound on a value: a graph that
// slipped past them would double 64 times and not end before the test's timeout.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { TemplateRenderer } from '../../src/template/renderer.js';
import { runInProcess } from '../helpers/in-process.js';

const S = 'Hunter2-S3cr3t!';

/** One let's expression over the names before it (`a` and `b` stand for two of them). */
const OPERATIONS = [
  (a: string, b: string) => `[${a}, ${b}]`,
  (a: string, b: string) => `{ k: ${a}, j: ${b} }`,
  (a: string, b: string) => `${a} + ${b}`,
  (a: string) => `json(${a})`,
  (a: string) => `json(${a}) + json(${a})`,
  (a: string, b: string) => `${a} == ${b} ? ${a} : ${b}`,
  (a: string) => `json(${a}) >= "m" ? "x" : "y"`,
  (a: string, b: string) => `${a} ?? ${b}`,
  (a: string, b: string) => `${a} || ${b}`,
  (a: string) => `!${a}`,
  (a: string) => `base64(json(${a}))`,
  (a: string) => `fromJson(json(${a}))`,
  (a: string) => `upper(json(${a}))`,
  (a: string) => `{ x: "1", y: "2" }[json(${a}) > "m" ? "x" : "y"]`,
  (a: string) => `[${a}][0]`,
  (a: string, b: string) => `json([${a}, ${b}, ${a}, ${b}])`,
];

const graph = fc.integer({ min: 1, max: 64 }).chain((size) =>
  fc
    .array(fc.tuple(fc.nat(OPERATIONS.length - 1), fc.nat(), fc.nat()), { minLength: size, maxLength: size })
    .map((steps) => {
      const names = ['env.S', '"lit"'];
      const lets: Array<[string, string]> = [];
      for (const [op, i, j] of steps) {
        const name = `a${lets.length}`;
        // Mostly the newest names: chains that double, as an attacker would write them.
        const pick = (n: number) => names[Math.max(0, names.length - 1 - (n % 3))]!;
        lets.push([name, OPERATIONS[op]!(pick(i), pick(j))]);
        names.push(name);
      }
      return lets;
    }),
);

function renderer(redactor: Redactor): TemplateRenderer {
  return new TemplateRenderer(
    { env: { S }, vars: {}, cluster: undefined, readFile: () => '', nowMs: Date.now, uuid: randomUUID },
    redactor,
  );
}

describe('any graph of lets', () => {
  it('ends with a request or exit 2, showing no secret', async () => {
    await fc.assert(
      fc.asyncProperty(graph, async (lets) => {
        const redactor = new Redactor();
        const templates = renderer(redactor);
        const last = lets[lets.length - 1]![0];
        const shown: string[] = [];
        try {
          await templates.defineLets(lets);
          templates.setSteps('placeholders');
          // What is shown where it differs from what is sent (a short secret as [REDACTED]).
          const differs = (field: { sent: string; shown: string }) => (field.shown !== field.sent ? field.shown : '');
          shown.push(
            differs(
              await templates.render(
                `https://example.invalid/p?q={{ json(${last}) }}&b={{ !${last} }}`,
                'webAPIProviderConfig.url',
                'url',
              ),
            ),
          );
          shown.push(differs(await templates.render(`{{ json(${last}) }}`, 'webAPIProviderConfig.headers.X')));
          templates.finish();
        } catch (error) {
          expect(exitCodeFor(error)).toBe(2);
          shown.push((error as Error).message);
        }
        for (const text of shown) {
          const printed = redactor.redact(text);
          expect(printed).not.toContain(S);
          expect(printed.split('\n')).toHaveLength(1);
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('as a config, validate ends with exit 0 or 2', async () => {
    await fc.assert(
      fc.asyncProperty(graph, async (lets) => {
        const last = lets[lets.length - 1]![0];
        const config = {
          webAPIProviderConfig: {
            let: Object.fromEntries(lets),
            method: 'GET',
            url: `https://example.invalid/?q={{ json(${last}) }}`,
            tokenPath: '$.t',
          },
        };
        const result = await runInProcess(['validate', '--config-inline', JSON.stringify(config)], { env: { S } });
        expect([0, 2]).toContain(result.code);
        expect(result.stdout + result.stderr).not.toContain(S);
      }),
      { numRuns: 12 },
    );
  }, 120_000);
});
