// kubectl runs the plugin from wherever the user stands: a relative path in a config file means the
// file's directory, not the current one. In an inline config it means the current directory.
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();

function layout() {
  const root = mkdtempSync(join(tmpdir(), 'webapi-credential-relative-'));
  const configDir = join(root, 'etc', 'webapi-credential');
  const elsewhere = join(root, 'somewhere', 'else');
  mkdirSync(configDir, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  copyFileSync(pki.ca.certFile, join(configDir, 'ca.crt'));
  writeFileSync(join(configDir, 'client-secret'), 'relative-secret-Vq7\n');
  return { root, configDir, elsewhere };
}

const config = (url: string) =>
  provider({ method: 'POST', url: `${url}/token`, tokenPath: '$.access_token', form: { secret: "{{ file('client-secret') }}" }, tls: { caFile: 'ca.crt' } });

describe('relative paths', () => {
  it('in a config file resolve against its directory, run from anywhere', async () => {
    const api = await startApi((request, response) => json(response, 200, { access_token: SECRET.token, seen: new URLSearchParams(request.body).get('secret') === 'relative-secret-Vq7' }));
    const { configDir, elsewhere } = layout();
    writeFileSync(join(configDir, 'config.json'), config(api.url));
    const result = await runCli(['--config', join(configDir, 'config.json')], { cwd: elsewhere });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
    expect(new URLSearchParams(api.requests[0]!.body).get('secret')).toBe('relative-secret-Vq7');
  });

  it('in a config file given by a relative path resolve against that path', async () => {
    const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token }));
    const { root, configDir } = layout();
    writeFileSync(join(configDir, 'config.json'), config(api.url));
    const result = await runCli(['--config', 'etc/webapi-credential/config.json'], { cwd: root });
    expect(result.code).toBe(0);
  });

  it('in an inline config resolve against the current directory, and the message names the path it tried', async () => {
    const { elsewhere } = layout();
    const result = await runCli(['--config-inline', config('https://127.0.0.1:9')], { cwd: elsewhere });
    expectFailure(result, 2, `webAPIProviderConfig.form.secret: {{ file('client-secret') }}: file("client-secret") cannot be read: no such file`, ['relative-secret-Vq7']);
  });
});
