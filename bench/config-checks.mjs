// The config checks' growth (SPEC "Network behaviour": a 1 MiB config is checked well inside a
// second, every stage near-linear in its input): `validate` of a config of each shape the schema
// allows, at 256 kB and at 1 MiB. A quadratic check shows as a ratio near 16, a linear one near 4
// (less, as the start-up is in both).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const BASE = { method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.access_token' };

/** One item of each shape, the i-th: what a generated config repeats until it is large. */
const SHAPES = {
  steps: (i) => ({
    steps: {
      name: `s${i}`,
      method: 'GET',
      url: i ? `https://127.0.0.1:9/s?p={{ steps.s${i - 1}.v }}` : 'https://127.0.0.1:9/s',
    },
  }),
  'invalid steps': (i) => ({ steps: { name: 's', method: 'GET', url: 'ftp://x', bogus: i } }),
  lets: (i) => ({ let: [`l${i}`, i ? `l${i - 1}` : '"a"'] }),
  'lets reading env': (i) => ({ let: [`l${i}`, `env.E${i} ?? "d"`] }),
  headers: (i) => ({ headers: [`X-H${i}`, '{{ vars.a ?? "v" }}'] }),
  'query lists': (i) => ({ query: [`q${i}`, ['{{ vars.a ?? "v" }}', 'w']] }),
  'form lists': (i) => ({ form: [`f${i}`, ['{{ vars.a ?? "v" }}', 'w']] }),
  'json body': (i) => ({ json: [`j${i}`, { a: ['{{ vars.a ?? "v" }}', { b: 'w' }] }] }),
  'unknown fields': (i) => ({ field: [`tokenPat${i}`, 1] }),
};

/** A config of `shape` whose JSON text is at most `bytes` long (and close to it). */
export function largeConfig(shape, bytes) {
  const item = SHAPES[shape];
  const build = (n) => {
    const provider = { ...BASE, ...(shape === 'json body' ? { method: 'POST' } : {}) };
    for (let i = 0; i < n; i++) {
      const [[field, value]] = Object.entries(item(i));
      if (field === 'steps') (provider.steps ??= []).push(value);
      else if (field === 'field') provider[value[0]] = value[1];
      else (provider[field] ??= {})[value[0]] = value[1];
    }
    return JSON.stringify({ webAPIProviderConfig: provider });
  };
  const one = (build(100).length - build(0).length) / 100;
  let n = Math.floor((bytes - build(0).length) / one);
  let text = build(n);
  while (text.length > bytes) text = build((n = Math.floor(n * 0.98)));
  return text;
}

/**
 * Median CPU time (user + system, GNU time; wall time where it is missing) of `validate` per shape
 * and size: rows for the bench's table. CPU time, as on a shared machine the wall time is mostly
 * the neighbours'.
 */
export function configCheckRows(command, dir, env, runs = 5) {
  const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
  const gnuTime = existsSync('/usr/bin/time');
  const time = (path) => {
    const args = [...command.slice(1), 'validate', '--config', path];
    const started = process.hrtime.bigint();
    const result = gnuTime
      ? spawnSync('/usr/bin/time', ['-f', '%U %S', command[0], ...args], { env, encoding: 'utf8' })
      : spawnSync(command[0], args, { env, encoding: 'utf8' });
    const wall = Number(process.hrtime.bigint() - started) / 1e6;
    if (result.status !== 0 && result.status !== 2)
      throw new Error(`validate ${path} ended with ${result.status}: ${result.stderr.slice(0, 300)}`);
    if (!gnuTime) return wall;
    const [user, system] = result.stderr.trim().split('\n').pop().split(' ').map(Number);
    return (user + system) * 1000;
  };
  const rows = [];
  for (const shape of Object.keys(SHAPES)) {
    const ms = {};
    for (const [size, bytes] of [
      ['256k', 256 * 1024],
      ['1M', 1024 * 1024],
    ]) {
      const path = join(dir, `checks-${shape.replace(/ /g, '-')}-${size}.json`);
      writeFileSync(path, largeConfig(shape, bytes));
      ms[size] = median(Array.from({ length: runs }, () => time(path)));
    }
    rows.push({ shape, ms256k: ms['256k'], ms1M: ms['1M'], ratio: ms['1M'] / ms['256k'], cpu: gnuTime });
  }
  return rows;
}
