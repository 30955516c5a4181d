// `npm test`: the binary first (the process tier runs it), then the type check and the lint beside
// vitest rather than before it. They are 37 s of CPU, and vitest leaves a core idle while one of its
// files waits on a token's expiry; one after the other they held the suite back 25 s on two cores.
// Their output is kept and shown when one fails, which stops the suite: a type error ends `npm test`
// as it did before, without the suite's minutes. Arguments go to vitest (`npm test -- test/cli`).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * vitest.config.ts's projects that npm test runs: all but the perf tier (`npm run test:perf`) and the
 * release tier (`npm run test:release`), which .ci/run runs after it (test/tiers.ts says why;
 * test/tiers.test.ts holds every project to one of the three commands).
 */
const NPM_TEST_PROJECTS = ['unit', 'bin', 'binary'];
const node = process.execPath;
// Set by npm for the scripts it runs: its own CLI, so that no shell (nor npm.cmd) is needed.
const npm = process.env.npm_execpath;

// vitest leads a process group of its own (not on Windows, which has none), so that stopping it stops its
// workers and what their tests started: a SIGTERM to vitest alone ends it and leaves its forks to
// finish their current tests, for a minute or more after npm test has exited.
const GROUPS = process.platform !== 'win32';

function run(args, { quiet = false, group = false } = {}) {
  const child = spawn(node, args, {
    cwd: root,
    // A group of its own is not the terminal's foreground one: vitest run reads no input, so it gets none.
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : group ? ['ignore', 'inherit', 'inherit'] : 'inherit',
    detached: group && GROUPS,
  });
  const output = [];
  if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
  const exited = new Promise((resolve) => child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0))));
  return { child, exited, output: () => Buffer.concat(output).toString() };
}

if (!npm) throw new Error('run the suite with npm test (npm_execpath is not set)');
if ((await run([npm, 'run', 'build:binary', '--silent']).exited) !== 0) process.exit(1);

const vitest = run(
  [
    'node_modules/vitest/vitest.mjs',
    'run',
    ...NPM_TEST_PROJECTS.flatMap((project) => ['--project', project]),
    ...process.argv.slice(2),
  ],
  { group: true },
);
let interrupted = false;
function stopSuite() {
  try {
    if (GROUPS) process.kill(-vitest.child.pid, 'SIGTERM');
    else vitest.child.kill();
  } catch {
    // Gone already.
  }
}
// Ctrl-C reaches the terminal's foreground group, which vitest's group is not: passed on.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    stopSuite();
  });
}
// Incremental: a run after a change checks what the change touched (tsc's state under node_modules/.cache).
const tsc = ['--noEmit', '--incremental', '--tsBuildInfoFile', 'node_modules/.cache/tsc/tsbuildinfo'];
const checks = [
  ['tsc --noEmit', run(['node_modules/typescript/bin/tsc', ...tsc], { quiet: true })],
  ['npm run lint', run([npm, 'run', 'lint', '--silent'], { quiet: true })],
];
const failed = (
  await Promise.all(checks.map(async ([name, check]) => ((await check.exited) === 0 ? undefined : [name, check])))
).filter((entry) => entry !== undefined);
if (failed.length > 0) stopSuite();
const suite = await vitest.exited;
if (interrupted) process.exit(130);
for (const [name, check] of failed) process.stderr.write(`\n${name} failed:\n${check.output()}`);
process.exit(failed.length > 0 || suite !== 0 ? 1 : 0);
