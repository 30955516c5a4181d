// The one driver for tests that play the person of a device login: a program (the plugin, or kubectl
// running it) as a child process, its output watched as it comes, prompt() waiting for the URL and the
// code the plugin shows. On pipes (startPlugin: stdout and stderr apart, no terminal) or under a
// pseudo-terminal (atTerminal: util-linux `script`, stdin, stdout and stderr one terminal, as for a
// person). Either is killed after a minute: a login that waits for ever must not hold the suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { baseEnv, cliCommand, type CliResult } from './cli.js';
import { actAsPerson } from './device-provider.js';
import { SCRIPT } from './tools.js';

const KILL_AFTER_MS = 60_000;

interface Driven<Result> {
  /** The process itself: a test presses Ctrl-C with child.kill('SIGINT'). */
  child: ChildProcess;
  prompt: () => Promise<{ url: string; code: string }>;
  done: Promise<Result>;
}

export type RunningLogin = Driven<CliResult>;
/** Under a terminal, what the program wrote to it, stdout and stderr as one, line ends as CR LF. */
export type TerminalRun = Driven<{ code: number | null; output: string }>;

/** Watches `child`: `shown()` is what holds the prompt so far; `end` makes the result once it closed. */
function drive<Result>(child: ChildProcess, shown: () => string, end: (code: number | null) => Result): Driven<Result> {
  const waiting: Array<() => void> = [];
  const wake = () => {
    for (const resolve of waiting.splice(0)) resolve();
  };
  child.stdout?.on('data', wake);
  child.stderr?.on('data', wake);
  const done = new Promise<Result>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin?.destroy();
      wake();
      resolve(end(code));
    });
  });
  const prompt = async (): Promise<{ url: string; code: string }> => {
    for (;;) {
      const found = /to log in, open (\S+)\r?\n.*the code (\S+) /.exec(shown());
      if (found) return { url: found[1]!, code: found[2]! };
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`ended without a prompt: ${shown()}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  return { child, prompt, done };
}

/** The plugin on pipes, with PATH, HOME and `env` (no terminal). */
export function startPlugin(args: string[], env: Record<string, string> = {}): RunningLogin {
  const [command, ...lead] = cliCommand();
  const child = spawn(command!, [...lead, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  // Collected before drive() wakes the prompt on the same chunk.
  child.stdout.prependListener('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.prependListener('data', (c: Buffer) => (stderr += c.toString()));
  return drive(
    child,
    () => stderr,
    (code) => ({ code, stdout, stderr }),
  );
}

/** `webapi-credential login` with `args`, approved by the person at the device provider's page (CA `ca`): exit 0, its result. */
export async function approvedLogin(args: string[], ca: string): Promise<CliResult> {
  const run = startPlugin(['login', ...args]);
  const { url, code } = await run.prompt();
  await actAsPerson(url, code, ca, 'approve');
  const result = await run.done;
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** `command` under a pseudo-terminal (SCRIPT; a suite using it is describeWith(SCRIPT)), with exactly `env`. */
export function atTerminal(command: string[], env: Record<string, string>): TerminalRun {
  const line = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn(SCRIPT.path!, ['-qfec', line, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.prependListener('data', (c: Buffer) => (output += c.toString()));
  child.stderr.prependListener('data', (c: Buffer) => (output += c.toString()));
  return drive(
    child,
    () => output,
    (code) => ({ code, output }),
  );
}

/** The CLI itself under a pseudo-terminal: stdin and stderr are terminals, no exec info. */
export function cliAtTerminal(args: string[], env: Record<string, string> = baseEnv({ TERM: 'dumb' })): TerminalRun {
  return atTerminal([...cliCommand(), ...args], env);
}
