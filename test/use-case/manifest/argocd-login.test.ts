// argocd-secret of a config with login: Argo CD runs the plugin with nobody to answer a prompt
// (SPEC "Interactive login": never under Argo CD), so such a secret could never yield a credential.
// Refused with exit 2 and nothing printed, however the config is given. And kubeconfig --no-cache of
// such a config says that every kubectl call would log in again.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaks } from '../../helpers/cli.js';
import { runInProcess } from '../../helpers/in-process.js';

const SECRET = 'client-secret-argo-7Hq2';
const login = {
  webAPIProviderConfig: {
    method: 'POST',
    url: 'https://idp.example/token',
    form: { client_id: 'kubectl', client_secret: '{{ env.CLIENT_SECRET }}' },
    login: { deviceAuthorization: { url: 'https://idp.example/device', form: { scope: 'openid' } } },
  },
};
const MESSAGE =
  'webapi-credential: argocd-secret: this config has login (a person at a terminal logs in); Argo CD runs the plugin with nobody to answer, so it could never get a credential: use a config whose token API needs no person\n';

describe('argocd-secret of a login config', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'argocd-login-')), 'config.json');
  writeFileSync(file, JSON.stringify(login));
  it.each([
    ['--config-inline', ['--config-inline', JSON.stringify(login)]],
    ['--config', ['--config', file]],
    ['--config --embed-config --cache', ['--config', file, '--embed-config', '--cache']],
  ])('%s: exit 2, no manifest, no secret', async (_name, args) => {
    const result = await runInProcess(
      ['argocd-secret', '--server', 'https://k8s.example.com', '--name', 'prod', ...args],
      { env: { CLIENT_SECRET: SECRET } },
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(MESSAGE);
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it('the same config without login is written (the refusal is about login alone)', async () => {
    const plain = {
      webAPIProviderConfig: { ...login.webAPIProviderConfig, login: undefined, tokenPath: '$.access_token' },
    };
    const result = await runInProcess(
      [
        'argocd-secret',
        '--server',
        'https://k8s.example.com',
        '--name',
        'prod',
        '--config-inline',
        JSON.stringify(plain),
      ],
      { env: { CLIENT_SECRET: SECRET } },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kind: Secret');
  });
});

describe('kubeconfig --no-cache of a login config', () => {
  it('a note says every kubectl call would log in again; with the cache, no such note', async () => {
    const args = [
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--name',
      'prod',
      '--config-inline',
      JSON.stringify(login),
    ];
    const without = await runInProcess([...args, '--no-cache'], { env: { CLIENT_SECRET: SECRET } });
    expect(without.code).toBe(0);
    expect(without.stdout).toContain('interactiveMode: IfAvailable');
    expect(without.stderr).toContain(
      'webapi-credential: note: this config logs a person in and --no-cache keeps nothing: every kubectl call would ask to log in again; leave out --no-cache\n',
    );
    const cached = await runInProcess(args, { env: { CLIENT_SECRET: SECRET } });
    expect(cached.code).toBe(0);
    expect(cached.stderr).not.toContain('--no-cache');
    expect(leaks(without, [SECRET])).toEqual([]);
  });
});
