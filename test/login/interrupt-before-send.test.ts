// A Ctrl-C that comes while a request of the login is being rendered (before it is sent): the
// request is not sent at all. Ctrl-C is played through the login deps (the listener fired as soon
// as the login registers it), the token API is a real local server counting what it receives.
import { randomBytes, randomUUID } from 'node:crypto';
import fs, { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/program.js';
import { readBoundedFile } from '../../src/read-file.js';
import { Redactor } from '../../src/redact/redactor.js';
import { send } from '../../src/request/http.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();
let api: TokenApi;
const received: string[] = [];
beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    received.push(request.path);
    if (request.path === '/device')
      return json(response, 200, {
        device_code: 'dc-before-send-Pq7',
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/verify`,
        expires_in: 30,
        interval: 1,
      });
    return json(response, 400, { error: 'authorization_pending' });
  });
});
afterAll(() => api.close());

describe('Ctrl-C as the login starts', () => {
  it('no device request is sent; exit 2, cancelled', async () => {
    const home = mkdtempSync(join(tmpdir(), 'interrupt-before-send-'));
    const config = standInDeviceConfig(api.port, pki.ca.certFile);
    let stderr = '';
    let stdout = '';
    const code = await run(['--config-inline', config], {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, ...execInfoEnv(true) },
      readFile: readBoundedFile,
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      now: Date.now,
      random: Math.random,
      uuid: randomUUID,
      send,
      version: '0.1.0',
      redactor: new Redactor(),
      login: {
        terminal: () => true,
        // The person presses Ctrl-C at once: the listener fires as soon as it is registered.
        onInterrupt: (listener) => {
          queueMicrotask(listener);
          return () => {};
        },
        sleep: (ms, signal) =>
          new Promise((resolve) => {
            const timer = setTimeout(resolve, ms);
            signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
          }),
      },
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
    // Let a request that was sent reach the server before counting.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('webapi-credential: the login was cancelled (Ctrl-C); nothing was cached\n');
    expect(received).toEqual([]);
  });
});
