// `webapi-credential login` run by client-go under interactiveMode: Never (an exec entry whose args
// say login, under Argo CD or a script): KUBERNETES_EXEC_INFO says nobody can answer, so no device
// request is made (SPEC "Never under Argo CD or a script"): exit 2 at once, nothing cached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { leaks } from '../helpers/cli.js';
import { standInDeviceConfig } from '../helpers/device-config.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const SECRET = 'client-secret-never-3Kp9';
const pki = makePki();
let api: TokenApi;
let deviceRequests = 0;
beforeAll(async () => {
  api = await startTokenApi((request, response) => {
    if (request.path === '/device') {
      deviceRequests++;
      return json(response, 200, {
        device_code: 'dc-never-Zx1',
        user_code: 'ABCD-EFGH',
        verification_uri: `https://localhost:${api.port}/verify`,
        expires_in: 3,
        interval: 1,
      });
    }
    return json(response, 400, { error: 'access_denied' });
  });
});
afterAll(() => api.close());

const config = () =>
  standInDeviceConfig(api.port, pki.ca.certFile, {
    form: { client_id: 'kubectl', client_secret: '{{ env.CLIENT_SECRET }}' },
  });
const execInfo = (spec: Record<string, unknown>) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', spec });

describe('login when client-go says the call is not interactive', () => {
  it.each([
    ['spec.interactive: false', execInfo({ interactive: false })],
    ['spec.interactive missing', execInfo({})],
    ['spec.interactive "true" (a string)', execInfo({ interactive: 'true' })],
  ])('%s: exit 2, no device request, nothing cached', async (_name, info) => {
    const cacheDir = mkdtempSync(join(tmpdir(), 'login-never-'));
    const before = deviceRequests;
    const result = await runInProcess(['login', '--config-inline', config(), '--cache', '--cache-dir', cacheDir], {
      env: { CLIENT_SECRET: SECRET, KUBERNETES_EXEC_INFO: info },
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'webapi-credential: login: client-go says the call is not interactive (interactiveMode: Never, as Argo CD sets), so nobody can answer the prompt; run webapi-credential login at a terminal, not from an exec entry\n',
    );
    expect(deviceRequests).toBe(before);
    // The cache's own key may be made; no entry is.
    expect(
      existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true }).filter((name) => name !== 'hmac-key') : [],
    ).toEqual([]);
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it('spec.interactive: true: the login runs (a device request, then the refusal ends it)', async () => {
    const before = deviceRequests;
    const result = await runInProcess(['login', '--config-inline', config()], {
      env: { CLIENT_SECRET: SECRET, KUBERNETES_EXEC_INFO: execInfo({ interactive: true }) },
    });
    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      'webapi-credential: the login was denied at the identity provider; run the command again to log in anew',
    );
    expect(deviceRequests).toBe(before + 1);
  }, 20_000);
});
