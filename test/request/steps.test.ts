// A step's answer is a secret in every value: strings at any depth, numbers and booleans as their
// JSON text; taking it in ends with the deadline.
import { describe, expect, it } from 'vitest';
import { RequestError } from '../../src/errors.js';
import type { StepConfig } from '../../src/config/schema.js';
import { Redactor } from '../../src/redact/redactor.js';
import type { RenderedRequest } from '../../src/request/build.js';
import { runSteps, type StepDeps } from '../../src/request/steps.js';
import type { TemplateRenderer } from '../../src/template/renderer.js';

const step = { name: 'login' } as StepConfig;

function stepDeps(answer: unknown, expired = () => false): StepDeps & { redactor: Redactor } {
  return {
    renderer: { setSteps: () => {} } as unknown as TemplateRenderer,
    render: async () => ({}) as RenderedRequest,
    call: async () => answer,
    redactor: new Redactor(),
    trace: () => {},
    expired,
  };
}

/** `value` inside `depth` arrays. */
function nested(value: unknown, depth: number): unknown {
  let out = value;
  for (let i = 0; i < depth; i++) out = [out];
  return out;
}

describe("a step's answer", () => {
  it('registers a string at any depth: 100 000 arrays deep, past any stack', async () => {
    // Built the way the HTTP client builds it: JSON.parse of the answer's text.
    const answer = JSON.parse(
      `{"a":${'['.repeat(100_000)}"deep-secret-Lq2"${']'.repeat(100_000)},"b":${JSON.stringify(nested('mid-secret-Rw8', 64))}}`,
    ) as unknown;
    const deps = stepDeps(answer);
    await runSteps([step], deps);
    expect(deps.redactor.redact('deep-secret-Lq2 / mid-secret-Rw8')).toBe('[REDACTED] / [REDACTED]');
  });

  it('registers numbers and booleans by their JSON text, and keeps values too short to hide', async () => {
    const deps = stepDeps({ pin: 987654321, ratio: 0.12345, ok: false, on: true, n: 42, x: null });
    await runSteps([step], deps);
    expect(deps.redactor.redact('pin 987654321, ratio 0.12345, ok false, on true, n 42, x null')).toBe(
      'pin [REDACTED], ratio [REDACTED], ok [REDACTED], on [REDACTED], n 42, x null',
    );
  });

  it('stops taking in an answer of many values when the deadline passes: exit 3 naming the step', async () => {
    const deps = stepDeps({ items: Array.from({ length: 50_000 }, (_, i) => `item-${i}`) }, () => true);
    const failure = await runSteps([step], deps).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RequestError);
    expect((failure as RequestError).message).toBe(
      'steps.login: its answer could not be taken in within the whole-call deadline (--timeout)',
    );
    expect((failure as RequestError).exitCode).toBe(3);
  });
});
