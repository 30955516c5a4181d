// The composition root: the only module that touches process, the real file system and the clock.
import fs from 'node:fs';
import { homedir } from 'node:os';
import { run } from './cli.js';
import { Redactor } from './redact.js';

declare const __VERSION__: string;

export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), {
    env: process.env,
    readFile: (path) => fs.readFileSync(path, 'utf8'),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    now: Date.now,
    random: Math.random,
    version: typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev',
    redactor: new Redactor(),
    cache: {
      fs,
      homedir: homedir(),
      pid: process.pid,
      alive: (pid) => {
        try {
          process.kill(pid, 0);
          return true;
        } catch (error) {
          // EPERM: it exists but belongs to someone else.
          return (error as NodeJS.ErrnoException).code === 'EPERM';
        }
      },
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      unique: () => `${process.pid}-${Math.random().toString(36).slice(2)}`,
    },
  });
}

void main();
