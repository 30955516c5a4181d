// The composition root: the only module that touches process, the real file system and the clock.
// A cached credential is served by cli/fast-path.ts without loading the rest (cli/program.ts and everything
// behind it), which is most of the start-up time of a plugin kubectl runs on every command.
import fs from 'node:fs';
import { homedir } from 'node:os';
import type { CliDeps } from './cli/deps.js';
import { fastPath, parseFastArgs } from './cli/fast-path.js';
import { readBoundedFile } from './read-file.js';
import { Redactor } from './redact/redactor.js';

declare const __VERSION__: string;

/**
 * Writes to a file descriptor directly. process.stdout would build a stream (and load net for a
 * pipe), ~2 ms of a cached credential's ~5 ms of work; the credential is a few kB at most.
 */
function writeAll(fd: number, text: string): void {
  const buffer = Buffer.from(text);
  for (let offset = 0; offset < buffer.length; ) {
    try {
      offset += fs.writeSync(fd, buffer, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return; // The reader is gone: nobody is left to tell.
      if (code !== 'EAGAIN') throw error;
      // A non-blocking pipe that is full: give the reader a millisecond.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}

function realDeps(): CliDeps {
  return {
    env: process.env,
    readFile: readBoundedFile,
    stdout: (text) => writeAll(1, text),
    stderr: (text) => process.stderr.write(text),
    now: Date.now,
    random: Math.random,
    // Loaded when a template asks for one, not on a cached credential.
    uuid: () => process.getBuiltinModule('node:crypto').randomUUID(),
    send: async (request, options) => {
      const { send } = await import('./request/http.js');
      return send(request, options);
    },
    version: typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev',
    cwd: () => process.cwd(),
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
      // Only a write that creates the cache's key needs node:crypto: loaded then, not on a hit.
      randomBytes: () => process.getBuiltinModule('node:crypto').randomBytes(32),
      host: () => {
        // A pid is this host's and this pid namespace's: containers sharing a cache volume differ in one.
        try {
          return `${fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${fs.readlinkSync('/proc/self/ns/pid')}`;
        } catch {
          return '';
        }
      },
      ...(process.getuid ? { uid: process.getuid() } : {}),
    },
  };
}

export async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const deps = realDeps();
  const flags = parseFastArgs(argv);
  if (flags) {
    // The plain get-token form: the cache first, then the use case without commander.
    const served = fastPath(flags, deps);
    if (served !== undefined) {
      process.exitCode = served;
      return;
    }
    const { runGetToken } = await import('./cli/direct.js');
    process.exitCode = await runGetToken(flags, deps);
    return;
  }
  const { run } = await import('./cli/program.js');
  process.exitCode = await run(argv, deps);
}

void main();
