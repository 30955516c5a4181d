// The reproductions of quadratic config checks, as the CLI runs them (the perf tier): each was a
// config of a few hundred kilobytes that `validate` took a minute over (10 700 invalid steps: 62 s;
// 20 000 lets: 32 s; 21 422 valid steps: 2.9 s and 2 GB). Each is checked at its size, and timed at a
// quarter of it against a sixteenth: the time may grow about linearly, not as the square (test/helpers/growth.ts).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectLinear } from '../helpers/growth.js';
import { runInProcess } from '../helpers/in-process.js';
import { PREFIX } from '../helpers/integration.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-large-'));
const base = { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t' };

function configFile(name: string, provider: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ webAPIProviderConfig: { ...base, ...provider } }));
  return path;
}

async function validate(path: string) {
  return { result: await runInProcess(['validate', '--config', path]) };
}

/**
 * Expects `validate` of the configs `make(n)` to take about linear time from a quarter of `count` items
 * to all of them, the median of five runs each: at a sixteenth a run took 10 to 20 ms, where one pause
 * of a busy machine (CI, 2 cores) made the ratio (164.7 ms against 17.6 ms once, 3 times that quiet).
 */
async function linear(
  name: string,
  count: number,
  make: (n: number) => Record<string, unknown>,
  code: number,
): Promise<void> {
  await expectLinear(
    async (n) => expect((await validate(configFile(`${name}-${n}.json`, make(n)))).result.code).toBe(code),
    Math.round(count / 4),
    { runs: 5 },
  );
}

describe('configs of many items are checked in time', () => {
  it('10 700 invalid steps: exit 2, the first 100 problems named and the rest counted, one line', async () => {
    const make = (n: number) => ({ steps: Array.from({ length: n }, (_, i) => ({ name: `s${i}`, url: 'ftp://x' })) });
    const path = configFile('invalid-steps.json', make(10_700));
    const { result } = await validate(path);
    expect(result.code).toBe(2);
    expect(
      result.stderr.startsWith(
        `${PREFIX}config from --config ${path} is invalid: webAPIProviderConfig.steps[0].method: is required; `,
      ),
    ).toBe(true);
    expect(result.stderr.endsWith('; and 21300 more problems\n')).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
    await linear('invalid-steps', 10_700, make, 2);
  });

  it('20 000 lets, each reading the one before: exit 0', async () => {
    const make = (n: number) => ({
      let: Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, i > 0 ? `l${i - 1}` : '"a"'])),
      url: `https://127.0.0.1:9/{{ l${n - 1} }}`,
    });
    const path = configFile('lets.json', make(20_000));
    const { result } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`config from --config ${path} is valid: POST https://127.0.0.1:9/a\n`);
    await linear('lets', 20_000, make, 0);
  });

  it('20 000 lets naming unknown names: exit 2, and each message lists a dozen names, not every let', async () => {
    const make = (n: number) => ({ let: Object.fromEntries(Array.from({ length: n }, (_, i) => [`l${i}`, `zz${i}`])) });
    const path = configFile('unknown-lets.json', make(20_000));
    const { result } = await validate(path);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webAPIProviderConfig.let.l1: {{ zz1 }}: unknown name zz1; a template reads env, vars, cluster, steps, l0 and calls the helpers',
    );
    expect(result.stderr).toContain(
      'webAPIProviderConfig.let.l99: {{ zz99 }}: unknown name zz99; a template reads env, vars, cluster, steps, l0, l1, l2, l3, l4, l5, l6, l7 and 91 more and calls the helpers',
    );
    expect(result.stderr.length).toBeLessThan(100_000);
    await linear('unknown-lets', 20_000, make, 2);
  });

  it('21 422 valid steps: exit 0', async () => {
    const name = (i: number) => `a${i.toString(36)}`;
    const make = (n: number) => ({
      steps: Array.from({ length: n }, (_, i) => ({ name: name(i), method: 'GET', url: 'https://a' })),
    });
    const path = configFile('steps.json', make(21_422));
    const { result } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(
      result.stdout.endsWith(`then steps.${name(21_421)} GET https://a/, then POST https://127.0.0.1:9/token\n`),
    ).toBe(true);
    await linear('steps', 21_422, make, 0);
  });

  it('a template naming a step that is not there, after 8 000 steps: the message names ten of them', async () => {
    const make = (n: number) => ({
      steps: Array.from({ length: n }, (_, i) => ({ name: `s${i}`, method: 'GET', url: 'https://a/' })),
      url: 'https://a/{{ steps.nope.v }}',
    });
    const path = configFile('unknown-step.json', make(8_000));
    const { result } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}config from --config ${path} is invalid: webAPIProviderConfig.url: {{ steps.nope.v }}: steps.nope is not a step; the steps before it are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 7990 more\n`,
    });
    await linear('unknown-step', 8_000, make, 2);
  });
});
