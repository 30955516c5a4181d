// Two `kubeconfig --merge --kuberc` at once, for two plugins, on the same kuberc: each reads the
// kuberc when it starts and writes it after its kubeconfig merge. Both entries must be in the file
// at the end: the second writer must not put back the text it read before the first one wrote.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runInProcess } from '../helpers/in-process.js';

const KUBERC =
  '# mine\napiVersion: kubectl.config.k8s.io/v1beta1\nkind: Preference\ncredentialPluginPolicy: Allowlist\ncredentialPluginAllowlist:\n- name: /usr/bin/kubelogin\n';

describe('concurrent kubeconfig --merge --kuberc', () => {
  it.each([2, 4])('%i merges at once: every plugin is in the allowlist, the comment kept', async (count) => {
    const dir = mkdtempSync(join(tmpdir(), 'kuberc-concurrent-'));
    writeFileSync(join(dir, 'kuberc'), KUBERC);
    const config = join(dir, 'config.yaml');
    writeFileSync(
      config,
      'webAPIProviderConfig:\n  method: POST\n  url: https://token.example.com/token\n  tokenPath: $.access_token\n',
    );
    const env = { HOME: dir, PATH: '/usr/bin:/bin', KUBERC: join(dir, 'kuberc'), KUBECONFIG: join(dir, 'kubeconfig') };
    const plugins = Array.from({ length: count }, (_, i) => `/opt/plugin-${i}/webapi-credential`);
    const results = await Promise.all(
      plugins.map((plugin, i) =>
        runInProcess(
          [
            'kubeconfig',
            '--server',
            'https://k8s.example.com:6443',
            '--config',
            config,
            '--name',
            `c${i}`,
            '--command',
            plugin,
            '--merge',
            '--kuberc',
          ],
          { env },
        ),
      ),
    );
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(join(dir, 'kuberc'), 'utf8');
    expect(text.startsWith('# mine\n')).toBe(true);
    const names = (
      YAML.parse(text) as { credentialPluginAllowlist: Array<{ name: string }> }
    ).credentialPluginAllowlist.map((entry) => entry.name);
    expect(names.sort()).toEqual(['/usr/bin/kubelogin', ...plugins].sort());
  });
});
