// The refresh of RFC 6749 §6 against the real oidc-provider, in process: a device login gives a
// refresh token, and refreshCredential() turns it into a new id_token without a person; a refused
// refresh is exit 3 naming the server's error, with neither token in the message. (Where the cache
// keeps the refresh token is get-token's; this is the piece it calls.)
import { randomBytes, randomUUID } from 'node:crypto';
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exitCodeFor, type CredentialError } from '../../src/errors.js';
import { readBoundedFile } from '../../src/read-file.js';
import { Redactor } from '../../src/redact/redactor.js';
import { send } from '../../src/request/http.js';
import type { Deps } from '../../src/use-case/deps.js';
import { loginCredential, refreshCredential } from '../../src/use-case/login.js';
import { prepare } from '../../src/use-case/prepare.js';
import { deviceConfig } from '../helpers/device-config.js';
import { actAsPerson, startDeviceProvider } from '../helpers/device-provider.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const idp = await startDeviceProvider(pki);
afterAll(() => idp.close());

function depsWith(lines: string[]): Deps {
  return {
    env: { PATH: process.env['PATH'] },
    readFile: readBoundedFile,
    stdout: () => {},
    warn: (line) => lines.push(`warning: ${line}`),
    say: (line) => lines.push(line),
    trace: () => {},
    now: Date.now,
    random: Math.random,
    uuid: randomUUID,
    send,
    version: '0.1.0',
    redactor: new Redactor(),
    login: {
      terminal: () => false,
      onInterrupt: () => () => {},
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    },
    cache: {
      fs,
      homedir: mkdtempSync(join(tmpdir(), 'wc-home-')),
      pid: process.pid,
      alive: () => true,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      unique: () => randomUUID(),
      randomBytes: () => randomBytes(32),
    },
  };
}

const configInline = () => deviceConfig(idp.issuer, pki.ca.certFile);

describe('refreshCredential against oidc-provider', () => {
  it('turns the refresh token of a device login into a new id_token, without a person', async () => {
    const lines: string[] = [];
    const deps = depsWith(lines);
    const prepared = await prepare({ configInline: configInline() }, deps);
    const login = loginCredential(prepared, { login: true }, deps);
    while (lines.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    const url = /open (\S+)/.exec(lines[0]!)![1]!;
    const code = /the code (\S+) /.exec(lines[1]!)![1]!;
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const first = await login;
    expect(first.refreshToken).toBeDefined();
    expect(idp.issued.has(first.refreshToken!)).toBe(true);
    expect(idp.isIdToken(first.status.token!)).toBe(true);

    // A second later: an id_token of the same claims in the same second would be the same text.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const refreshesBefore = idp.requests.filter((r) => r.grant === 'refresh_token').length;
    const devicesBefore = idp.requests.filter((r) => r.path === '/device/auth').length;
    const refreshed = await refreshCredential(prepared, first.refreshToken!, Date.now() + 10_000, deps);
    expect(idp.isIdToken(refreshed.status.token!)).toBe(true);
    expect(refreshed.status.token).not.toBe(first.status.token);
    expect(refreshed.status.expirationTimestamp).toMatch(/Z$/);
    expect(refreshed.refreshToken).toBeDefined();
    expect(idp.requests.filter((r) => r.grant === 'refresh_token').length).toBe(refreshesBefore + 1);
    expect(idp.requests.filter((r) => r.path === '/device/auth').length).toBe(devicesBefore);
    // Every token is a secret from now on: a message that held one would show [REDACTED].
    expect(deps.redactor.redact(`${first.refreshToken} ${refreshed.status.token}`)).not.toContain(first.refreshToken!);
  }, 60_000);

  it("a refused refresh token is exit 3 with the server's error, the token never in the message", async () => {
    const deps = depsWith([]);
    const prepared = await prepare({ configInline: configInline() }, deps);
    const bogus = `refresh-${randomBytes(16).toString('hex')}`;
    const error = (await refreshCredential(prepared, bogus, Date.now() + 10_000, deps).catch(
      (e: unknown) => e,
    )) as CredentialError;
    expect(exitCodeFor(error)).toBe(3);
    expect(error.message).toBe(
      'the token endpoint refused the refresh with 400: "invalid_grant" ("grant request is invalid")',
    );
    expect(error.message).not.toContain(bogus);
  });
});
