// The cache key names every env variable a template reads, and where the name is a secret the cache
// is off for the call (README "Cache"; trust.test.ts for env[env.X]). A name a step answers
// (env[steps.login.variable], runnable since 6da838b) is read only after the steps, but the cache
// decides on the flag before them: the key then leaves the variable out, and a rotated value is
// served the credential the old one got. Through the CLI's run() in process, against a real local
// HTTPS token API.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();

describe('env or a file read by a name a step answers, with the cache on', () => {
  it('fetches again when that variable is rotated', async () => {
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { variable: 'TOKEN_A' });
      json(response, 200, { access_token: `tok-${request.headers['x-v']}`, expires_in: 3600 });
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-step-env-')), 'cache');
    const config = {
      steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
      method: 'GET',
      url: `${api.url}/token`,
      headers: { 'X-V': '{{ env[steps.login.variable] }}' },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: pki.ca.certFile },
    };
    const run = (value: string) =>
      runInProcess(['--cache', '--cache-dir', dir, '-o', 'token', '--config-inline', provider(config)], {
        env: { TOKEN_A: value },
      });
    const first = await run('first-value-Vq1');
    expect(first).toEqual({ code: 0, stdout: 'tok-first-value-Vq1\n', stderr: '' });
    const rotated = await run('second-value-Vq2');
    expect(rotated).toEqual({ code: 0, stdout: 'tok-second-value-Vq2\n', stderr: '' });
    expect(api.requests.filter((r) => r.path === '/token').map((r) => r.headers['x-v'])).toEqual([
      'first-value-Vq1',
      'second-value-Vq2',
    ]);
  });

  it('fetches again when the file a key a step answers chose is rotated', async () => {
    const root = mkdtempSync(join(tmpdir(), 'webapi-credential-step-file-'));
    const admin = join(root, 'admin-key');
    writeFileSync(admin, 'first-file-Kp1');
    const api = await startApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { role: 'admin' });
      json(response, 200, { access_token: `tok-${request.headers['x-v']}`, expires_in: 3600 });
    });
    const config = {
      steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
      method: 'GET',
      url: `${api.url}/token`,
      headers: {
        'X-V': `{{ file({ admin: ${JSON.stringify(admin)}, user: ${JSON.stringify(join(root, 'user-key'))} }[steps.login.role]) }}`,
      },
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      tls: { caFile: pki.ca.certFile },
    };
    const run = () =>
      runInProcess(['--cache', '--cache-dir', join(root, 'cache'), '-o', 'token', '--config-inline', provider(config)]);
    expect(await run()).toEqual({ code: 0, stdout: 'tok-first-file-Kp1\n', stderr: '' });
    writeFileSync(admin, 'second-file-Kp2');
    expect(await run()).toEqual({ code: 0, stdout: 'tok-second-file-Kp2\n', stderr: '' });
  });
});
