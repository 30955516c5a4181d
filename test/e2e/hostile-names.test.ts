// Issue 39.1, end to end: every name of the hostile-name catalogue that `kubeconfig --merge` accepts
// (test/kubeconfig/hostile-names.ts) is read by the real kubectl 1.33 as the name the report printed:
// the file stays one kubectl reads (U+2028 in a name once made it refuse the whole file), and what it
// reads is the cluster, user, context and current-context of that name, beside the entries kept.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { runCommand } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { KUBECTL_1_33, requireKubectl } from '../helpers/kubectl.js';
import { describeWith } from '../helpers/tools.js';
import { ACCEPTED } from '../kubeconfig/hostile-names.js';

const EXISTING =
  'apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n    server: https://other.example.com\ncontexts:\n- name: other\n  context: {cluster: other, user: other}\ncurrent-context: other\nusers:\n- name: other\n  user: {token: t}\n';

interface View {
  clusters: Array<{ name: string }>;
  users: Array<{ name: string }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string } }>;
  'current-context': string;
}

describeWith(KUBECTL_1_33)('hostile names read back by the real kubectl 1.33', () => {
  it.each(ACCEPTED)('%s: kubectl reads the name the report printed', async (_what, name) => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-names-'));
    const file = join(dir, 'config');
    writeFileSync(file, EXISTING, { mode: 0o600 });
    const merged = await runInProcess([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--name',
      name,
      '--config-inline',
      'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
      '--merge',
      file,
      '--use',
    ]);
    expect(merged.code).toBe(0);
    const printed = /^webapi-credential: added cluster, user and context (.*) to /.exec(merged.stderr)?.[1];
    expect(printed).toBe(name);
    const view = await runCommand(requireKubectl(KUBECTL_1_33), ['config', 'view', '--raw', '-o', 'json'], {
      HOME: join(dir, 'home'),
      KUBECONFIG: file,
      PATH: '/usr/bin:/bin',
    });
    expect({ code: view.code, stderr: view.stderr }).toEqual({ code: 0, stderr: '' });
    const read = JSON.parse(view.stdout) as View;
    // kubectl config view sorts the entries by name.
    for (const section of ['clusters', 'users', 'contexts'] as const)
      expect(read[section].map((entry) => entry.name).sort()).toEqual([printed!, 'other'].sort());
    expect(read.contexts.find((entry) => entry.name === printed)!.context).toMatchObject({
      cluster: printed,
      user: printed,
    });
    expect(read['current-context']).toBe(printed);
  });
});
