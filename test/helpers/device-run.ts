// The plugin as a child process on pipes, its stderr watched as it comes, for tests that play the
// person of a device login: prompt() waits for the URL and the code the plugin shows.
import { spawn, type ChildProcess } from 'node:child_process';
import { baseEnv, cliCommand, type CliResult } from './cli.js';

export interface RunningLogin {
  /** The process itself: a test presses Ctrl-C with child.kill('SIGINT'). */
  child: ChildProcess;
  prompt: () => Promise<{ url: string; code: string }>;
  done: Promise<CliResult>;
}

export function startPlugin(args: string[], env: Record<string, string> = {}): RunningLogin {
  const [command, ...lead] = cliCommand();
  const child = spawn(command!, [...lead, ...args], { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiting: Array<() => void> = [];
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const wake of waiting.splice(0)) wake();
  });
  const done = new Promise<CliResult>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      for (const wake of waiting.splice(0)) wake();
      resolve({ code, stdout, stderr });
    });
  });
  const prompt = async (): Promise<{ url: string; code: string }> => {
    for (;;) {
      const found = /to log in, open (\S+)\n.*the code (\S+) /.exec(stderr);
      if (found) return { url: found[1]!, code: found[2]! };
      if (child.exitCode !== null) throw new Error(`the plugin ended without a prompt: ${stderr}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  return { child, prompt, done };
}
