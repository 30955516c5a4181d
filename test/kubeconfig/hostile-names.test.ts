// Issue 39.1: `kubeconfig --merge --name $'dev\u2028b'` said "added …", and kubectl then refused the
// whole kubeconfig (`yaml: line 9: could not find expected ':'`), every other cluster with it; with
// U+0085 kubectl read the name as `a b`. A name with a control or format character, or a line break
// to kubectl's YAML, is a usage error now (exit 2, one line naming the character, nothing written),
// and every other name of the catalogue (hostile-names.ts) reads back as itself, as kubectl reads lines.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { expectation, misread } from '../../src/kubeconfig/check.js';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { nameReader } from '../../src/kubeconfig/names.js';
import { asKubectlReads } from '../../src/kubeconfig/read.js';
import { valueIds } from '../../src/kubeconfig/values.js';
import { runInProcess } from '../helpers/in-process.js';
import { ACCEPTED, REFUSED } from './hostile-names.js';

const PREFIX = 'webapi-credential: ';
const EXISTING =
  'apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n    server: https://other.example.com\ncontexts:\n- name: other\n  context: {cluster: other, user: other}\ncurrent-context: other\nusers:\n- name: other\n  user: {token: t}\n';
const args = (name: string, file: string) => [
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
];

describe('a hostile --name', () => {
  it.each(REFUSED)('with %s is a usage error naming it, and nothing is written', async (_what, name, why) => {
    const file = join(mkdtempSync(join(tmpdir(), 'webapi-credential-names-')), 'config');
    expect(await runInProcess(args(name, file))).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}--name holds ${why}: choose a name without control, format or line-break characters\n`,
    });
    expect(existsSync(file)).toBe(false);
  });

  it.each(ACCEPTED)('that is %s is merged, and reads back as itself', async (_what, name) => {
    const file = join(mkdtempSync(join(tmpdir(), 'webapi-credential-names-')), 'config');
    writeFileSync(file, EXISTING, { mode: 0o600 });
    const result = await runInProcess(args(name, file));
    // A line's trailing white space is not printed: the name ending one shows whole earlier in it.
    expect(result).toEqual({
      code: 0,
      stdout: '',
      stderr: `${`${PREFIX}added cluster, user and context ${name} to ${file}; current-context is ${name}`.trimEnd()}\n`,
    });
    const read = YAML.parse(asKubectlReads(readFileSync(file, 'utf8'))) as Record<
      'clusters' | 'users' | 'contexts',
      Array<{ name: string }>
    > & { 'current-context': string };
    for (const section of ['clusters', 'users', 'contexts'] as const)
      expect(read[section].map((entry) => entry.name)).toEqual(['other', name]);
    expect(read['current-context']).toBe(name);
  });
});

// The read-back reads lines as kubectl's YAML does (issue 39.1): U+0085, U+2028 and U+2029 end a line
// there, not in the yaml library, which passed a merged file kubectl then refused.
describe('line breaks as kubectl reads them', () => {
  const ours = {
    name: 'b',
    cluster: { server: 'https://b.example.com' },
    user: { token: 't' },
    context: { cluster: 'b', user: 'b' },
  };

  it.each([
    ['U+2028', '\u2028'],
    ['U+2029', '\u2029'],
    ['U+0085', '\u0085'],
  ])('an entry of ours written with a raw %s in it is refused by the check', (_what, brk) => {
    const before = 'apiVersion: v1\nclusters: []\n';
    const doc = YAML.parseDocument(before);
    const ids = valueIds(YAML);
    const expected = expectation(YAML, doc, nameReader(YAML, doc), ids, { ...ours, name: `dev${brk}b` }, false, 'kc');
    const raw = `apiVersion: v1\nclusters:\n- name: dev${brk}b\n  cluster:\n    server: https://b.example.com\nusers:\n- name: dev${brk}b\n  user: {token: t}\ncontexts:\n- name: dev${brk}b\n  context: {cluster: "dev${brk}b", user: "dev${brk}b"}\n`;
    // The yaml library alone reads this as meant; kubectl's lines do not.
    expect(YAML.parse(raw).clusters[0].name).toBe(`dev${brk}b`);
    expect(misread(YAML, raw, expected, ids)).toBeDefined();
  });

  it('a value of ours holding them (an inline config) is written escaped, and reads back as itself', () => {
    const value = 'a\u2028b\u2029c\u0085d\ufeffe\u007ff';
    const merged = mergeKubeconfig(
      YAML,
      'apiVersion: v1\nclusters: []\n',
      { ...ours, user: { exec: { command: 'x', args: ['--config-inline', value] } } },
      false,
      'kc',
    );
    expect(merged.text).not.toMatch(/[\u2028\u2029\u0085\ufeff\u007f]/);
    expect(
      (YAML.parse(asKubectlReads(merged.text)) as { users: Array<{ user: { exec: { args: string[] } } }> }).users[0]!
        .user.exec.args[1],
    ).toBe(value);
  });

  it('a file whose comment goes on past a U+2028 is read as kubectl reads it: the key after it is a key, kept', () => {
    const before = 'apiVersion: v1\n# note\u2028x-after: 1\nclusters: []\n';
    const merged = mergeKubeconfig(YAML, before, ours, true, 'kc');
    expect(merged.rewritten).toBeUndefined();
    expect(merged.text.startsWith('apiVersion: v1\n# note\u2028x-after: 1\n')).toBe(true);
    expect(YAML.parse(asKubectlReads(merged.text))).toMatchObject({
      'x-after': 1,
      clusters: [{ name: 'b' }],
      'current-context': 'b',
    });
  });

  it('a file holding one that only a rewrite could merge: nothing is written, exit 2 saying why', () => {
    // An alias elsewhere into the entry replaced sends the merge to the rewrite. kubectl reads the note
    // as "a\u2028b" (go-yaml keeps U+2028 in a quoted scalar); the rewrite would write "a b".
    const before =
      'x-note: "a\u2028  b"\nclusters:\n- name: b\n  cluster: &c {server: https://old.example.com}\n- name: d\n  cluster: *c\n';
    expect(() => mergeKubeconfig(YAML, before, ours, false, 'kc')).toThrow(
      'cannot merge into kc without changing what it says (an alias elsewhere refers to an anchor inside an entry it replaces, and a rewrite would not keep its U+0085, U+2028 or U+2029); nothing was written: edit it by hand, or choose another file with --merge <file>',
    );
  });
});
