// Runs the CLI's run() in this process, with the deps main.ts would build (real fs, clock, network)
// but stdout and stderr captured. Tables of hundreds of cases then cost milliseconds each instead of
// a Node start-up; test/catalogue/cli-parity.test.ts shows the child process says the same.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { readBoundedFile } from '../../src/read-file.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../src/cli/program.js';
import { Redactor } from '../../src/redact/redactor.js';
import { send } from '../../src/request/http.js';
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
}

export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: minimalEnv(options.env),
    readFile: readBoundedFile,
    stdout: (text) => void (stdout += text),
    stderr: (text) => {
      stderr += text;
      options.onStderr?.(text);
    },
    now: options.now ?? Date.now,
    random: Math.random,
    uuid: randomUUID,
    send,
    version: '0.1.0',
    redactor: new Redactor(),
    cache: {
      fs,
      homedir: home,
      pid: process.pid,
      alive: () => true,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      unique: () => `${process.pid}-${Math.random().toString(36).slice(2)}`,
      randomBytes: () => randomBytes(32),
      ...(process.getuid ? { uid: process.getuid() } : {}),
    },
  });
  return { code, stdout, stderr };
}
