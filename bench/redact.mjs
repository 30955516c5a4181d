// Redaction against many secrets that share their first bytes (the strings of a step's answer):
// the time to make the forms and the automaton, and to redact a 1 MiB answer, for 1k, 10k and 100k
// secrets. Near-linear growth is what SPEC "Network behaviour" asks; bench/run.mjs adds these rows
// to its table, and `node bench/redact.mjs` prints them alone (no binary, no server needed).
import { build } from 'esbuild';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const MiB = 1 << 20;

/** The Redactor of src/, bundled on the fly: the bench runs no TypeScript loader. */
async function loadRedactor() {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-bench-redact-'));
  const outfile = join(dir, 'redactor.mjs');
  await build({
    entryPoints: [join(root, 'src', 'redact', 'redactor.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'warning',
  });
  const module = await import(pathToFileURL(outfile).href);
  rmSync(dir, { recursive: true, force: true });
  return module.Redactor;
}

const secret = (i) => `aaaa${String(i).padStart(6, '0')}`;
// Two answers of 1 MiB: one long near-match of every secret, and one that echoes the secrets themselves.
const texts = {
  "1 MiB of 'a'": 'a'.repeat(MiB),
  '1 MiB of echoed secrets': (() => {
    const parts = [];
    for (let i = 0, size = 0; size < MiB; i++, size += 13) parts.push(`"${secret(i % 1000)}",`);
    return parts.join('');
  })(),
};

// CPU time (user + system) of this process: on a shared machine, wall time measures the neighbours.
const cpu = () => process.cpuUsage();
const ms = (from) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e3;
};

function measure(Redactor, count) {
  const redactor = new Redactor();
  for (let i = 0; i < count; i++) redactor.add(secret(i));
  let started = cpu();
  // The first redaction adds the forms to the trie; links are made as scans reach nodes.
  redactor.redact('x');
  const built = ms(started);
  const times = [];
  for (const text of Object.values(texts)) {
    started = cpu();
    const out = redactor.redact(text);
    times.push(ms(started));
    if (out.includes(secret(0))) throw new Error('bench: a secret was not redacted');
  }
  return { count, forms: redactor.size, built, times };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** The rows of bench/run.mjs's table: medians of `rounds` runs, CPU time. */
export async function redactionRows(rounds = Number(process.env.BENCH_REDACT_RUNS ?? 5)) {
  const Redactor = await loadRedactor();
  // A first round warms the JIT up; its numbers are dropped.
  measure(Redactor, 1_000);
  const rows = [1_000, 10_000, 100_000].map((count) => {
    const runs = Array.from({ length: rounds }, () => measure(Redactor, count));
    return {
      count,
      forms: runs[0].forms,
      built: median(runs.map((r) => r.built)),
      times: runs[0].times.map((_, i) => median(runs.map((r) => r.times[i]))),
    };
  });
  const f = (value) => `${value.toFixed(0)} ms`;
  const names = Object.keys(texts);
  const random = Array.from({ length: rounds }, () => measureRandom(Redactor));
  const randomRow = `| redaction (CPU time), a 1 MiB step answer of 14 000 random strings (${random[0].forms.toLocaleString('en')} forms, nothing shared) | add the forms ${f(median(random.map((r) => r.built)))}; link and redact a 200-byte message ${f(median(random.map((r) => r.short)))}, an echo of every string (1 MiB) ${f(median(random.map((r) => r.echo)))} | | the whole run inside 1 s |`;
  return [
    ...rows.map(
      (r) =>
        `| redaction (CPU time), ${r.count.toLocaleString('en')} secrets sharing a prefix (${r.forms.toLocaleString('en')} forms) | add the forms ${f(r.built)}; link and redact ${names.map((name, i) => `${name} ${f(r.times[i])}`).join(', ')} | ${(r.built / rows[0].built).toFixed(1)} × / ${r.times.map((t, i) => (t / rows[0].times[i]).toFixed(1)).join(' × / ')} × the 1k row | a 1 MiB answer well inside 1 s |`,
    ),
    randomRow,
  ];
}

/** The answer that shares least: every form of every string is its own path of the trie. */
function measureRandom(Redactor) {
  const strings = Array.from({ length: 14_000 }, () => randomBytes(54).toString('base64'));
  const redactor = new Redactor();
  for (const s of strings) redactor.add(s);
  let started = cpu();
  redactor.redact('x');
  const built = ms(started);
  started = cpu();
  redactor.redact(`the token API answered 400: ${strings[7]} ${'x'.repeat(150)}`);
  const short = ms(started);
  started = cpu();
  const out = redactor.redact(strings.join(' '));
  const echo = ms(started);
  if (out.includes(strings[0])) throw new Error('bench: a secret was not redacted');
  return { forms: redactor.size, built, short, echo };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(
    ['| measure | median | ratio | target |', '| --- | --- | --- | --- |', ...(await redactionRows())].join('\n') +
      '\n',
  );
}
