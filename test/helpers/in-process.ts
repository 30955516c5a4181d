// Runs the CLI's run() in this process, with the deps main.ts builds (real fs, clock, network) but
// stdout and stderr captured and a scratch HOME. Tables of hundreds of cases then cost milliseconds
// each instead of a Node start-up; test/catalogue/cli-parity.process.test.ts shows the child process says the same.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/program.js';
import { realDeps } from '../../src/main.js';
import type { CliDeps } from '../../src/cli/deps.js';
import type { CliResult } from './cli.js';

const home = mkdtempSync(join(tmpdir(), 'webapi-credential-home-'));

/** The same minimal environment as runCli(): PATH and HOME (a scratch one), plus what the test sets. */
function minimalEnv(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, ...extra };
}

export interface InProcessOptions {
  env?: Record<string, string | undefined>;
  /** The clock, when a test needs one that moves (the real one by default). */
  now?: () => number;
  /** Sees every stderr write as it happens, e.g. to act on a --verbose trace line. */
  onStderr?: (text: string) => void;
  /** The home directory the program sees (~/.kube/…, the cache's default): a scratch one by default. */
  homedir?: string;
  /**
   * The login's waits (a device grant's poll interval): ended at once when a test's server answers the
   * first poll, so that a table of logins costs no second per case. Real ones by default.
   */
  loginSleep?: (ms: number) => Promise<void>;
  /** Wraps the file system the program's writers use (the cache, kubeconfig and kuberc), to make one of its calls fail. */
  fs?: (real: CliDeps['cache']['fs']) => CliDeps['cache']['fs'];
}

export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  // Made for each run, as each process makes its own (a fresh redactor among them).
  const real = realDeps();
  const code = await run(args, {
    ...real,
    env: minimalEnv(options.env),
    stdout: (text) => void (stdout += text),
    stderr: (text) => {
      stderr += text;
      options.onStderr?.(text);
    },
    ...(options.now ? { now: options.now } : {}),
    ...(options.loginSleep ? { login: { ...real.login!, sleep: options.loginSleep } } : {}),
    // What the built CLI says (package.json's version), so that its output and this one compare equal.
    version: '0.1.0',
    cache: {
      ...real.cache,
      homedir: options.homedir ?? home,
      ...(options.fs ? { fs: options.fs(real.cache.fs) } : {}),
    },
  });
  return { code, stdout, stderr };
}
