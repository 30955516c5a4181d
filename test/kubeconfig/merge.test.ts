// kubeconfig --merge as the SPEC's Generators section says: entries it does not touch keep their
// text byte for byte, the report says added / updated (naming the server it replaced) / unchanged,
// a 1,000-cluster kubeconfig with CA data is merged with one count of its tokens (the bound), one parse
// of it and one of the result, and a file readable by others is narrowed to 0600 with a note.
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { countingYaml } from '../helpers/counting-yaml.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const CA = Buffer.from(pki.ca.cert).toString('base64');
const entries = (name: string, server: string) => ({
  name,
  cluster: { server, 'certificate-authority-data': CA },
  user: {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'webapi-credential',
      args: ['--config', '/p.yaml', '--cache'],
    },
  },
  context: { cluster: name, user: name },
});

/** A kubeconfig as kubectl writes it, with `n` clusters carrying CA data, and hand-made touches. */
function kubeconfig(n: number): string {
  const lines = ['# my clusters, by hand', 'apiVersion: v1', 'clusters:'];
  for (let i = 0; i < n; i++)
    lines.push(
      '- cluster:',
      `    certificate-authority-data: ${CA}`,
      `    server: https://c${i}.example.com:6443   # spaced comment`,
      `  name: c${i}`,
    );
  lines.push('- cluster: {server: https://flow.example.com}', '  name: flow', 'contexts:');
  for (let i = 0; i < n; i++) lines.push('- context:', `    cluster: c${i}`, `    user: u${i}`, `  name: c${i}`);
  lines.push('current-context: c0', 'kind: Config', 'preferences: {}', 'users:');
  for (let i = 0; i < n; i++) lines.push(`- name: u${i}`, '  user:', `    token: "static-${i}"`);
  return `${lines.join('\n')}\n`;
}

const lines = (text: string) => text.split('\n');
const js = (text: string) =>
  YAML.parse(text) as {
    clusters: Array<{ name: string; cluster: Record<string, unknown> }>;
    users: Array<{ name: string }>;
    contexts: Array<{ name: string }>;
    'current-context': string;
  };

describe('mergeKubeconfig', () => {
  // Linear work, counted: the lexer counts the file's tokens once (the bound, read.ts), the parser
  // reads the file and the result once each (the check that the result reads as meant, check.ts).
  // The text scan this once went through counted no tokens (lex: 0); it is gone (issue 34).
  it('adds to a 1,000-cluster kubeconfig with CA data in place: one count of its tokens, one parse of the file and one of the result, every other line as it was', () => {
    const before = kubeconfig(1000);
    expect(before.length).toBeGreaterThan(900_000);
    const { module, calls } = countingYaml();
    const merged = mergeKubeconfig(
      module,
      before,
      entries('new.example.com:8443', 'https://new.example.com:8443'),
      true,
      'kc',
    );
    expect(calls).toEqual({ parseDocument: 2, lex: 1 });
    expect(merged.outcome).toBe('added');
    // Every line of the file is still there, in order: only ours were inserted, and current-context changed.
    const kept = lines(before).filter((line) => !line.startsWith('current-context:'));
    const after = lines(merged.text);
    let at = 0;
    for (const line of after) if (line === kept[at]) at++;
    expect(at).toBe(kept.length);
    const parsed = js(merged.text);
    expect(parsed['current-context']).toBe('new.example.com:8443');
    expect(parsed.clusters).toHaveLength(1002);
    expect(parsed.clusters.at(-1)).toEqual({
      name: 'new.example.com:8443',
      cluster: { server: 'https://new.example.com:8443', 'certificate-authority-data': CA },
    });
    expect(parsed.users.map((user) => user.name).slice(-2)).toEqual(['u999', 'new.example.com:8443']);
  });

  it('updates an entry in place, naming the server it replaced, and leaves its neighbours byte for byte', () => {
    const before = kubeconfig(3);
    const merged = mergeKubeconfig(YAML, before, entries('c1', 'https://moved.example.com'), false, 'kc');
    expect({ outcome: merged.outcome, replacedServer: merged.replacedServer }).toEqual({
      outcome: 'updated',
      replacedServer: 'https://c1.example.com:6443',
    });
    expect(merged.text).toContain('- cluster: {server: https://flow.example.com}\n  name: flow\n');
    expect(merged.text).toContain(
      `    server: https://c0.example.com:6443   # spaced comment\n  name: c0\n- name: c1\n  cluster:\n    server: https://moved.example.com\n`,
    );
    expect(merged.text).toContain(`  name: c2\n`);
    expect(merged.text.startsWith('# my clusters, by hand\napiVersion: v1\nclusters:\n')).toBe(true);
    expect(js(merged.text)['current-context']).toBe('c0');
    const again = mergeKubeconfig(YAML, merged.text, entries('c1', 'https://moved.example.com'), false, 'kc');
    expect(again).toEqual({ text: merged.text, outcome: 'unchanged' });
  });

  it.each([
    [
      'indented lists',
      'apiVersion: v1\nclusters:\n  - name: a\n    cluster:\n      server: https://a.example.com\nusers:\n  - name: a\n    user: {}\n',
    ],
    [
      'empty lists as kubectl writes a fresh file',
      'apiVersion: v1\nclusters: null\ncontexts: null\ncurrent-context: ""\nkind: Config\npreferences: {}\nusers: null\n',
    ],
    ['flow empty lists, a comment after the key', 'apiVersion: v1\nclusters: []\ncontexts: # none yet\nusers: []\n'],
    ['no lists at all', 'apiVersion: v1\nkind: Config\n'],
    [
      'quoted names and a comment between entries',
      "clusters:\n- name: 'it''s'\n  cluster:\n    server: https://q.example.com\n# between\n- name: \"x\"\n  cluster:\n    server: https://x.example.com\n",
    ],
    ['anchors', 'clusters:\n- name: x\n  cluster: &c\n    server: https://x.example.com\n- name: y\n  cluster: *c\n'],
    [
      'two documents markers and tabs avoided: a flow list of entries',
      'clusters: [{name: x, cluster: {server: https://x.example.com}}]\n',
    ],
  ])('%s: the same entries as the parser reads them, and the rest kept', (_what, before) => {
    const merged = mergeKubeconfig(YAML, before, entries('x', 'https://new.example.com'), true, 'kc');
    const parsed = js(merged.text);
    const old = YAML.parse(before) as Record<string, Array<{ name: string }> | null>;
    for (const section of ['clusters', 'users', 'contexts'] as const) {
      const names = parsed[section].map((entry) => entry.name);
      expect(names.filter((name) => name === 'x')).toHaveLength(1);
      expect(names.filter((name) => name !== 'x')).toEqual(
        (old[section] ?? []).map((entry) => entry.name).filter((name) => name !== 'x'),
      );
    }
    expect(parsed.clusters.find((entry) => entry.name === 'x')!.cluster['server']).toBe('https://new.example.com');
    expect(parsed['current-context']).toBe('x');
  });

  it.each([
    [
      'a plain value',
      'current-context: lab   # switch with kubectl config use-context\n',
      'current-context: x   # switch with kubectl config use-context\n',
    ],
    ['a quoted value, a # inside it', 'current-context: "a # b" # mine\n', 'current-context: x # mine\n'],
    ['a single-quoted value', "current-context: 'it''s'\t# mine\n", 'current-context: x\t# mine\n'],
    ['no comment, a # inside quotes', 'current-context: "a # b"\n', 'current-context: x\n'],
    ['CRLF', 'current-context: lab # mine\r\n', 'current-context: x # mine\r\n'],
  ])('--use keeps the comment on the current-context line (%s)', (_what, line, after) => {
    const before = `apiVersion: v1\nkind: Config\n${line}`;
    const merged = mergeKubeconfig(YAML, before, entries('x', 'https://new.example.com'), true, 'kc');
    expect(merged.text).toContain(after);
    expect(js(merged.text)['current-context']).toBe('x');
  });

  it.each([
    ['kubectl style', kubeconfig(3)],
    [
      'indented lists with comments between entries',
      'apiVersion: v1\nclusters:\n  # first\n  - name: x\n    cluster:\n      server: https://old.example.com\n  # second\n  - name: y\n    cluster:\n      server: https://y.example.com\ncontexts:\n  - name: x\n    context: {cluster: x, user: x}\nusers: []\n',
    ],
    [
      'two entries of one name, and no contexts key',
      'clusters:\n- name: x\n  cluster:\n    server: https://a.example.com\n- name: z\n  cluster: {server: https://z.example.com}\n- name: x\n  cluster:\n    server: https://b.example.com\nusers:\n- name: x\n  user: {token: t}\ncurrent-context: z # mine\n',
    ],
    [
      'a file without a final newline',
      'apiVersion: v1\nclusters:\n- name: q\n  cluster:\n    server: https://q.example.com',
    ],
  ])('%s: a tag elsewhere in the file changes nothing of what the merge gives', (_what, before) => {
    for (const use of [false, true]) {
      const text = mergeKubeconfig(YAML, before, entries('x', 'https://new.example.com'), use, 'kc');
      const { calls, module } = countingYaml();
      const document = mergeKubeconfig(
        module,
        `${before.replace(/\n?$/, '\n')}x-forced: !!str parser\n`,
        entries('x', 'https://new.example.com'),
        use,
        'kc',
      );
      expect(calls.lex).toBe(1);
      const { 'x-forced': forced, ...rest } = YAML.parse(document.text) as Record<string, unknown>;
      expect(forced).toBe('parser');
      expect(YAML.parse(text.text)).toEqual(rest);
      expect({ outcome: text.outcome, replacedServer: text.replacedServer }).toEqual({
        outcome: document.outcome,
        replacedServer: document.replacedServer,
      });
    }
  });

  it('the parse keeps a token bound that grows with the file: a dense flow kubeconfig is refused, a 1,000-cluster flow one is not', () => {
    const flow = `clusters: [${Array.from({ length: 1000 }, (_, i) => `{name: c${i}, cluster: {server: "https://c${i}.example.com", certificate-authority-data: ${CA}}}`).join(', ')}]\n`;
    expect(mergeKubeconfig(YAML, flow, entries('x', 'https://x.example.com'), false, 'kc').outcome).toBe('added');
    // One token a byte and more: a flow mapping of 12,000 numbered keys (2.2 bytes a token) was refused
    // when the bound was one token per 8 bytes, which refused a kubeconfig without CA data too (3.6).
    const dense = `clusters: [${'a,'.repeat(40_000)}a]\n`;
    expect(() => mergeKubeconfig(YAML, dense, entries('x', 'https://x.example.com'), false, 'kc')).toThrow(
      `kc is too large to merge into: more than ${Math.ceil(dense.length / 2)} YAML tokens; choose another file with --merge <file>`,
    );
  });
});

describe('kubeconfig --merge reports what it did', () => {
  const args = (server: string, file: string) => [
    'kubeconfig',
    '--server',
    server,
    '--config-inline',
    'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
    '--merge',
    file,
  ];

  it('names entries host:port, says added / updated / unchanged, and narrows a 0640 file to 0600 with a note', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-merge-'));
    const file = join(dir, 'config');
    writeFileSync(file, kubeconfig(2));
    chmodSync(file, 0o640);
    const first = await runInProcess(args('https://k8s.example.com:6443', file));
    expect(first).toEqual({
      code: 0,
      stdout: '',
      stderr: `webapi-credential: added cluster, user and context k8s.example.com:6443 to ${file}; kubectl --context k8s.example.com:6443 uses them (or --use makes it current)\nwebapi-credential: note: ${file} was mode 0640, readable or writable by others: it is 0600 now, as a file holding credentials should be\n`,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Another cluster on the same host, other port: its own entries, the first one's kept.
    const second = await runInProcess(args('https://k8s.example.com', file));
    expect(second.stderr).toBe(
      `webapi-credential: added cluster, user and context k8s.example.com to ${file}; kubectl --context k8s.example.com uses them (or --use makes it current)\n`,
    );
    const named = await runInProcess([
      'kubeconfig',
      '--server',
      'https://elsewhere.example.com',
      '--name',
      'c0',
      ...args('https://x', file).slice(3),
    ]);
    expect(named.stderr).toBe(
      `webapi-credential: updated cluster, user and context c0 in ${file} (its server was https://c0.example.com:6443, now https://elsewhere.example.com); kubectl --context c0 uses them (or --use makes it current)\n`,
    );
    const same = await runInProcess(args('https://k8s.example.com', file));
    expect(same.stderr).toBe(
      `webapi-credential: unchanged: cluster, user and context k8s.example.com in ${file}; kubectl --context k8s.example.com uses them (or --use makes it current)\n`,
    );
    const text = readFileSync(file, 'utf8');
    expect(js(text).clusters.map((entry) => entry.name)).toEqual([
      'c0',
      'c1',
      'flow',
      'k8s.example.com:6443',
      'k8s.example.com',
    ]);
    expect(text).toContain('    server: https://c1.example.com:6443   # spaced comment\n');
  });
});

it('reads the comment of a current-context line in linear time, whatever its white space', () => {
  // A line of a million spaces and no comment: a pattern that tries each start of the run again does
  // the square of it, 10^12 steps (it would not end before the test's timeout); one pass is milliseconds.
  for (const tail of [10_000, 100_000, 1_000_000].flatMap((n) => [
    ' '.repeat(n) + 'x',
    ' '.repeat(n) + '# c',
    '"a"' + ' '.repeat(n) + 'x',
  ])) {
    const merged = mergeKubeconfig(
      YAML,
      `apiVersion: v1\ncurrent-context: a${tail}\n`,
      entries('x', 'https://new.example.com'),
      true,
      'kc',
    );
    expect(js(merged.text)['current-context']).toBe('x');
  }
});
