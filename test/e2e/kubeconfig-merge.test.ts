// End to end: `webapi-credential kubeconfig --merge` writes the cluster, user and context into the
// kubeconfig kubectl reads (the first path of $KUBECONFIG, else ~/.kube/config), keeping every other
// entry and comment, and the real kubectl 1.33 reads the result: `kubectl config view`, then
// `kubectl get ns` through the apiserver stand-in, with the plugin's --cache on by default.
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT, leaks, runCli, runCommand, type CliResult } from '../helpers/cli.js';
import { installedDir } from '../helpers/installed.js';
import { TRUST_TEST_CA } from '../helpers/examples.js';
import { KUBECTL_1_33, requireKubectl } from '../helpers/kubectl.js';
import { describeWith } from '../helpers/tools.js';
import { keycloakCluster } from '../helpers/keycloak-cluster.js';

const SECRET = 'merge-client-secret-3Rw';
const CONFIG = `${ROOT}examples/keycloak/config-client-secret-post.yaml`;
const PREFIX = 'webapi-credential: ';
const NOTE = `${PREFIX}note: kubectl must pass CLIENT_SECRET to the plugin: export it where kubectl runs, or add users[].user.exec.env entries\n`;
const cluster = keycloakCluster(SECRET);

const PATH = `${installedDir()}:${process.env['PATH'] ?? '/usr/bin:/bin'}`;

function kubectl(env: Record<string, string>, args: string[]): Promise<CliResult> {
  return runCommand(requireKubectl(KUBECTL_1_33), args, { PATH, CLIENT_SECRET: SECRET, ...TRUST_TEST_CA, ...env });
}

// What a person's kubeconfig holds already: a comment, another cluster, and an entry named like ours.
const EXISTING = `# my clusters, by hand
apiVersion: v1
kind: Config
clusters:
- cluster:
    server: https://other.example:6443 # the other one
  name: other
- cluster:
    server: https://stale.example
  name: e2e
contexts:
- context:
    cluster: other
    user: other
  name: other
current-context: other
preferences: {}
users:
- name: other
  user:
    token: other-static-token
`;

describeWith(KUBECTL_1_33)('kubeconfig --merge, read by the real kubectl 1.33', () => {
  const sets = () => ['--set', `issuer=${cluster.tokenApi.url}/realms/platform`, '--set', 'clientId=kubectl'];
  const merge = (env: Record<string, string>, ...flags: string[]) =>
    runCli(
      [
        'kubeconfig',
        '--server',
        cluster.apiserver.url,
        '--ca-file',
        cluster.apiserver.caFile,
        '--name',
        'e2e',
        '--config',
        CONFIG,
        ...sets(),
        '--merge',
        ...flags,
      ],
      { env },
    );

  it('merges into the first path of $KUBECONFIG, keeps the rest, and kubectl get ns works through the plugin and its cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const home = join(dir, 'home');
    const first = join(dir, 'config');
    const second = join(dir, 'second');
    writeFileSync(first, EXISTING, { mode: 0o644 });
    const env = { HOME: home, KUBECONFIG: `${first}:${second}` };

    const result = await merge(env, '--use');
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: `${NOTE}${PREFIX}updated cluster, user and context e2e in ${first} (its server was https://stale.example, now ${cluster.apiserver.url}); current-context is e2e\n${PREFIX}note: ${first} was mode 0644, readable or writable by others: it is 0600 now, as a file holding credentials should be\n`,
    });
    const text = readFileSync(first, 'utf8');
    expect(statSync(first).mode & 0o777).toBe(0o600);
    // (kubectl config view sorts entries by name; the file keeps its order, checked above.)
    // Everything not ours is there as it was: the comments, the other entries, their order.
    for (const line of [
      '# my clusters, by hand',
      '    server: https://other.example:6443 # the other one',
      '    token: other-static-token',
      'preferences: {}',
    ])
      expect(text).toContain(`${line}\n`);
    expect(text).not.toContain('stale.example');
    expect(text.indexOf('name: other')).toBeLessThan(text.indexOf('name: e2e'));

    const view = await kubectl(env, ['config', 'view', '-o', 'json']);
    expect(view.code, view.stderr).toBe(0);
    const config = JSON.parse(view.stdout) as {
      'current-context': string;
      clusters: Array<{ name: string; cluster: { server: string } }>;
      contexts: Array<{ name: string }>;
      users: Array<{ name: string; user: { exec?: { args: string[] } } }>;
    };
    expect({
      current: config['current-context'],
      clusters: config.clusters.map((c) => [c.name, c.cluster.server]),
      contexts: config.contexts.map((c) => c.name),
      users: config.users.map((u) => u.name),
      args: config.users.find((u) => u.name === 'e2e')!.user.exec!.args,
    }).toEqual({
      current: 'e2e',
      clusters: [
        ['e2e', cluster.apiserver.url],
        ['other', 'https://other.example:6443'],
      ],
      contexts: ['e2e', 'other'],
      users: ['e2e', 'other'],
      args: ['--config', CONFIG, ...sets(), '--cache'],
    });

    const before = cluster.issued.length;
    for (let i = 0; i < 2; i++) {
      const ns = await kubectl(env, ['get', 'ns']);
      expect({ code: ns.code, stderr: ns.stderr }).toEqual({ code: 0, stderr: '' });
      // The stand-in answers no Table: kubectl prints names and ages.
      expect(ns.stdout.split('\n').map((line) => line.split(/\s+/)[0])).toEqual(['NAME', 'default', 'kube-system', '']);
    }
    // --cache, written by default: two kubectl commands, one token.
    expect(cluster.issued.length - before).toBe(1);
    expect(leaks(result, [SECRET])).toEqual([]);

    // A second merge changes nothing; another name adds its entries and leaves current-context alone.
    const again = await merge(env, '--use');
    expect({ code: again.code, stderr: again.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}unchanged: cluster, user and context e2e in ${first}; current-context is e2e\n`,
    });
    expect(readFileSync(first, 'utf8')).toBe(text);
    const other = await runCli(
      ['kubeconfig', '--server', cluster.apiserver.url, '--name', 'staging', '--config', CONFIG, ...sets(), '--merge'],
      { env },
    );
    expect({ code: other.code, stderr: other.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}added cluster, user and context staging to ${first}; kubectl --context staging uses them (or --use makes it current)\n`,
    });
    const after = readFileSync(first, 'utf8');
    expect(after.startsWith(text.slice(0, text.indexOf('contexts:')))).toBe(true);
    expect((await kubectl(env, ['config', 'current-context'])).stdout).toBe('e2e\n');
  });

  it('edits a kubeconfig with flow-style entries and CR LF line ends in place: the other entries byte for byte, and kubectl reads it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const file = join(dir, 'config');
    const kept = [
      'apiVersion: v1\r\nkind: Config\r\nclusters:\r\n- {name: other, cluster: {server: "https://other.example:6443"}}   # flow, spaced\r\n',
      'contexts: [ {name: other, context: {cluster: other, user: other}}',
      'users:\r\n- name: other\r\n  user: {token: other-static-token}   #  kept\r\n',
    ];
    writeFileSync(
      file,
      `${kept[0]}- name: e2e\r\n  cluster: {server: https://stale.example}\r\n${kept[1]} ]\r\ncurrent-context: other\r\n${kept[2]}`,
      { mode: 0o600 },
    );
    const env = { HOME: join(dir, 'home'), KUBECONFIG: file };
    const result = await merge(env, '--use');
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: `${NOTE}${PREFIX}updated cluster, user and context e2e in ${file} (its server was https://stale.example, now ${cluster.apiserver.url}); current-context is e2e\n`,
    });
    const text = readFileSync(file, 'utf8');
    for (const part of kept) expect(text).toContain(part);
    expect(text.replace(/\r\n/g, '')).not.toContain('\n');
    const view = await kubectl(env, ['config', 'view', '-o', 'json']);
    const config = JSON.parse(view.stdout) as {
      'current-context': string;
      clusters: Array<{ name: string; cluster: { server: string } }>;
      contexts: Array<{ name: string }>;
      users: Array<{ name: string }>;
    };
    expect({
      current: config['current-context'],
      clusters: config.clusters.map((c) => [c.name, c.cluster.server]),
      contexts: config.contexts.map((c) => c.name),
      users: config.users.map((u) => u.name),
    }).toEqual({
      current: 'e2e',
      clusters: [
        ['e2e', cluster.apiserver.url],
        ['other', 'https://other.example:6443'],
      ],
      contexts: ['e2e', 'other'],
      users: ['e2e', 'other'],
    });
    const ns = await kubectl(env, ['get', 'ns', '-o', 'name']);
    expect({ code: ns.code, stdout: ns.stdout, stderr: ns.stderr }).toEqual({
      code: 0,
      stdout: 'namespace/default\nnamespace/kube-system\n',
      stderr: '',
    });
    const again = await merge(env, '--use');
    expect({ code: again.code, stderr: again.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}unchanged: cluster, user and context e2e in ${file}; current-context is e2e\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it('names entries host:port: two clusters on one host, merged into a 1,000-cluster kubeconfig, are two contexts kubectl uses', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const file = join(dir, 'config');
    const ca = readFileSync(cluster.apiserver.caFile).toString('base64');
    const big = ['apiVersion: v1', 'clusters:'];
    for (let i = 0; i < 1000; i++)
      big.push(
        '- cluster:',
        `    certificate-authority-data: ${ca}`,
        `    server: https://c${i}.example.com`,
        `  name: c${i}`,
      );
    big.push('contexts: []', 'current-context: ""', 'kind: Config', 'preferences: {}', 'users: []', '');
    writeFileSync(file, big.join('\n'), { mode: 0o600 });
    const env = { HOME: join(dir, 'home'), KUBECONFIG: file };
    const port = new URL(cluster.apiserver.url).port;
    const other = `https://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`;
    const byHost = (server: string, ...flags: string[]) =>
      runCli(
        [
          'kubeconfig',
          '--server',
          server,
          '--ca-file',
          cluster.apiserver.caFile,
          '--config',
          CONFIG,
          ...sets(),
          '--merge',
          ...flags,
        ],
        { env },
      );
    const first = await byHost(cluster.apiserver.url, '--use');
    expect({ code: first.code, stderr: first.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}added cluster, user and context 127.0.0.1:${port} to ${file}; current-context is 127.0.0.1:${port}\n`,
    });
    const second = await byHost(other);
    expect(second.stderr).toBe(
      `${NOTE}${PREFIX}added cluster, user and context ${new URL(other).host} to ${file}; kubectl --context ${new URL(other).host} uses them (or --use makes it current)\n`,
    );
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith(big.slice(0, 4 * 1000 + 2).join('\n'))).toBe(true);
    const contexts = await kubectl(env, ['config', 'get-contexts', '-o', 'name']);
    expect({ code: contexts.code, names: contexts.stdout.trim().split('\n').sort() }).toEqual({
      code: 0,
      names: [`127.0.0.1:${port}`, new URL(other).host].sort(),
    });
    const clusters = await kubectl(env, ['config', 'get-clusters']);
    expect(clusters.stdout.trim().split('\n')).toHaveLength(1 + 1002);
    const ns = await kubectl(env, ['get', 'ns', '-o', 'name']);
    expect({ code: ns.code, stdout: ns.stdout, stderr: ns.stderr }).toEqual({
      code: 0,
      stdout: 'namespace/default\nnamespace/kube-system\n',
      stderr: '',
    });
  });

  // Shapes an adversarial review found the merge corrupting (kubectl then refused the whole file, or
  // read a second entry of our name): an empty flow mapping, a key with no value, an entry named
  // through a merge key (<<), and names YAML 1.1 reads as a boolean or a number (--name on).
  it('merges into unusual kubeconfigs so that kubectl reads them, our entries once, under the name given', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const cases: Array<[string, string, string[]]> = [
      ['e2e', '{}\n', []],
      ['e2e', '{clusters, apiVersion: v1}\n', []],
      ['e2e', 'apiVersion: v1\n? current-context\nclusters: []\n', []],
      [
        'e2e',
        'named: &n {name: e2e}\nclusters:\n- <<: *n\n  cluster: {server: https://stale.example}\n- name: other\n  cluster: {server: https://other.example}\n',
        ['other'],
      ],
      [
        'on',
        'clusters:\n- name: other\n  cluster:\n    server: https://other.example\ncurrent-context: other\n',
        ['other'],
      ],
      ['no', 'clusters: [{name: other, cluster: {server: https://other.example}}]\n', ['other']],
    ];
    for (const [index, [name, before, others]] of cases.entries()) {
      const file = join(dir, `config-${index}`);
      writeFileSync(file, before, { mode: 0o600 });
      const env = { HOME: join(dir, 'home'), KUBECONFIG: file };
      const result = await runCli(
        [
          'kubeconfig',
          '--server',
          cluster.apiserver.url,
          '--ca-file',
          cluster.apiserver.caFile,
          '--name',
          name,
          '--config',
          CONFIG,
          ...sets(),
          '--merge',
          '--use',
        ],
        { env },
      );
      expect({ before, code: result.code, stdout: result.stdout }).toEqual({ before, code: 0, stdout: '' });
      const view = await kubectl(env, ['config', 'view', '-o', 'json']);
      expect({ before, code: view.code, stderr: view.stderr }).toEqual({ before, code: 0, stderr: '' });
      const config = JSON.parse(view.stdout) as {
        'current-context': string;
        clusters: Array<{ name: string }>;
        contexts: Array<{ name: string }>;
        users: Array<{ name: string }>;
      };
      expect({
        before,
        current: config['current-context'],
        clusters: config.clusters.map((c) => c.name).sort(),
        contexts: config.contexts.map((c) => c.name),
        users: config.users.map((u) => u.name),
      }).toEqual({
        before,
        current: name,
        clusters: [name, ...others].sort(),
        contexts: [name],
        users: [name],
      });
      expect(leaks(result, [SECRET])).toEqual([]);
    }
  });

  it('without $KUBECONFIG creates ~/.kube/config (mode 0600), and an explicit file wins over both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const home = join(dir, 'home');
    const result = await merge({ HOME: home }, '--use');
    const path = join(home, '.kube', 'config');
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}added cluster, user and context e2e to ${path}; current-context is e2e\n`,
    });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const ns = await kubectl({ HOME: home }, ['get', 'ns', '-o', 'name']);
    expect({ code: ns.code, stdout: ns.stdout }).toEqual({
      code: 0,
      stdout: 'namespace/default\nnamespace/kube-system\n',
    });

    mkdirSync(join(dir, 'elsewhere'));
    const explicit = join(dir, 'elsewhere', 'kubeconfig');
    const written = await runCli(
      [
        'kubeconfig',
        '--server',
        cluster.apiserver.url,
        '--name',
        'e2e',
        '--config',
        CONFIG,
        ...sets(),
        '--merge',
        explicit,
      ],
      { env: { HOME: home, KUBECONFIG: path } },
    );
    expect({ code: written.code, stderr: written.stderr }).toEqual({
      code: 0,
      stderr: `${NOTE}${PREFIX}added cluster, user and context e2e to ${explicit}; kubectl --context e2e uses them (or --use makes it current)\n`,
    });
  });
});
