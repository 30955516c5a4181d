// The reproductions of quadratic config checks, as the CLI runs them: each was a config of a
// few hundred kilobytes that `validate` took a minute over (10 700 invalid steps: 62 s; 20 000 lets:
// 32 s; 21 422 valid steps: 2.9 s and 2 GB). Each now ends in well under a second; the deadline
// here is generous, as on a loaded machine (test/config/checks-scale.test.ts is the property).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { PREFIX } from '../helpers/integration.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-large-'));
const DEADLINE_MS = 15_000;
const base = { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.t' };

function configFile(name: string, provider: Record<string, unknown>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ webAPIProviderConfig: { ...base, ...provider } }));
  return path;
}

async function validate(path: string) {
  const started = Date.now();
  const result = await runInProcess(['validate', '--config', path]);
  return { result, ms: Date.now() - started };
}

describe('configs of many items are checked in time', () => {
  it('10 700 invalid steps: exit 2, the first 100 problems named and the rest counted, one line', async () => {
    const path = configFile('invalid-steps.json', { steps: Array.from({ length: 10_700 }, (_, i) => ({ name: `s${i}`, url: 'ftp://x' })) });
    const { result, ms } = await validate(path);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(`${PREFIX}config from --config ${path} is invalid: webAPIProviderConfig.steps[0].method: is required; `)).toBe(true);
    expect(result.stderr.endsWith('; and 21300 more problems\n')).toBe(true);
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(ms).toBeLessThan(DEADLINE_MS);
  });

  it('20 000 lets, each reading the one before: exit 0', async () => {
    const path = configFile('lets.json', { let: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`l${i}`, i > 0 ? `l${i - 1}` : '"a"'])), url: 'https://127.0.0.1:9/{{ l19999 }}' });
    const { result, ms } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toBe(`config from --config ${path} is valid: POST https://127.0.0.1:9/a\n`);
    expect(ms).toBeLessThan(DEADLINE_MS);
  });

  it('20 000 lets naming unknown names: exit 2, and each message lists a dozen names, not every let', async () => {
    const path = configFile('unknown-lets.json', { let: Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`l${i}`, `zz${i}`])) });
    const { result, ms } = await validate(path);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('webAPIProviderConfig.let.l1: {{ zz1 }}: unknown name zz1; a template reads env, vars, cluster, steps, l0 and calls the helpers');
    expect(result.stderr).toContain('webAPIProviderConfig.let.l99: {{ zz99 }}: unknown name zz99; a template reads env, vars, cluster, steps, l0, l1, l2, l3, l4, l5, l6, l7 and 91 more and calls the helpers');
    expect(result.stderr.length).toBeLessThan(100_000);
    expect(ms).toBeLessThan(DEADLINE_MS);
  });

  it('21 422 valid steps: exit 0', async () => {
    const name = (i: number) => `a${i.toString(36)}`;
    const steps = Array.from({ length: 21_422 }, (_, i) => ({ name: name(i), method: 'GET', url: 'https://a' }));
    const path = configFile('steps.json', { steps });
    const { result, ms } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.endsWith(`then steps.${name(21_421)} GET https://a/, then POST https://127.0.0.1:9/token\n`)).toBe(true);
    expect(ms).toBeLessThan(DEADLINE_MS);
  });

  it('a template naming a step that is not there, after 8 000 steps: the message names ten of them', async () => {
    const steps = Array.from({ length: 8_000 }, (_, i) => ({ name: `s${i}`, method: 'GET', url: 'https://a/' }));
    const path = configFile('unknown-step.json', { steps, url: 'https://a/{{ steps.nope.v }}' });
    const { result, ms } = await validate(path);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}config from --config ${path} is invalid: webAPIProviderConfig.url: {{ steps.nope.v }}: steps.nope is not a step; the steps before it are s0, s1, s2, s3, s4, s5, s6, s7, s8, s9 and 7990 more\n`,
    });
    expect(ms).toBeLessThan(DEADLINE_MS);
  });
});
