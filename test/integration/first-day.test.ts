// What a newcomer meets on the first day (issue 18): an env value argocd-secret left as its
// placeholder, a command without its subcommand, a token API that never answers, env variables
// validate needs. Each as a process: exit code, the one line, no secret anywhere.
import { execFileSync } from 'node:child_process';
import {
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { PINNED_NODE, ROOT, baseEnv, leaks, runCli, runCommand } from '../helpers/cli.js';
import { SECRET, SECRET_ENV, basic, expectFailure, provider, tokenApis } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';

const start = tokenApis();

describe('an env value still holding the placeholder argocd-secret wrote', () => {
  it('is exit 2 naming the variable, before any request', async () => {
    const api = await start((_request, response) => json(response, 200, { access_token: SECRET.token }));
    const sets = ['--set', `issuer=${api.url}/realms/r`, '--set', 'clientId=argocd'];
    const generated = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'p',
      '--config',
      'examples/keycloak/config.yaml',
      ...sets,
    ]);
    expect(generated.code).toBe(0);
    const secret = YAML.parse(generated.stdout) as { stringData: { config: string } };
    const exec = (
      JSON.parse(secret.stringData.config) as { execProviderConfig: { args: string[]; env: Record<string, string> } }
    ).execProviderConfig;
    expect(exec.env).toEqual({ CLIENT_SECRET: '<CLIENT_SECRET>' });
    for (const command of [[], ['validate'], ['render']]) {
      const result = await runCli([...command, ...exec.args], { env: exec.env });
      expectFailure(
        result,
        2,
        'env.CLIENT_SECRET still holds the placeholder <CLIENT_SECRET> that argocd-secret wrote; put the real value in the cluster secret',
      );
    }
    expect(api.requests).toHaveLength(0);
  });

  it('names every such variable a template reads, and only those', async () => {
    const config = provider(
      basic('https://127.0.0.1:9/token', { headers: { A: '{{ env.API_KEY }}', B: '{{ env.OTHER ?? "x" }}' } }),
    );
    const result = await runCli(['validate', '--config-inline', config], {
      env: { API_KEY: '<API_KEY>', OTHER: '<OTHER>', UNREAD: '<UNREAD>' },
    });
    expectFailure(
      result,
      2,
      'env.API_KEY still holds the placeholder <API_KEY> that argocd-secret wrote; put the real value in the cluster secret; ' +
        'env.OTHER still holds the placeholder <OTHER> that argocd-secret wrote; put the real value in the cluster secret',
    );
  });

  it('a value that merely looks like one is sent', async () => {
    const api = await start((_request, response) => json(response, 200, { access_token: SECRET.token }));
    const config = provider(
      basic(`${api.url}/token`, { headers: { A: '{{ env.API_KEY }}' }, tls: { caFile: makePki().ca.certFile } }),
    );
    const result = await runCli(['--config-inline', config, '-o', 'token'], {
      env: { ...SECRET_ENV, API_KEY: '<OTHER_NAME>' },
    });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: `${SECRET.token}\n` });
    expect(api.requests[0]!.headers['a']).toBe('<OTHER_NAME>');
  });
});

describe('a command without its subcommand, or with an unknown one', () => {
  it.each([
    [['cache'], 'cache needs a subcommand: clear (see cache --help)'],
    [['cache', 'foo'], 'cache has no subcommand "foo"; it takes clear (see cache --help)'],
    [['completion'], 'completion needs a shell: bash, zsh, fish, powershell (see completion --help)'],
    [
      ['completion', 'tcsh'],
      "command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish, powershell. (see --help)",
    ],
    [['cache', 'clear', 'extra'], "too many arguments for 'clear'. Expected 0 arguments but got 1. (see --help)"],
  ])('%j is exit 2 listing what it takes', async (args, message) => {
    expectFailure(await runCli(args, { env: SECRET_ENV }), 2, message);
  });
});

describe('npm run demo', () => {
  it('writes basicAuth(), and its secret holding + and : gets a credential without being shown', async () => {
    const result = await runCommand(PINNED_NODE, [`${ROOT}scripts/demo.mjs`], baseEnv());
    expect({ code: result.code, stdout: JSON.parse(result.stdout) as unknown }).toEqual({
      code: 0,
      stdout: {
        apiVersion: 'client.authentication.k8s.io/v1beta1',
        kind: 'ExecCredential',
        status: { token: 'demo-token-for-kubernetes', expirationTimestamp: expect.any(String) },
      },
    });
    expect(result.stderr).toContain('Authorization: "{{ basicAuth(env.CLIENT_ID, env.CLIENT_SECRET) }}"');
    expect(
      leaks(result, ['s3cr3t+demo:value', Buffer.from('demo-client:s3cr3t%2Bdemo%3Avalue').toString('base64')]),
    ).toEqual([]);
  });
});

describe('kubeconfig --merge refuses what it cannot merge, and leaves the file alone', () => {
  const args = [
    'kubeconfig',
    '--server',
    'https://k8s.example.com',
    '--name',
    'prod',
    '--config',
    'examples/keycloak/config.yaml',
    '--set',
    'issuer=https://kc/realms/r',
    '--set',
    'clientId=c',
  ];

  it('--use without --merge is exit 2', async () => {
    expectFailure(
      await runCli([...args, '--use'], { env: SECRET_ENV }),
      2,
      '--use sets current-context of the kubeconfig --merge writes: add --merge',
    );
  });

  it.each([
    [
      'not YAML',
      'clusters: [\n',
      /^\S+ is not valid YAML \(.+[^:]\); fix it or choose another file with --merge <file>$/,
    ],
    [
      'two YAML documents',
      'apiVersion: v1\n---\nkind: Config\n',
      /^\S+ is not valid YAML \(it holds more than one document\); fix it or choose another file with --merge <file>$/,
    ],
    [
      'a list where a kubeconfig is a mapping',
      '- a\n- b\n',
      /^\S+ is not a kubeconfig \(not a mapping\); fix it or choose another file with --merge <file>$/,
    ],
    [
      'clusters that are not a list',
      'clusters: {a: 1}\n',
      /^\S+: clusters is not a list; fix it or choose another file with --merge <file>$/,
    ],
  ])('a file holding %s is exit 2, unchanged', async (_what, text, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    writeFileSync(path, text);
    expectFailure(await runCli([...args, '--merge', path], { env: SECRET_ENV }), 2, message);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['config']);
  });

  it.each([
    ['a directory', (path: string) => mkdirSync(path), 'not a regular file'],
    ['a FIFO nobody writes to', (path: string) => execFileSync('mkfifo', [path]), 'not a regular file'],
    [
      'more than 16 MiB (eight times a 1,000-cluster kubeconfig)',
      (path: string) => writeFileSync(path, `# ${'x'.repeat(16 << 20)}\n`),
      'larger than 16 MiB',
    ],
  ])(
    'a kubeconfig that is %s is exit 2 naming it, not followed or read without bound',
    async (_what, make, problem) => {
      const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
      const path = join(dir, 'config');
      make(path);
      expectFailure(
        await runCli([...args, '--merge', path], { env: SECRET_ENV }),
        2,
        `cannot read ${path}: ${problem}`,
      );
      expect(readdirSync(dir)).toEqual(['config']);
    },
  );

  it('a kubeconfig denser than one YAML token per 2 bytes is exit 2 before its parser runs, unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    // Every file is parsed (the text scan that read block files without the parser is gone, issue 34),
    // under a bound that grows with the file (10 000 at least). A flow list of one-letter scalars has
    // a token a byte; the flow mapping of 12,000 numbered keys this case had (2.2 bytes a token) is
    // read now: the bound was one token per 8 bytes, which refused kubeconfigs without CA data (3.6).
    const text = `apiVersion: v1\nkind: Config\nclusters: [${'a,'.repeat(40_000)}a]\n`;
    writeFileSync(path, text);
    expectFailure(
      await runCli([...args, '--merge', path], { env: SECRET_ENV }),
      2,
      `${path} is too large to merge into: more than ${Math.max(10_000, Math.ceil(text.length / 2))} YAML tokens; choose another file with --merge <file>`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('a kubeconfig with a dense flow mapping under the bound is merged in place: the mapping it does not touch stays as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    const preferences = `preferences: {${Array.from({ length: 12_000 }, (_, i) => `k${i}: ${i}`).join(', ')}}\n`;
    writeFileSync(path, `apiVersion: v1\nkind: Config\n${preferences}`, { mode: 0o600 });
    const result = await runCli([...args, '--merge', path], { env: SECRET_ENV });
    expect({ code: result.code, stderr: result.stderr.split('\n').at(-2) }).toEqual({
      code: 0,
      stderr: `webapi-credential: added cluster, user and context prod to ${path}; kubectl --context prod uses them (or --use makes it current)`,
    });
    expect(readFileSync(path, 'utf8')).toContain(`\n${preferences}`);
  });

  it('chained anchors inside the replaced entry, aliased elsewhere, end at the alias bound (exit 2), not in an exponential copy', async () => {
    // A clone kept the aliases inside the copied value, which the walk then copied again: twenty
    // levels of `[*a, *a]` doubled per level and never ended.
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    const levels = Array.from({ length: 20 }, (_, i) => `    l${i + 1}: &a${i + 1} [*a${i}, *a${i}]`);
    const text = [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: prod',
      '  cluster:',
      '    server: https://old.example.com',
      '    extensions:',
      '    - name: x',
      '      extension:',
      '        l0: &a0 [x]',
      ...levels.map((line) => `    ${line}`),
      '- name: other',
      '  cluster: {server: https://other.example.com, bomb: *a20}',
      'users: []',
      'contexts: []',
      '',
    ].join('\n');
    writeFileSync(path, text);
    const result = await runCli([...args, '--merge', path], { env: SECRET_ENV, timeoutMs: 15_000 });
    expectFailure(
      result,
      2,
      `${path}: an alias elsewhere refers to an anchor inside an entry being replaced, and expands too far; remove the alias, or choose another file with --merge <file>`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('an entry holding an anchor that another entry aliases is replaced, and the alias keeps what it meant', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    writeFileSync(
      path,
      [
        '# shared clusters',
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: prod',
        '  cluster: &shared {server: https://old.example.com}',
        '- name: staging # same cluster',
        '  cluster: *shared',
        'users: []',
        'contexts: []',
        '',
      ].join('\n'),
    );
    const result = await runCli([...args, '--merge', path], { env: SECRET_ENV });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
    const merged = YAML.parse(readFileSync(path, 'utf8')) as {
      clusters: Array<{ name: string; cluster: { server: string } }>;
    };
    expect(merged.clusters).toEqual([
      { name: 'prod', cluster: { server: 'https://k8s.example.com' } },
      { name: 'staging', cluster: { server: 'https://old.example.com' } },
    ]);
    expect(readFileSync(path, 'utf8')).toContain('# shared clusters');
  });

  it.each([
    ['only a comment', '# my kubeconfig, empty for now\n'],
    ['an empty document', '---\n'],
  ])('a kubeconfig holding %s (kubectl reads it as empty) is merged into, its comment kept', async (_what, text) => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    writeFileSync(path, text);
    const result = await runCli([...args, '--merge', path, '--use'], { env: SECRET_ENV });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
    const written = readFileSync(path, 'utf8');
    expect(YAML.parse(written)).toMatchObject({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'prod',
      clusters: [{ name: 'prod' }],
    });
    if (text.startsWith('#')) expect(written.startsWith('# my kubeconfig, empty for now\n')).toBe(true);
  });

  it('entries duplicating the name it writes (which kubectl refuses) become the one entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    const entry = (n: number) => [`- name: prod`, `  cluster: {server: https://old${n}.example.com}`];
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        ...entry(1),
        '- name: other',
        '  cluster: {server: https://other.example.com}',
        ...entry(2),
        '',
      ].join('\n'),
    );
    const result = await runCli([...args, '--merge', path], { env: SECRET_ENV });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
    const merged = YAML.parse(readFileSync(path, 'utf8')) as {
      clusters: Array<{ name: string; cluster: { server: string } }>;
    };
    expect(merged.clusters.map((c) => [c.name, c.cluster.server])).toEqual([
      ['prod', 'https://k8s.example.com'],
      ['other', 'https://other.example.com'],
    ]);
  });

  it("merges started together lose no entry: each takes kubectl's lock (<file>.lock) in turn", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    const names = ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'];
    const results = await Promise.all(
      names.map((name) =>
        runCli([...args.map((arg) => (arg === 'prod' ? name : arg)), '--merge', path], { env: SECRET_ENV }),
      ),
    );
    for (const result of results) expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 0, stdout: '' });
    const merged = YAML.parse(readFileSync(path, 'utf8')) as Record<
      'clusters' | 'users' | 'contexts',
      Array<{ name: string }>
    >;
    for (const section of ['clusters', 'users', 'contexts'] as const)
      expect(merged[section].map((e) => e.name).sort()).toEqual(names);
    expect(readdirSync(dir)).toEqual(['config']);
  });

  it('a lock left by another writer is waited for, then exit 2 naming it; the file is unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\n');
    writeFileSync(`${path}.lock`, '');
    expectFailure(
      await runCli([...args, '--merge', path], { env: SECRET_ENV }),
      2,
      `${path}.lock exists: kubectl or another webapi-credential is writing ${path}; remove ${path}.lock if none is`,
    );
    expect(readFileSync(path, 'utf8')).toBe('apiVersion: v1\nkind: Config\n');
  });

  // Only root can give a link another owner; elsewhere this case cannot be set up.
  it.runIf(process.getuid?.() === 0)('a symbolic link another user planted is not written through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    writeFileSync(join(dir, 'victim'), 'not a kubeconfig, keep me\n');
    symlinkSync(join(dir, 'victim'), join(dir, 'link'));
    lchownSync(join(dir, 'link'), 4242, 4242);
    expectFailure(
      await runCli([...args, '--merge', join(dir, 'link')], { env: SECRET_ENV }),
      2,
      `${join(dir, 'link')} is a symbolic link owned by uid 4242, not by you; refusing to write through it: choose another file with --merge <file>`,
    );
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('not a kubeconfig, keep me\n');
  });

  // sudo keeps HOME on some systems: root merging into a user's kubeconfig must leave it the user's,
  // as kubectl (which writes the file in place) does.
  it.runIf(process.getuid?.() === 0)("root merging into another user's kubeconfig leaves it that user's", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const path = join(dir, 'config');
    writeFileSync(path, 'apiVersion: v1\nkind: Config\n', { mode: 0o600 });
    chownSync(path, 4242, 4343);
    const result = await runCli([...args, '--merge', path], { env: SECRET_ENV });
    expect(result.code).toBe(0);
    expect(readFileSync(path, 'utf8')).toContain('name: prod');
    const stat = lstatSync(path);
    expect({ uid: stat.uid, gid: stat.gid, mode: stat.mode & 0o777 }).toEqual({ uid: 4242, gid: 4343, mode: 0o600 });
  });

  it('a kubeconfig that is a symbolic link stays one: the file it points at is written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    writeFileSync(join(dir, 'real'), 'apiVersion: v1\nkind: Config\n');
    symlinkSync(join(dir, 'real'), join(dir, 'link'));
    const result = await runCli([...args, '--merge', join(dir, 'link')], { env: SECRET_ENV });
    expect(result.code).toBe(0);
    expect(lstatSync(join(dir, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, 'real'), 'utf8')).toContain('name: prod');
  });
});
