// Shared pieces of the cache suite: a sandbox HOME/XDG_CACHE_HOME per test (the real home is never
// touched), a token API that issues numbered tokens with a known lifetime, and the CLI as a child
// process whose handle the test keeps (to kill it mid-request).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { baseEnv, cliCommand, runCli, type CliResult } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type Handler, type TokenApi } from '../helpers/token-api.js';

export const pki = makePki();
export const DIR_NAME = 'webapi-credential';

/** This host and pid namespace as a lock records them (src/main.ts: boot id / pid namespace). */
export const HOST_ID = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;

const root = mkdtempSync(join(tmpdir(), 'webapi-credential-cache-'));
let counter = 0;

export interface Sandbox {
  root: string;
  home: string;
  xdg: string;
  /** The default cache directory under XDG_CACHE_HOME. */
  cacheDir: string;
  /** HOME and XDG_CACHE_HOME of the sandbox plus `extra`. */
  env: (extra?: Record<string, string | undefined>) => Record<string, string | undefined>;
}

/** A fresh, empty HOME and XDG_CACHE_HOME. */
export function sandbox(): Sandbox {
  const dir = join(root, String(++counter));
  const home = join(dir, 'home');
  const xdg = join(dir, 'xdg');
  mkdirSync(home, { recursive: true });
  mkdirSync(xdg, { recursive: true });
  return {
    root: dir,
    home,
    xdg,
    cacheDir: join(xdg, DIR_NAME),
    env: (extra = {}) => ({ HOME: home, XDG_CACHE_HOME: xdg, ...extra }),
  };
}

/**
 * Every file and directory below `dir`, relative, sorted; [] for an empty or missing directory. The
 * key of the cache's keyed hashes (hmac-key, made with the directory) and the stamp of its last sweep
 * (swept, made with the first write) are left out: the tests here are about entries, refs, locks and
 * temp files; test/cache/trust.process.test.ts checks the key file, store.test.ts the sweep.
 */
export function tree(dir: string): string[] {
  try {
    return (readdirSync(dir, { recursive: true }) as string[])
      .filter((name) => !/(^|\/)(hmac-key|swept)$/.test(name))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The permission bits of a path, as a number (0o700). */
export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The one ref file in `dir` (the fast path's pointer to an entry, src/cache/ref.ts), parsed. */
export function onlyRef(dir: string): { name: string; path: string; text: string; ref: Record<string, unknown> } {
  const refs = readdirSync(dir).filter((name) => name.endsWith('.ref'));
  if (refs.length !== 1)
    throw new Error(`expected exactly one ref in ${dir}, found ${JSON.stringify(readdirSync(dir))}`);
  const name = refs[0]!;
  const path = join(dir, name);
  const text = readFileSync(path, 'utf8');
  return { name, path, text, ref: JSON.parse(text) as Record<string, unknown> };
}

/** What one cached credential leaves in `dir`: exactly its entry and its ref, sorted. */
export function entryAndRef(dir: string): string[] {
  const { key } = onlyEntry(dir);
  const { name } = onlyRef(dir);
  expect(name).toMatch(/^[0-9a-f]{64}\.ref$/);
  return [`${key}.json`, name].sort();
}

/** The one entry file in `dir` and its key; fails the test unless there is exactly one. */
export function onlyEntry(dir: string): { key: string; path: string; text: string; entry: Record<string, unknown> } {
  const entries = readdirSync(dir).filter((name) => name.endsWith('.json'));
  if (entries.length !== 1)
    throw new Error(`expected exactly one entry in ${dir}, found ${JSON.stringify(readdirSync(dir))}`);
  const name = entries[0]!;
  const path = join(dir, name);
  const text = readFileSync(path, 'utf8');
  return { key: name.slice(0, -'.json'.length), path, text, entry: JSON.parse(text) as Record<string, unknown> };
}

export interface IssuingApi extends TokenApi {
  /** Makes request number `n` (1-based) wait until `release()` is called; the others answer at once. */
  holdRequest: (n: number) => { arrived: Promise<void>; release: () => void };
}

/**
 * A token API whose n-th request gets `token-n`. `body(n)` shapes the JSON answer; by default the
 * token lives an hour (expires_in 3600).
 */
export function tokenApis(): (body?: (n: number) => Record<string, unknown>, delayMs?: number) => Promise<IssuingApi> {
  const started: TokenApi[] = [];
  afterAll(async () => {
    await Promise.all(started.map((api) => api.close()));
  });
  return async (body = (n) => ({ access_token: `token-${n}`, expires_in: 3600 }), delayMs = 0) => {
    let n = 0;
    const holds = new Map<number, { arrive: () => void; released: Promise<void> }>();
    const handler: Handler = async (_request, response) => {
      const number = ++n;
      const hold = holds.get(number);
      if (hold) {
        hold.arrive();
        await hold.released;
      }
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (!response.destroyed) json(response, 200, body(number));
    };
    const api = await startTokenApi(handler);
    started.push(api);
    return Object.assign(api, {
      holdRequest: (number: number) => {
        let arrive!: () => void;
        let release!: () => void;
        const arrived = new Promise<void>((resolve) => (arrive = resolve));
        const released = new Promise<void>((resolve) => (release = resolve));
        holds.set(number, { arrive, released });
        return { arrived, release };
      },
    });
  };
}

/** The cached config: the token, its lifetime from expires_in, a secret header, the test CA. */
export function cachedConfig(api: TokenApi, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      tls: { caFile: pki.ca.certFile },
      ...extra,
    },
  });
}

/** get-token with `config` inline and `args`, in the sandbox, with API_KEY set unless `env` says otherwise. */
export function getToken(
  box: Sandbox,
  config: string,
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<CliResult> {
  return runCli(['--config-inline', config, ...args], { env: box.env({ API_KEY: 'api-key-1', ...env }) });
}

export interface Spawned {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stderr contains `text`. */
  waitForStderr: (text: string) => Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The CLI as a child process the test controls (runCli only gives the result). */
export function spawnCli(args: string[], env: Record<string, string | undefined>): Spawned {
  const [command, ...lead] = cliCommand();
  const child = spawn(command!, [...lead, ...args], { env: baseEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters: { text: string; resolve: () => void }[] = [];
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
    for (const waiter of waiters.splice(0)) {
      if (stderr.includes(waiter.text)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  child.stdin.end();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStderr: (text) =>
      stderr.includes(text) ? Promise.resolve() : new Promise((resolve) => waiters.push({ text, resolve })),
    exited,
  };
}

/** A pid that belonged to a process that has exited and been reaped. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}
