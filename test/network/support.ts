// Shared pieces of the network suite (test/network/): real HTTPS token APIs on loopback, the CLI's
// run() in process (test/helpers/in-process.ts), the secrets every config plants and the checks
// every failure must pass.
import type { ServerResponse } from 'node:http';
import { afterAll, expect } from 'vitest';
import { leaks, type CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import {
  startTokenApi,
  type Handler,
  type ReceivedRequest,
  type TokenApi,
  type TokenApiOptions,
} from '../helpers/token-api.js';

export const pki = makePki();
export const PREFIX = 'webapi-credential: ';

/** What the templates read from the environment, and what the API issues: none may be printed. */
export const SECRET = {
  apiKey: 'net-apikey-Q8vX3mZ1',
  client: 'net-client-secret-L0p9Wd',
  token: 'net-issued-token-Hs7Kq2Yb',
  proxyPassword: 'net-proxy-pw-Jx4Rt6',
} as const;
export const SECRET_ENV = { API_KEY: SECRET.apiKey, CLIENT_SECRET: SECRET.client };
export const ALL_SECRETS = Object.values(SECRET);

export const CREDENTIAL =
  JSON.stringify({
    apiVersion: 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    status: { token: SECRET.token },
  }) + '\n';

/** A POST config that sends the secrets (header, form) and trusts the test CA; `extra` overrides. */
export function config(url: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url,
      tokenPath: '$.access_token',
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      form: { client_secret: '{{ env.CLIENT_SECRET }}' },
      tls: { caFile: pki.ca.certFile },
      ...extra,
    },
  });
}

/** The CLI in process, with the secrets in its environment. */
export function call(configText: string, args: string[] = [], env: Record<string, string> = {}): Promise<CliResult> {
  return runInProcess([...args, '--config-inline', configText], { env: { ...SECRET_ENV, ...env } });
}

/** Token APIs started by a test file, all closed after it. */
export function apis(): (handler: Handler, options?: TokenApiOptions) => Promise<TokenApi> {
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

export function answer(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

export const TOKEN_BODY = JSON.stringify({ access_token: SECRET.token });

/** Answers with the given [status, body, headers] in turn, then with the token. */
export function sequence(...answers: Array<[number, string, Record<string, string>?]>): Handler {
  let index = 0;
  return (_req, res) => {
    const next = answers[index++];
    if (next) answer(res, next[0], next[1], next[2]);
    else answer(res, 200, TOKEN_BODY);
  };
}

/** Records when each request arrived (ms since epoch). */
export function timed(handler: Handler): { handler: Handler; times: number[]; gaps: () => number[] } {
  const times: number[] = [];
  return {
    times,
    gaps: () => times.slice(1).map((t, i) => t - times[i]!),
    handler: (req: ReceivedRequest, res) => {
      times.push(Date.now());
      return handler(req, res);
    },
  };
}

/** Exit code, empty stdout, exactly one stderr line `webapi-credential: <message>`, no secret anywhere. */
export function expectFailure(
  result: CliResult,
  code: number,
  message: string | RegExp,
  secrets: string[] = ALL_SECRETS,
): void {
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code, stdout: '' });
  if (typeof message === 'string') expect(result.stderr).toBe(`${PREFIX}${message}\n`);
  else {
    expect(
      result.stderr.startsWith(PREFIX) &&
        result.stderr.endsWith('\n') &&
        result.stderr.indexOf('\n') === result.stderr.length - 1,
    ).toBe(true);
    expect(result.stderr.slice(PREFIX.length, -1)).toMatch(message);
  }
  expect(leaks(result, secrets)).toEqual([]);
}

/** Exit 0, exactly `stdout`, the given stderr (none by default) and no secret but the token in stdout. */
export function expectSuccess(
  result: CliResult,
  stdout: string = CREDENTIAL,
  stderr = '',
  secrets: string[] = ALL_SECRETS,
): void {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr });
  expect(result.stdout).toBe(stdout);
  expect(leaks(result, secrets, [SECRET.token])).toEqual([]);
}

/** The --verbose trace: the lines that start with the prefix, without it (continuation lines and stacks left out). */
export function traceLines(result: CliResult): string[] {
  return result.stderr
    .split('\n')
    .filter((line) => line.startsWith(PREFIX))
    .map((line) => line.slice(PREFIX.length));
}

export { closedPort } from '../helpers/integration.js';
