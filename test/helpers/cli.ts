// Runs the real CLI as a child process: the bin script by default, or the single executable when
// WEBAPI_CREDENTIAL_BIN points at it. Returns exit code, stdout and stderr.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN_SCRIPT = `${ROOT}bin/webapi-credential.js`;
/**
 * The pinned Node 24, whatever Node runs vitest: `node_modules/.bin/vitest` started by hand runs on
 * the system Node (20), but the product is tested on the Node it ships with.
 */
export const PINNED_NODE = realpathSync(`${ROOT}node_modules/.bin/node`);

/** The command that runs the CLI: [executable, ...leading args]. */
export function cliCommand(): string[] {
  const binary = process.env['WEBAPI_CREDENTIAL_BIN'];
  return binary ? [binary] : [PINNED_NODE, BIN_SCRIPT];
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** The working directory of the CLI (the test's by default). */
  cwd?: string;
  input?: string;
  timeoutMs?: number;
}

/** A minimal environment: PATH and HOME only, plus what the test sets (as client-go would add). */
export function baseEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin',
    HOME: process.env['HOME'] ?? '/root',
  };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v;
  return env;
}

/**
 * When runCli gives up on a CLI that hangs: 20 s, or 10 s past a longer --timeout the call is given, or
 * past the default 30 s when it is given none (a plugin that keeps its --timeout ends by then however
 * busy the machine; 50 callers given 110 s were killed at 20 s at a load of 15, and a validate of a
 * 200 000-item literal at 20 s in a CI-like run beside other work).
 */
function killAfter(args: string[]): number {
  const given = /^(\d+)(ms|s|m)$/.exec(args[args.indexOf('--timeout') + 1] ?? '');
  const ms = given ? Number(given[1]) * { ms: 1, s: 1_000, m: 60_000 }[given[2] as 'ms' | 's' | 'm'] : 30_000;
  return Math.max(20_000, ms + 10_000);
}

export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  const [command, ...lead] = cliCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(command!, [...lead, ...args], {
      env: baseEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? killAfter(args));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    // The CLI reads no input unless told to: when it has exited before the (empty) input is written,
    // the write fails with EPIPE, which is no failure of the test.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Fails with a readable message when any of `secrets` occurs in stdout or stderr. */
export function leaks(result: CliResult, secrets: string[], allowInStdout: string[] = []): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    if (result.stderr.includes(secret)) found.push(`stderr contains ${JSON.stringify(secret)}`);
    if (!allowInStdout.includes(secret) && result.stdout.includes(secret))
      found.push(`stdout contains ${JSON.stringify(secret)}`);
  }
  return found;
}

/**
 * Runs any command with exactly `env` and no input; collects its exit code and output. Killed after
 * `killAfterMs` (a kubectl waiting on a plugin that never ends must not hold the suite).
 */
export function runCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
  killAfterMs = 15_000,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
