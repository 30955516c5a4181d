// kubectl runs the plugin from wherever the user stands: a relative path written in a config file
// means the file's directory, not the current one. In an inline config, and in a value from env or
// --set (GOOGLE_APPLICATION_CREDENTIALS=./key.json), it means the current directory.
import { copyFileSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
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
  provider({
    method: 'POST',
    url: `${url}/token`,
    tokenPath: '$.access_token',
    form: { secret: "{{ file('client-secret') }}" },
    tls: { caFile: 'ca.crt' },
  });

describe('relative paths', () => {
  it('in a config file resolve against its directory, run from anywhere', async () => {
    const api = await startApi((request, response) =>
      json(response, 200, {
        access_token: SECRET.token,
        seen: new URLSearchParams(request.body).get('secret') === 'relative-secret-Vq7',
      }),
    );
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
    expectFailure(
      result,
      2,
      `webAPIProviderConfig.form.secret: {{ file('client-secret') }}: file(${JSON.stringify(join(realpathSync(elsewhere), 'client-secret'))}) cannot be read: no such file`,
      ['relative-secret-Vq7'],
    );
  });

  it('do not expand ~ (no shell starts the plugin), and the message says so, in get-token and validate alike', async () => {
    const { configDir, root } = layout();
    const home = join(root, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'client-secret'), 'tilde-secret-Hq4\n');
    writeFileSync(
      join(configDir, 'config.json'),
      provider({
        method: 'POST',
        url: 'https://127.0.0.1:9/token',
        tokenPath: '$.access_token',
        form: { secret: "{{ file('~/client-secret') }}" },
      }),
    );
    const tried = JSON.stringify(join(realpathSync(configDir), '~', 'client-secret'));
    for (const command of [[], ['validate']]) {
      const result = await runCli([...command, '--config', join(configDir, 'config.json')], { env: { HOME: home } });
      expectFailure(
        result,
        2,
        `webAPIProviderConfig.form.secret: {{ file('~/client-secret') }}: file(${tried}) cannot be read: no such file; ~ is not expanded (a shell does that, and no shell starts the plugin): write the absolute path, or file(env.HOME + "/client-secret")`,
        ['tilde-secret-Hq4'],
      );
    }
  });

  it('from env or --set resolve against the current directory, even in a config file', async () => {
    const api = await startApi((request, response) =>
      json(response, 200, {
        access_token: new URLSearchParams(request.body).get('secret') === 'cwd-secret-Zr8' ? SECRET.token : 'wrong',
      }),
    );
    const { configDir, elsewhere } = layout();
    writeFileSync(join(elsewhere, 'key'), 'cwd-secret-Zr8\n');
    const fromEnv = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      form: { secret: '{{ file(env.KEY_FILE) }}' },
      tls: { caFile: 'ca.crt' },
    });
    writeFileSync(join(configDir, 'env.json'), fromEnv);
    const byEnv = await runCli(['--config', join(configDir, 'env.json')], {
      cwd: elsewhere,
      env: { KEY_FILE: './key' },
    });
    expect(byEnv.stderr).toBe('');
    expect(JSON.parse(byEnv.stdout).status.token).toBe(SECRET.token);
    const fromVars = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      form: { secret: '{{ file(vars.keyFile) }}' },
      tls: { caFile: 'ca.crt' },
    });
    writeFileSync(join(configDir, 'vars.json'), fromVars);
    const bySet = await runCli(['--config', join(configDir, 'vars.json'), '--set', 'keyFile=key'], { cwd: elsewhere });
    expect(JSON.parse(bySet.stdout).status.token).toBe(SECRET.token);
    copyFileSync(pki.ca.certFile, join(elsewhere, 'ca-here.crt'));
    const tlsFromEnv = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      form: { secret: '{{ file(env.KEY_FILE) }}' },
      tls: { caFile: '{{ env.CA_FILE }}' },
    });
    writeFileSync(join(configDir, 'tls.json'), tlsFromEnv);
    const byTls = await runCli(['--config', join(configDir, 'tls.json')], {
      cwd: elsewhere,
      env: { KEY_FILE: 'key', CA_FILE: 'ca-here.crt' },
    });
    expect(byTls.stderr).toBe('');
    expect(JSON.parse(byTls.stdout).status.token).toBe(SECRET.token);
  });

  it('names the absolute path it tried for a relative path from env that cannot be read', async () => {
    const { configDir, elsewhere } = layout();
    writeFileSync(
      join(configDir, 'env.json'),
      provider({
        method: 'POST',
        url: 'https://127.0.0.1:9/token',
        tokenPath: '$.access_token',
        form: { secret: '{{ file(env.KEY_FILE) }}' },
      }),
    );
    for (const command of [['validate'], ['render'], []]) {
      const result = await runCli([...command, '--config', join(configDir, 'env.json')], {
        cwd: elsewhere,
        env: { KEY_FILE: './key.json' },
      });
      expectFailure(
        result,
        2,
        `webAPIProviderConfig.form.secret: {{ file(env.KEY_FILE) }}: file(${JSON.stringify(join(realpathSync(elsewhere), 'key.json'))}) cannot be read: no such file`,
        [],
      );
    }
  });
});
