// The unit tier runs no process (test/tiers.ts): in its workers, a call that would start one fails
// the test that made it, naming the rule. openssl alone may run: test/helpers/pki.ts makes the test
// certificates with it (a fixture, not the product). test/tiers.test.ts checks the imports before this.
import { createRequire, syncBuiltinESMExports } from 'node:module';

const FIXTURE_TOOLS = new Set(['openssl']);
const childProcess = createRequire(import.meta.url)('node:child_process') as Record<string, unknown>;

// The unit tier shares its workers between files (vitest.config.ts, isolate: false): wrapped once per worker.
const WRAPPED = Symbol.for('webapi-credential.unit-tier.child-process');
const names = (childProcess as Record<symbol, unknown>)[WRAPPED]
  ? []
  : ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'];
(childProcess as Record<symbol, unknown>)[WRAPPED] = true;
for (const name of names) {
  const real = childProcess[name] as (...args: unknown[]) => unknown;
  childProcess[name] = function (this: unknown, command: unknown, ...rest: unknown[]) {
    // exec and execSync take a shell line: its first word is the program.
    const program = String(command).trim().split(/\s+/)[0] ?? '';
    if (name !== 'fork' && FIXTURE_TOOLS.has(program)) return real.call(this, command, ...rest);
    throw new Error(
      `a unit-tier test ran ${name}(${program}): a test that starts a process is named *.process.test.ts or lives in a process folder (test/tiers.ts)`,
    );
  };
}
// The ES module namespace of node:child_process takes the replaced functions too.
syncBuiltinESMExports();
