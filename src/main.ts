// The composition root: the only module that touches process, the real file system and the clock.
import { readFileSync } from 'node:fs';
import { run } from './cli.js';
import { Redactor } from './redact.js';

declare const __VERSION__: string;

export async function main(): Promise<void> {
  process.exitCode = await run(process.argv.slice(2), {
    env: process.env,
    readFile: (path) => readFileSync(path, 'utf8'),
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    now: Date.now,
    random: Math.random,
    version: typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev',
    redactor: new Redactor(),
  });
}

void main();
