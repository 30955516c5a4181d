// Adversarial review of kubeconfig --merge's in-place edits (kubeconfig/splice.ts): unusual but
// valid kubeconfigs that a merge must neither corrupt nor read differently from kubectl.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { runInProcess } from '../helpers/in-process.js';

const entries = (name: string) => ({
  name,
  cluster: { server: 'https://new.example.com', 'certificate-authority-data': 'Q0EK' },
  user: { token: 't' },
  context: { cluster: name, user: name },
});

describe('kubeconfig --merge on unusual kubeconfigs', () => {
  // `echo '{}' > ~/.kube/config`: every key added to the empty flow mapping went in without a comma
  // between them ({"clusters": [...]"users": [...]...}), a file neither yaml nor kubectl reads.
  it('an empty flow mapping ({}) gets its keys separated by commas', () => {
    for (const before of ['{}', '{ }\n', '# mine\n{}\n']) {
      const merged = mergeKubeconfig(YAML, before, entries('b'), true, 'kc');
      expect(YAML.parse(merged.text)).toEqual({
        clusters: [{ name: 'b', cluster: entries('b').cluster }],
        users: [{ name: 'b', user: { token: 't' } }],
        contexts: [{ name: 'b', context: { cluster: 'b', user: 'b' } }],
        'current-context': 'b',
      });
    }
  });

  // A key with no value node (`? clusters` in block style, `{clusters}` in flow) is there, but
  // Document.get gives undefined for it as for a missing key: the merge added a second key of that
  // name, and the next merge refused the file (Map keys must be unique).
  it('a key present with no value node is given a value, not written a second time', () => {
    for (const before of [
      '{clusters, apiVersion: v1}\n',
      '{current-context, apiVersion: v1}\n',
      'apiVersion: v1\n? current-context\nclusters: []\n',
      'apiVersion: v1\n? clusters\n',
    ]) {
      const merged = mergeKubeconfig(YAML, before, entries('b'), true, 'kc');
      const doc = YAML.parseDocument(merged.text);
      expect(doc.errors.map((error) => error.message)).toEqual([]);
      expect(doc.toJS()).toMatchObject({ clusters: [{ name: 'b' }], 'current-context': 'b' });
      expect(mergeKubeconfig(YAML, merged.text, entries('b'), true, 'kc').outcome).toBe('unchanged');
    }
  });

  // A rewrite writes our entry in a flow list in the yaml library's flow style ({ name: b, ... });
  // the next merge, now editing in place, replaces it with flow JSON ({"name":"b",...}) and reports
  // `updated` for the same entries: a second merge of the same thing must change nothing.
  // A file that starts with a byte order mark was rewritten too, though the parser's offsets allow an
  // edit in place: it is edited there now, its mark kept.
  it('after a rewrite, a second merge of the same entries is unchanged', () => {
    for (const [before, rewritten] of [
      [
        'clusters:\n- name: b\n  cluster: &c {server: https://old.example.com}\n- name: d\n  cluster: *c\nusers: []\n',
        true,
      ],
      ['clusters: [&e {name: b, cluster: {server: https://old.example.com}}, {name: a, cluster: {}}]\n', true],
      ['\ufeffapiVersion: v1\nclusters: [{name: a, cluster: {server: https://a.example.com}}]\n', false],
      ['\ufeff{apiVersion: v1, clusters: [{name: a, cluster: {server: https://a.example.com}}]}\n', false],
      ['\ufeffclusters:\n- name: b\n  cluster: &c {server: https://old.example.com}\n- name: d\n  cluster: *c\n', true],
    ] as const) {
      const first = mergeKubeconfig(YAML, before, entries('b'), true, 'kc');
      expect(first.rewritten !== undefined).toBe(rewritten);
      expect(first.text.startsWith('\ufeff')).toBe(before.startsWith('\ufeff'));
      // Edited in place: the mark and everything up to the entry a's end kept.
      if (!rewritten) expect(first.text.startsWith(before.slice(0, before.indexOf('}}') + 2))).toBe(true);
      expect(mergeKubeconfig(YAML, first.text, entries('b'), true, 'kc')).toEqual({
        text: first.text,
        outcome: 'unchanged',
      });
    }
  });

  // kubectl reads YAML merge keys (<<): an entry whose name comes through one is an entry of that
  // name to kubectl. The merge did not see it and appended another: kubectl 1.33 then refuses the whole
  // file (duplicate name "b" in list).
  it('an entry named through a merge key (<<) is the one replaced, not a second of that name', () => {
    const before =
      'named: &n {name: b}\nclusters:\n- <<: *n\n  cluster: {server: https://old.example.com}\n- {name: a, cluster: {}}\n';
    const merged = mergeKubeconfig(YAML, before, entries('b'), false, 'kc');
    const clusters = (YAML.parse(merged.text, { merge: true }) as { clusters: Array<{ name: string }> }).clusters;
    expect(clusters.map((cluster) => cluster.name)).toEqual(['b', 'a']);
  });

  // The same entry other ways kubectl reads as named b: a merge key in block style (the text scan
  // leaves it to the parser), an aliased key, an alias of the whole entry, and a merge key in an entry
  // the Document rewrite replaces (an alias elsewhere into it).
  it('an entry named through a merge key, an aliased key or an alias is ours in every way', () => {
    for (const [before, rewritten] of [
      [
        'clusters:\n- <<: {name: b}\n  cluster:\n    server: https://old.example.com\n- name: a\n  cluster: {}\n',
        false,
      ],
      ['clusters:\n- &k name: a\n  cluster: {}\n- *k : b\n  cluster: {server: https://old.example.com}\n', false],
      [
        'named: &e {name: b, cluster: {server: https://old.example.com}}\nclusters:\n- {name: a, cluster: {}}\n- *e\n',
        false,
      ],
      [
        'named: &n {name: b}\nclusters:\n- <<: *n\n  cluster: &c {server: https://old.example.com}\n- name: a\n  cluster: *c\n',
        true,
      ],
    ] as const) {
      const merged = mergeKubeconfig(YAML, before, entries('b'), false, 'kc');
      expect(merged.rewritten !== undefined).toBe(rewritten);
      expect(merged.outcome).toBe('updated');
      const clusters = (YAML.parse(merged.text, { merge: true }) as { clusters: Array<{ name: string }> }).clusters;
      expect(clusters.filter((cluster) => cluster.name === 'b')).toEqual([
        { name: 'b', cluster: entries('b').cluster },
      ]);
      expect(mergeKubeconfig(YAML, merged.text, entries('b'), false, 'kc').outcome).toBe('unchanged');
    }
  });

  // An entry named a by its `name` and b through its merge key is a or b to kubectl by their order:
  // whether ours is there cannot be told, and the merge refuses rather than risk two of one name.
  it('an entry whose name and merge key disagree on ours is refused, exit 2, one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-review-'));
    const file = join(dir, 'config');
    const before =
      'named: &n {name: b}\nclusters:\n- name: a\n  <<: *n\n  cluster: {server: https://old.example.com}\n';
    writeFileSync(file, before, { mode: 0o600 });
    const result = await runInProcess([
      'kubeconfig',
      '--server',
      'https://b.example.com',
      '--name',
      'b',
      '--config-inline',
      'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
      '--merge',
      file,
    ]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `webapi-credential: ${file}: entry 1 of clusters is named "a" and, through a merge key (<<), "b"; give it one name, or choose another file with --merge <file>\n`,
    });
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  // kubectl's YAML reads plain on, no, y, Off, 1_000 as YAML 1.1 booleans and integers; the yaml
  // library writes them plain (they are strings in YAML 1.2). `--name on` (or a server https://on/)
  // gave `name: on` and `current-context: on`: kubectl 1.33 refuses the file (cannot unmarshal bool
  // into Go struct field ... of type string). Both ways: the text scan's and the in-place edit's.
  it('a name YAML 1.1 reads as a boolean or a number is written quoted', () => {
    for (const name of ['on', 'no', 'y', 'Off', '1_000']) {
      for (const before of [
        'clusters:\n- name: a\n  cluster:\n    server: https://a\ncurrent-context: a\n',
        'clusters: [{name: a, cluster: {server: https://a}}]\ncurrent-context: a\n',
      ]) {
        const merged = mergeKubeconfig(YAML, before, entries(name), true, 'kc');
        const read = YAML.parse(merged.text, { version: '1.1' }) as {
          clusters: Array<{ name: unknown }>;
          users: Array<{ name: unknown }>;
          contexts: Array<{ name: unknown; context: unknown }>;
          'current-context': unknown;
        };
        expect([
          read.clusters[1]!.name,
          read.users[0]!.name,
          read.contexts[0]!.name,
          read.contexts[0]!.context,
          read['current-context'],
        ]).toEqual([name, name, name, { cluster: name, user: name }, name]);
      }
    }
  });

  // An entry of ours that is the same to the yaml library is left as it stands, unless kubectl would
  // read it otherwise: written plain, on is a boolean to it, and the entry is rewritten quoted.
  it('an entry of ours the same but for YAML 1.1 is rewritten, quoted', () => {
    const before = `clusters: [{name: on, cluster: {server: https://new.example.com, certificate-authority-data: Q0EK}}]\ncurrent-context: on\n`;
    const merged = mergeKubeconfig(YAML, before, entries('on'), true, 'kc');
    const read = YAML.parse(merged.text, { version: '1.1' }) as {
      clusters: Array<{ name: unknown }>;
      'current-context': unknown;
    };
    expect([read.clusters[0]!.name, read['current-context']]).toEqual(['on', 'on']);
  });

  // The Document rewrite (an alias elsewhere into the entry it replaces) writes ours from new nodes,
  // sets current-context in the plain scalar the file had, and writes a copy of the aliased value
  // from new nodes too: each of them quoted where YAML 1.1 would read another type.
  it('a rewrite quotes the name, current-context and a copy of an aliased value as YAML 1.1 needs', () => {
    const before =
      'clusters:\n- name: "on"\n  cluster: &c {server: https://a, tls-server-name: "no"}\n- name: d\n  cluster: *c\ncurrent-context: d\n';
    const merged = mergeKubeconfig(YAML, before, entries('on'), true, 'kc');
    expect(merged.rewritten).toBeDefined();
    const read = YAML.parse(merged.text, { version: '1.1' }) as {
      clusters: Array<{ name: unknown; cluster: unknown }>;
      'current-context': unknown;
    };
    expect(read.clusters).toEqual([
      { name: 'on', cluster: entries('on').cluster },
      { name: 'd', cluster: { server: 'https://a', 'tls-server-name': 'no' } },
    ]);
    expect(read['current-context']).toBe('on');
  });

  // A kept (|+) block scalar ending the last entry of the file's last list owns the blank lines after
  // it; the new entry was inserted before them, and that entry's value lost its final line breaks
  // ("x\n\n" became "x\n"). Both ways: the text scan's, and the in-place edit's (a tab sends the
  // file there).
  it('a new entry after a kept block scalar leaves that value as it was', () => {
    for (const head of ['', '# \tthe parser way\n']) {
      const before = `${head}users: []\nclusters:\n- name: a\n  cluster:\n    server: https://a\n    extensions: |+\n      x\n\n`;
      const merged = mergeKubeconfig(YAML, before, entries('b'), false, 'kc');
      expect((YAML.parse(merged.text) as { clusters: Array<{ cluster: unknown }> }).clusters[0]!.cluster).toEqual({
        server: 'https://a',
        extensions: 'x\n\n',
      });
    }
  });

  // More of the same: a block scalar's own lines that look like comments (`      # text`), blank lines
  // before the next key, a last line of only spaces with no line break (not its text, or its text:
  // spaces past its indentation), a kept scalar ending the top-level mapping, where keys are added.
  it('a block scalar before what the merge adds keeps its value, whatever lines end it', () => {
    const values = (text: string) => {
      const read = YAML.parse(text) as { preferences?: unknown; clusters: Array<{ cluster: unknown }> };
      return [read.preferences, read.clusters[0]!.cluster];
    };
    for (const head of ['', '# \tthe parser way\n']) {
      for (const keep of ['|+', '|']) {
        for (const tail of ['\n      # text\n\n', '\n\nusers: []\n', '\n  ', '\n      ', '\n        ', '\n\n  \n']) {
          for (const before of [
            `${head}clusters:\n- name: a\n  cluster:\n    server: https://a\n    extensions: ${keep}\n      x${tail}`,
            `${head}clusters:\n- name: a\n  cluster: {}\npreferences: ${keep}\n      x${tail}`,
          ]) {
            expect([before, values(mergeKubeconfig(YAML, before, entries('b'), true, 'kc').text)]).toEqual([
              before,
              values(before),
            ]);
          }
        }
      }
    }
  });
});

describe('kubeconfig to stdout', () => {
  // The name comes from the server's host by default: https://on/ is named on, which the printed
  // kubeconfig wrote plain (name: on, current-context: on), a boolean to kubectl's YAML 1.1.
  it('a name YAML 1.1 reads as a boolean is printed quoted', async () => {
    const result = await runInProcess([
      'kubeconfig',
      '--server',
      'https://on/',
      '--config-inline',
      'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}',
    ]);
    expect(result.code).toBe(0);
    const read = YAML.parse(result.stdout, { version: '1.1' }) as {
      clusters: Array<{ name: unknown; cluster: { server: unknown } }>;
      users: Array<{ name: unknown }>;
      contexts: Array<{ name: unknown; context: unknown }>;
      'current-context': unknown;
    };
    expect([
      read.clusters[0]!.name,
      read.clusters[0]!.cluster.server,
      read.users[0]!.name,
      read.contexts[0]!.name,
      read.contexts[0]!.context,
      read['current-context'],
    ]).toEqual(['on', 'https://on/', 'on', 'on', { cluster: 'on', user: 'on' }, 'on']);
  });
});
