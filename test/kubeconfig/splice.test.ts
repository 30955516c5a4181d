// kubeconfig --merge on a kubeconfig the text scan does not read (a flow-style entry, a flow list, an
// anchor and its alias, a tag, a tab, CR LF line ends, JSON, document markers): the yaml parser finds
// where our entries are and the text is edited there (kubeconfig/splice.ts), so every entry the merge
// does not touch keeps its bytes and its comments, as in a block-style file. Rewriting the Document
// instead turned `{server: x}` into `{ server: x }` and respaced comments, silently. The shapes that
// still need that rewrite say so (Merged.rewritten, a note on stderr).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { runInProcess } from '../helpers/in-process.js';

const entries = (name: string, server: string) => ({
  name,
  cluster: { server, 'certificate-authority-data': 'Q0EK' },
  // A string over lines: a block scalar in block style, an escaped one in flow style.
  user: {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'webapi-credential',
      args: ['--config-inline', 'a: 1\nb: 2', '--cache'],
    },
  },
  context: { cluster: name, user: name },
});

type Kubeconfig = Record<string, unknown> & { clusters?: Array<Record<string, unknown>> | null };

/** What the merged file must read as: the file as the parser reads it, ours replaced or appended, current-context ours. */
function expected(before: string, merged: ReturnType<typeof entries>): Kubeconfig {
  const config = (YAML.parse(before) ?? {}) as Record<string, Array<Record<string, unknown>> | null | string>;
  for (const [section, field] of [
    ['clusters', 'cluster'],
    ['users', 'user'],
    ['contexts', 'context'],
  ] as const) {
    const list = (config[section] ?? []) as Array<Record<string, unknown>>;
    const entry = { name: merged.name, [field]: merged[field] };
    const at = list.findIndex((item) => item['name'] === merged.name);
    if (at >= 0) list[at] = entry;
    else list.push(entry);
    config[section] = list;
  }
  config['current-context'] = merged.name;
  return config as Kubeconfig;
}

// Each shape: a kubeconfig with an entry `b` to replace (server https://b.example.com) and the parts
// of it the merge must keep byte for byte (untouched entries with their comments).
const SHAPES: Array<[string, string, string[]]> = [
  [
    'a flow-style entry elsewhere',
    'apiVersion: v1\nclusters:\n- {name: a, cluster: {server: https://a.example.com}}   # flow, spaced\n- name: b\n  cluster:\n    server: https://b.example.com\ncontexts:\n- {name: a, context: {cluster: a, user: a}}\ncurrent-context: a\nkind: Config\nusers:\n- name: a\n  user: {token: t}    #   kept\n- name: b\n  user: {token: old}\n',
    [
      '- {name: a, cluster: {server: https://a.example.com}}   # flow, spaced\n',
      '- {name: a, context: {cluster: a, user: a}}\n',
      '- name: a\n  user: {token: t}    #   kept\n',
      'kind: Config\n',
    ],
  ],
  [
    'flow lists over lines',
    'apiVersion: v1\nclusters: [ {name: a, cluster: {server: https://a.example.com}},   # first\n  {name: b, cluster: {server: https://b.example.com}} ]\ncontexts: [ {name: a, context: {cluster: a, user: a}} ]\nusers: []\n',
    [
      'clusters: [ {name: a, cluster: {server: https://a.example.com}},   # first\n  ',
      'contexts: [ {name: a, context: {cluster: a, user: a}}',
      'apiVersion: v1\n',
    ],
  ],
  [
    'an anchor and its alias elsewhere',
    'apiVersion: v1\nclusters:\n- name: b\n  cluster:\n    server: https://b.example.com\n- name: a\n  cluster: &shared {server: https://a.example.com,  insecure-skip-tls-verify: true}\n- name: a2\n  cluster: *shared   # same\nusers:\n- name: a\n  user: {token: t}\n',
    [
      '- name: a\n  cluster: &shared {server: https://a.example.com,  insecure-skip-tls-verify: true}\n- name: a2\n  cluster: *shared   # same\n',
      '- name: a\n  user: {token: t}\n',
    ],
  ],
  [
    'tags',
    'apiVersion: !!str v1\nclusters:\n- !!map {name: a, cluster: {server: https://a.example.com}}\n- name: b\n  cluster:\n    server: https://b.example.com\npreferences: !!map {colors: true}\nusers: !!seq\n- name: a\n  user: {token: !!str 123}\n',
    [
      'apiVersion: !!str v1\n',
      '- !!map {name: a, cluster: {server: https://a.example.com}}\n',
      'preferences: !!map {colors: true}\n',
      'users: !!seq\n- name: a\n  user: {token: !!str 123}\n',
    ],
  ],
  [
    'tabs in comments and between flow items',
    'apiVersion: v1\nclusters:\n\t# a tab before this comment\n- name: a\n  cluster: {server: https://a.example.com,\tinsecure-skip-tls-verify: true}\t# tab\n- name: b\n  cluster:\n    server: https://b.example.com\ncontexts: []\n',
    [
      'clusters:\n\t# a tab before this comment\n- name: a\n  cluster: {server: https://a.example.com,\tinsecure-skip-tls-verify: true}\t# tab\n',
    ],
  ],
  [
    'CR LF line ends',
    'apiVersion: v1\r\nclusters:\r\n- name: a   # first\r\n  cluster:\r\n    server: https://a.example.com\r\n- name: b\r\n  cluster:\r\n    server: https://b.example.com\r\ncontexts:\r\n- context: {cluster: a, user: a}\r\n  name: a\r\ncurrent-context: a\r\nusers: null # none yet\r\n',
    [
      '- name: a   # first\r\n  cluster:\r\n    server: https://a.example.com\r\n',
      '- context: {cluster: a, user: a}\r\n  name: a\r\n',
    ],
  ],
  [
    'JSON',
    '{\n  "apiVersion": "v1",\n  "kind": "Config",\n  "clusters": [\n    {"name": "a", "cluster": {"server": "https://a.example.com"}},\n    {"name": "b", "cluster": {"server": "https://b.example.com"}}\n  ],\n  "users": [ ]\n}\n',
    [
      '{\n  "apiVersion": "v1",\n  "kind": "Config",\n  "clusters": [\n    {"name": "a", "cluster": {"server": "https://a.example.com"}},\n    ',
    ],
  ],
  [
    'document markers and a directive',
    '%YAML 1.2\n---\n# mine\napiVersion: v1\nclusters:\n  - name: a\n    cluster: {server: https://a.example.com}\n  - name: b\n    cluster:\n      server: https://b.example.com\n...\n# after the document\n',
    [
      '%YAML 1.2\n---\n# mine\napiVersion: v1\nclusters:\n  - name: a\n    cluster: {server: https://a.example.com}\n',
      '...\n# after the document\n',
    ],
  ],
];

describe('the Document way edits the text in place', () => {
  it.each(SHAPES)(
    '%s: a new cluster and a replaced one, every untouched entry kept byte for byte, and a second merge unchanged',
    (_shape, before, kept) => {
      for (const [name, server, outcome] of [
        ['new.example.com:8443', 'https://new.example.com:8443', 'added'],
        ['b', 'https://moved.example.com', 'updated'],
      ] as const) {
        const ours = entries(name, server);
        const merged = mergeKubeconfig(YAML, before, ours, true, 'kc');
        expect(merged.rewritten).toBeUndefined();
        expect({ outcome: merged.outcome, replacedServer: merged.replacedServer }).toEqual({
          outcome,
          replacedServer: name === 'b' ? 'https://b.example.com' : undefined,
        });
        for (const text of kept) expect(merged.text).toContain(text);
        expect(YAML.parse(merged.text)).toEqual(expected(before, ours));
        // Nothing else of the file changed but our entries' lines: CR LF stays CR LF.
        if (before.includes('\r\n')) expect(merged.text.replace(/\r\n/g, '')).not.toContain('\n');
        expect(mergeKubeconfig(YAML, merged.text, ours, true, 'kc')).toEqual({
          text: merged.text,
          outcome: 'unchanged',
        });
      }
    },
  );

  it('replacing an entry names the server it replaced, and leaves the text around it as it was', () => {
    const before =
      'clusters:\n- {name: a, cluster: {server: x}}\n- name: b   # old\n  cluster:\n    server: https://b.example.com\n# between\n- name: c\n  cluster: {server: y}\n';
    const merged = mergeKubeconfig(YAML, before, entries('b', 'https://moved.example.com'), false, 'kc');
    expect({ outcome: merged.outcome, replacedServer: merged.replacedServer }).toEqual({
      outcome: 'updated',
      replacedServer: 'https://b.example.com',
    });
    const ours = YAML.stringify({ name: 'b', cluster: entries('b', 'https://moved.example.com').cluster }).replace(
      /\n(?=.)/g,
      '\n  ',
    );
    expect(
      merged.text.startsWith(
        `clusters:\n- {name: a, cluster: {server: x}}\n- ${ours}# between\n- name: c\n  cluster: {server: y}\n`,
      ),
    ).toBe(true);
  });

  it('a flow entry of our name is replaced by one of flow text where it stands; later ones of the name are removed', () => {
    const before =
      'clusters:\n- {name: b, cluster: {server: https://b.example.com}}  # ours\n- name: a\n  cluster: {server: x}\n- name: b\n  cluster: {server: dup}\nusers: [{name: b, user: {}}, {name: a, user: {}}, {name: b, user: {token: dup}}]\n';
    const ours = entries('b', 'https://moved.example.com');
    const merged = mergeKubeconfig(YAML, before, ours, false, 'kc');
    expect(merged.text.split('\n').slice(0, 4)).toEqual([
      'clusters:',
      `- ${JSON.stringify({ name: 'b', cluster: ours.cluster })}  # ours`,
      '- name: a',
      '  cluster: {server: x}',
    ]);
    expect(merged.text).toContain(`users: [${JSON.stringify({ name: 'b', user: ours.user })}, {name: a, user: {}}]\n`);
    const { 'current-context': _current, ...rest } = expected(before, ours);
    expect(YAML.parse(merged.text)).toEqual({
      ...rest,
      clusters: [rest.clusters![0], rest.clusters![1]],
      users: [
        { name: 'b', user: ours.user },
        { name: 'a', user: {} },
      ],
    });
  });
});

describe('what cannot be edited in place is rewritten, and says so', () => {
  it.each([
    [
      'an alias elsewhere of an anchor in the entry replaced',
      'clusters:\n- name: b\n  cluster: &c {server: https://b.example.com}\n- name: d\n  cluster: *c\n',
      'an alias elsewhere refers to an anchor inside an entry it replaces',
    ],
    [
      'a tag on the entry replaced',
      'clusters:\n- !!map {name: b, cluster: {server: https://b.example.com}}\n- {name: d, cluster: {server: d}}\n',
      'an entry it replaces carries an anchor or a tag',
    ],
    ['only comments', '# nothing yet\n', 'it holds no mapping yet'],
  ])('%s', (_what, before, why) => {
    const ours = entries('b', 'https://moved.example.com');
    const merged = mergeKubeconfig(YAML, before, ours, true, 'kc');
    expect(merged.rewritten).toBe(why);
    expect(YAML.parse(merged.text)).toMatchObject(expected(before, ours));
  });

  it("the alias keeps what it meant: the replaced entry's value, written in its place", () => {
    const before = 'clusters:\n- name: b\n  cluster: &c {server: https://b.example.com}\n- name: d\n  cluster: *c\n';
    const merged = mergeKubeconfig(YAML, before, entries('b', 'https://moved.example.com'), false, 'kc');
    expect((YAML.parse(merged.text) as { clusters: unknown[] }).clusters[1]).toEqual({
      name: 'd',
      cluster: { server: 'https://b.example.com' },
    });
  });

  const args = (file: string) => [
    'kubeconfig',
    '--server',
    'https://b.example.com',
    '--name',
    'b',
    '--config-inline',
    'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
    '--merge',
    file,
  ];

  it('kubeconfig --merge notes a rewrite on stderr, once, and says nothing of one when it edited in place', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-splice-'));
    const aliased = join(dir, 'aliased');
    writeFileSync(
      aliased,
      'clusters:\n- name: b\n  cluster: &c {server: https://old.example.com}\n- name: d\n  cluster: *c\n',
      { mode: 0o600 },
    );
    expect(await runInProcess(args(aliased))).toEqual({
      code: 0,
      stdout: '',
      stderr: `webapi-credential: updated cluster, user and context b in ${aliased} (its server was https://old.example.com, now https://b.example.com); kubectl --context b uses them (or --use makes it current)\nwebapi-credential: note: ${aliased} was rewritten whole, not edited in place (an alias elsewhere refers to an anchor inside an entry it replaces): its formatting and comment spacing may have changed\n`,
    });
    const flow = join(dir, 'flow');
    const before = 'clusters:\n- {name: a, cluster: {server: https://a.example.com}}   # mine\n';
    writeFileSync(flow, before, { mode: 0o600 });
    const result = await runInProcess(args(flow));
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: `webapi-credential: added cluster, user and context b to ${flow}; kubectl --context b uses them (or --use makes it current)\n`,
    });
    expect(readFileSync(flow, 'utf8').startsWith(before)).toBe(true);
  });
});

describe('the rewrite for aliases into a replaced entry', () => {
  // Its work on growing thousands of aliases: kubeconfig-merge.perf.test.ts.
  const pad = 'p'.repeat(200);
  const aliased = (copies: number, value: string) =>
    `clusters:\n- name: b\n  cluster: &c {server: https://b.example.com${value}}\n${Array.from({ length: copies }, (_, i) => `- name: d${i}${pad}\n  cluster: *c\n`).join('')}`;

  // 2,000 aliases of a 20 kB value wrote a 40 MB kubeconfig from 0.5 MB.
  it('refuses copies that would outgrow the file: exit 2 naming the alias, the file as it was', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'webapi-credential-splice-')), 'config');
    const before = aliased(2_000, `, x: ${'x'.repeat(20_000)}`);
    writeFileSync(file, before, { mode: 0o600 });
    const secret = 'splice-secret-Zq7';
    const result = await runInProcess(
      [
        'kubeconfig',
        '--server',
        'https://moved.example.com',
        '--name',
        'b',
        '--config-inline',
        'webAPIProviderConfig: {method: GET, url: "https://t.example.com", headers: {Authorization: "Bearer ${env.API_TOKEN}"}, tokenPath: $.t}',
        '--merge',
        file,
      ],
      { env: { API_TOKEN: secret } },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `webapi-credential: ${file}: an alias elsewhere refers to an anchor inside an entry being replaced, and expands too far; remove the alias, or choose another file with --merge <file>\n`,
    });
    expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });
});
