// Ctrl-C at the phases the wait test does not reach: while the device authorization request is in
// flight (before any prompt), and while a poll of the token endpoint is in flight. Either way the
// plugin ends at once (not at --timeout), exit 2, says the login was cancelled, and caches nothing.
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks, type CliResult } from '../helpers/cli.js';
import { execInfoEnv, standInDeviceConfig } from '../helpers/device-config.js';
import { startPlugin } from '../helpers/device-run.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const DEVICE_CODE = 'device-code-interrupt-Hn42';
const pki = makePki();
let api: TokenApi;
/** Which path hangs (never answered); the test sends SIGINT once it has arrived. */
let hang = '';
let arrived: (() => void) | undefined;
beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    if (request.path === hang) {
      arrived?.();
      return new Promise<void>(() => {});
    }
    if (request.path === '/device')
      return json(response, 200, {
        device_code: DEVICE_CODE,
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/verify`,
        expires_in: 60,
        interval: 1,
      });
    return json(response, 400, { error: 'authorization_pending' });
  });
});
afterAll(() => api.close());

/** The login, interrupted once `path` is in flight. A plugin that did not end at once would wait out the code (60 s), killed first by startPlugin. */
async function interrupted(path: string): Promise<CliResult & { cacheDir: string }> {
  hang = path;
  const cacheDir = mkdtempSync(join(tmpdir(), 'device-interrupt-'));
  const config = standInDeviceConfig(api.port, pki.ca.certFile, { timeout: '20s' });
  const login = startPlugin(['--config-inline', config, '--cache', '--cache-dir', cacheDir], execInfoEnv(true));
  // Once the request is in flight at the server, as a person pressing Ctrl-C would be.
  arrived = () => {
    arrived = undefined;
    setTimeout(() => login.child.kill('SIGINT'), 200);
  };
  return { ...(await login.done), cacheDir };
}

describe('Ctrl-C with a request of the login in flight', () => {
  it.each([
    ['the device authorization request (before the prompt)', '/device', 0],
    ['a poll of the token endpoint', '/token', 2],
  ])(
    '%s: exit 2 at once, cancelled, nothing cached',
    async (_name, path, promptLines) => {
      const result = await interrupted(path);
      expect(result.code).toBe(2);
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines.length).toBe(promptLines + 1);
      expect(lines.at(-1)).toBe('webapi-credential: the login was cancelled (Ctrl-C); nothing was cached');
      expect(result.stdout).toBe('');
      expect(readdirSync(result.cacheDir, { recursive: true }).filter((name) => name !== 'hmac-key')).toEqual([]);
      expect(leaks(result, [DEVICE_CODE])).toEqual([]);
    },
    40_000,
  );
});
