// KUBERC=off: kubectl reads no kuberc at all (kubectl's DefaultGetPreferences), so `kubeconfig
// --merge --kuberc` neither reads nor writes a file named `off` in the working directory, nor
// ~/.kube/kuberc: it says kubectl runs every plugin.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const ALLOWLIST =
  'apiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Allowlist\ncredentialPluginAllowlist:\n- name: /usr/bin/kubelogin\n';

describe('kubeconfig --merge --kuberc with KUBERC=off', () => {
  it('no kuberc is read or written; the note says why', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kuberc-off-'));
    mkdirSync(join(dir, 'bin'));
    mkdirSync(join(dir, '.kube'));
    writeFileSync(join(dir, 'bin', 'webapi-credential'), '#!/bin/sh\n');
    chmodSync(join(dir, 'bin', 'webapi-credential'), 0o755);
    writeFileSync(join(dir, '.kube', 'kuberc'), ALLOWLIST);
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      'webAPIProviderConfig:\n  method: POST\n  url: https://token.example.com/token\n  tokenPath: $.access_token\n',
    );
    const env = {
      HOME: dir,
      PATH: `${join(dir, 'bin')}:/usr/bin:/bin`,
      KUBERC: 'off',
      KUBECONFIG: join(dir, 'kubeconfig'),
    };
    const result = await runInProcess(
      [
        'kubeconfig',
        '--server',
        'https://k8s.example.com:6443',
        '--config',
        config,
        '--name',
        'prod',
        '--merge',
        '--kuberc',
      ],
      { env },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      'webapi-credential: unchanged: KUBERC=off: kubectl reads no kuberc, so it runs every plugin, no allowlist needed\n',
    );
    expect(result.stderr).not.toMatch(/\/off\b/);
    expect(readFileSync(join(dir, '.kube', 'kuberc'), 'utf8')).toBe(ALLOWLIST);
  });
});
