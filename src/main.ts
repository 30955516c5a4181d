// The composition root: the only module that touches process, the real file system and the clock.
// A cached credential is served by cli/fast-path.ts without loading the rest (cli/program.ts and everything
// behind it), which is most of the start-up time of a plugin kubectl runs on every command.
import { homedir } from 'node:os';
import type { CliDeps } from './cli/deps.js';
import { fastPath, parseFastArgs } from './cli/fast-path.js';
import { OutputError } from './errors.js';
import { readBoundedFile } from './read-file.js';
import { Redactor } from './redact/redactor.js';
import { browserCommand } from './login/open-browser.js';

declare const __VERSION__: string;
const VERSION = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';

/** What a bug report needs: this version, and the Node it runs on (the single binary carries its own). */
function versionLine(): string {
  return `webapi-credential ${VERSION} (node ${process.version}, ${process.platform}-${process.arch})`;
}

// The module itself: `import fs from 'node:fs'` would be bundled as a copy of its ~100 exports, made
// on every start (~0.5 ms of a cached hit, profiled).
const fs = process.getBuiltinModule('node:fs');

/**
 * Writes to a file descriptor directly. process.stdout would build a stream (and load net for a
 * pipe), ~2 ms of a cached credential's ~5 ms of work; the credential is a few kB at most.
 * `patienceMs`: how long a full non-blocking pipe may make it wait (then it gives up, silently).
 */
/** Whether the text went out whole: false when the reader is gone or did not read for `patienceMs`. */
function writeAll(fd: number, text: string, patienceMs = Infinity): boolean {
  const buffer = Buffer.from(text);
  let waited = 0;
  for (let offset = 0; offset < buffer.length;) {
    try {
      offset += fs.writeSync(fd, buffer, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return false; // The reader is gone: nobody is left to tell.
      if (code !== 'EAGAIN') throw error;
      if (++waited > patienceMs) return false;
      // A non-blocking pipe that is full: give the reader a millisecond.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
  return true;
}

/** What went wrong with stdout, in words: `ENOSPC (no space left on device)`. */
function stdoutProblem(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  // Node's message is `ENOSPC: no space left on device, write`.
  const words = /^[A-Z0-9]+: (.*?)(?:, \w+)?$/.exec(String(message))?.[1];
  return code ? `${code}${words ? ` (${words})` : ''}` : 'unknown error';
}

/** stdout: a failed write is an OutputError (exit 2, one line naming stdout), never an internal error. */
function writeStdout(text: string): void {
  let written: boolean;
  try {
    written = writeAll(1, text, STDOUT_PATIENCE_MS);
  } catch (error) {
    throw new OutputError(stdoutProblem(error), '', { cause: error });
  }
  // A non-blocking pipe nobody reads would take the write for ever; the caller reads at once.
  if (!written) throw new OutputError(`EAGAIN (nobody read it for ${STDOUT_PATIENCE_MS / 1000} s)`, '');
}

/** How long a full stdout pipe is waited on: kubectl and Argo CD read the credential as it comes. */
const STDOUT_PATIENCE_MS = 5_000;

/**
 * stderr is for people: a write that fails (the reader is gone, a full disk) or a pipe nobody
 * drains for a second loses that line, never the credential. process.stderr would emit the EPIPE
 * as an 'error' event and crash the plugin with its cache lock held.
 */
function writeStderr(text: string): void {
  if (stderrStuck) return;
  try {
    // Given up once, given up for good: a second of patience per line of a -v trace would outlast --timeout.
    stderrStuck = !writeAll(stderrDescriptor(), text, 1000);
  } catch {
    // Nobody to tell.
  }
}

/**
 * The same file (a hard link), or for the single binary a byte-for-byte copy of it (another install
 * of the same release): compared in chunks, without following links or blocking on a FIFO.
 */
function sameFile(found: string, ours: string, copies: boolean): boolean {
  const [a, b] = [fs.statSync(found), fs.statSync(ours)];
  if (a.dev === b.dev && a.ino === b.ino) return true;
  if (!copies || !a.isFile() || !b.isFile() || a.size !== b.size) return false;
  const flags = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);
  const [fa, fb] = [fs.openSync(found, flags), fs.openSync(ours, flags)];
  try {
    const [ba, bb] = [Buffer.alloc(1 << 20), Buffer.alloc(1 << 20)];
    for (let at = 0; at < a.size;) {
      const n = fs.readSync(fa, ba, 0, ba.length, at);
      if (n === 0 || fs.readSync(fb, bb, 0, n, at) !== n || !ba.subarray(0, n).equals(bb.subarray(0, n))) return false;
      at += n;
    }
    return true;
  } finally {
    fs.closeSync(fa);
    fs.closeSync(fb);
  }
}

let stderrStuck = false;
let stderrFd: number | undefined;

/**
 * fd 2, or for a pipe a description of it of our own that does not block: the caller's pipe is
 * usually blocking, and a write to one nobody drains would wait for ever, past any deadline.
 * Opened again through /proc, the pipe takes O_NONBLOCK without changing the caller's end.
 */
function stderrDescriptor(): number {
  if (stderrFd !== undefined) return stderrFd;
  stderrFd = 2;
  try {
    if (process.platform === 'linux' && fs.fstatSync(2).isFIFO())
      stderrFd = fs.openSync('/proc/self/fd/2', fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
  } catch {
    // fd 2 as it is (no /proc, or no reader left: its writes then fail with EPIPE).
  }
  return stderrFd;
}

/** The real deps: process, file system, clock, network (test/helpers/in-process.ts runs the CLI with them, output captured). */
export function realDeps(): CliDeps {
  return {
    env: process.env,
    readFile: readBoundedFile,
    stdout: writeStdout,
    stderr: writeStderr,
    now: Date.now,
    random: Math.random,
    // Loaded when a template asks for one, not on a cached credential.
    uuid: () => process.getBuiltinModule('node:crypto').randomUUID(),
    send: async (request, options) => {
      const { send } = await import('./request/http.js');
      return send(request, options);
    },
    version: VERSION,
    versionLine: versionLine(),
    cwd: () => process.cwd(),
    whoAmI: async (target, credential, options) => {
      const { whoAmI } = await import('./request/cluster.js');
      return whoAmI(target, credential, options);
    },
    isExecutable: (path) => {
      try {
        fs.accessSync(path, fs.constants.X_OK);
        return fs.statSync(path).isFile();
      } catch {
        return false;
      }
    },
    // doctor: whether the exec command a kubeconfig names is this program, told by the file and never
    // by running it (a kubeconfig is data, and its command and env may be anyone's).
    sameProgram: (path) => {
      const sea = process.getBuiltinModule('node:sea')?.isSea() === true;
      // The single binary is the executable; else the bin script (or bundle) that Node was given.
      const self = sea ? process.execPath : (process.argv[1] ?? '');
      try {
        const [found, ours] = [fs.realpathSync(path), fs.realpathSync(self)];
        return { same: found === ours || sameFile(found, ours, sea), self: ours };
      } catch {
        return { same: false, self };
      }
    },
    redactor: new Redactor(),
    // An interactive login (use-case/login.ts): whether a person is at this terminal, Ctrl-C, waits.
    login: {
      terminal: () => {
        const { isatty } = process.getBuiltinModule('node:tty');
        return isatty(0) && isatty(2);
      },
      // Ctrl-C aborts the login's signal: its waits end, its request in flight is destroyed, its
      // listener closes, and the process ends as any other run does, with the report's exit code.
      onInterrupt: (listener) => {
        process.on('SIGINT', listener);
        return () => void process.off('SIGINT', listener);
      },
      sleep: (ms, signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
        }),
      // A browser login (login/grants/authorization-code.ts): loaded for it only.
      listen: async (port, handle) => {
        const { listenLoopback } = await import('./login/loopback.js');
        return listenLoopback(port, handle);
      },
      opener: (env) => browserCommand(env, process.platform),
      open: (command, url) =>
        new Promise((resolve, reject) => {
          // No shell: the URL is one argument whatever it holds; the opener's output is never ours.
          const child = process.getBuiltinModule('node:child_process').spawn(command[0]!, [...command.slice(1), url], {
            stdio: 'ignore',
            detached: true,
            shell: false,
            windowsHide: true,
          });
          child.once('error', reject);
          child.once('spawn', () => {
            child.off('error', reject);
            child.on('error', () => {});
            child.unref();
            resolve();
          });
        }),
    },
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
  await mainRun();
}

async function mainRun(): Promise<void> {
  const argv = process.argv.slice(2);
  // Answered before anything else is built or loaded (commander, the rest of the CLI; the single
  // binary then compiles only the fast path's asset): scripts and doctor ask it, and it costs nothing.
  if (argv.length === 1 && argv[0] === '--version') {
    try {
      writeStdout(`${versionLine()}\n`);
    } catch {
      process.exitCode = 2; // stdout is gone or full: nobody is left to tell.
    }
    return;
  }
  // --timeout counts from Node's own start, before the binary was read and compiled: what the
  // caller's clock counts from. Here, not in realDeps(): a test that runs the CLI in its own process
  // (test/helpers/in-process.ts) started long before the call.
  const deps = { ...realDeps(), started: Date.now() - process.uptime() * 1000 };
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

declare const __START__: boolean | undefined;
// Imported, the module starts the plugin (bin/, the single executable); the in-process tests import
// realDeps() without starting it (vitest.config.ts defines __START__ as false).
if (typeof __START__ === 'undefined' || __START__) void main();
