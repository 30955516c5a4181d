// Shared pieces of the integration suite (test/integration/): the secrets every test plants, config
// builders, token APIs that are closed after the file, and the assertions every error test makes.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { leaks, type CliResult } from './cli.js';
import { startTokenApi, type Handler, type TokenApi, type TokenApiOptions } from './token-api.js';

export const PREFIX = 'webapi-credential: ';
export const VERSION = '0.1.0';
export const V1 = 'client.authentication.k8s.io/v1';
export const V1BETA1 = 'client.authentication.k8s.io/v1beta1';

/** Distinctive values that must never reach stdout or stderr (except the token, in stdout, on success). */
export const SECRET = {
  /** A plain API key read by a header template. */
  apiKey: 'apikey-7Hq2Lm9Xr4',
  /** Characters that form encoding and encodeURIComponent treat differently, plus & = + and a space. */
  form: "f0rm p@ss!w0rd~it's(x)*&=+Zt",
  /** Quotes, backslashes and a newline: must survive JSON escaping. */
  json: 'js0n-"quoted"\\back\\slash\nnew-line-Qw7',
  /** The token the API issues. */
  token: 'issued-token-Vb83nQ2wLx',
  /** What a file() template reads (the file has a trailing newline). */
  file: 'file-secret-Kp3Jd8Rt',
} as const;

/** The environment client-go would pass: the secrets the templates read. */
export const SECRET_ENV = { API_KEY: SECRET.apiKey, FORM_SECRET: SECRET.form, JSON_SECRET: SECRET.json };

/** Every secret of the suite, in the forms a careless message would show. */
export function allSecrets(extra: string[] = []): string[] {
  return [
    SECRET.apiKey,
    SECRET.form,
    encodeURIComponent(SECRET.form),
    new URLSearchParams({ x: SECRET.form }).toString().slice(2),
    SECRET.json,
    JSON.stringify(SECRET.json).slice(1, -1),
    SECRET.token,
    SECRET.file,
    ...extra,
  ];
}

const scratch = mkdtempSync(join(tmpdir(), 'webapi-credential-it-'));
let counter = 0;

/** Writes `content` to a new file in this run's scratch directory and returns its path. */
export function writeTemp(name: string, content: string): string {
  const path = join(scratch, `${++counter}-${name}`);
  writeFileSync(path, content);
  return path;
}

/** A config document as JSON text (YAML 1.2 reads it too). */
export function provider(config: Record<string, unknown>): string {
  return JSON.stringify({ webAPIProviderConfig: config });
}

/** A minimal POST config for `url` that takes $.access_token; `extra` overrides or adds fields. */
export function basic(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { method: 'POST', url, tokenPath: '$.access_token', ...extra };
}

/** Token APIs started by a test file, all closed after it (works with concurrent tests). */
export function tokenApis(): (handler: Handler, options?: TokenApiOptions) => Promise<TokenApi> {
  const started: TokenApi[] = [];
  afterAll(async () => {
    await Promise.all(started.map((api) => api.close()));
  });
  return async (handler, options) => {
    const api = await startTokenApi(handler, options);
    started.push(api);
    return api;
  };
}

/**
 * A loopback port nothing listens on, and nothing will while the test runs: one below the ephemeral
 * range (32768 and up on Linux, 49152 on macOS and Windows) that listen(0) draws from, found free by
 * binding it. A port freed by closing a server was taken by the next server a concurrent test started,
 * and the "closed" port answered (a CI-like run got a credential through it).
 */
export async function closedPort(): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
  }
  throw new Error('no free loopback port below 32000 in 100 tries');
}

/**
 * The contract of every failure: the exit code, nothing on stdout, exactly one stderr line that is
 * `webapi-credential: <message>`, and none of the secrets anywhere.
 */
export function expectFailure(
  result: CliResult,
  code: number,
  message: string | RegExp,
  secrets: string[] = allSecrets(),
): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
  if (typeof message === 'string') expect(result.stderr).toBe(`${PREFIX}${message}\n`);
  else {
    expect(result.stderr.split('\n')).toHaveLength(2);
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.slice(PREFIX.length, -1)).toMatch(message);
    expect(result.stderr.startsWith(PREFIX)).toBe(true);
  }
  expect(leaks(result, secrets)).toEqual([]);
}

/** A successful run prints exactly `stdout`, nothing on stderr unless given, and leaks nothing but the credential. */
export function expectSuccess(result: CliResult, stdout: string, stderr = '', secrets: string[] = allSecrets()): void {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr });
  expect(result.stdout).toBe(stdout);
  expect(leaks(result, secrets, [SECRET.token])).toEqual([]);
}

/** The ExecCredential line the CLI prints. */
export function execCredential(status: Record<string, string>, apiVersion: string = V1BETA1): string {
  return JSON.stringify({ apiVersion, kind: 'ExecCredential', status }) + '\n';
}

/** KUBERNETES_EXEC_INFO as client-go sends it. */
export function execInfo(apiVersion: string, cluster?: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(cluster ? { cluster } : {}) },
  });
}

/** The cache entries in `dir` as one text: where a refresh token may be, and only there. */
export function cacheEntries(dir: string): string {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
}

/** RFC 3339 to the second, as the ExecCredential carries it. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
