// kubeconfig --merge on unusual kubeconfigs (review3): whatever way the merge takes (the edit in place
// or the rewrite), the result reads as the yaml parser reads the file with our entries merged:
// every entry it did not touch is still there with its name, ours is there once, current-context is
// ours. Each case here is a file that the text scan once read otherwise than the parser (and kubectl
// 1.33's `config view`): a name or current-context continued on the next line, a `name` key spelled
// another way. (The work on growing hostile inputs: kubeconfig-merge.perf.test.ts.)
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { countingYaml } from '../helpers/counting-yaml.js';

const OURS = 'ours.example.com:443';
const entries = {
  name: OURS,
  cluster: { server: 'https://ours.example.com' },
  user: { token: 't' },
  context: { cluster: OURS, user: OURS },
};

interface Parsed {
  clusters: Array<{ name: string; cluster: { server: string } }>;
  contexts: Array<{ name: string }>;
  users: Array<{ name: string }>;
  'current-context': string;
}

/** What the parser reads of the merged file, which must be what it read before plus ours. */
function mergedAs(before: string, yaml: typeof YAML = YAML): Parsed {
  const text = mergeKubeconfig(yaml, before, entries, true, 'kc').text;
  return YAML.parse(text) as Parsed;
}

describe('the merge reads a kubeconfig as the parser does', () => {
  it('a plain name continued on the next line is that whole name: the entry is not ours and stays', () => {
    const before = [
      'apiVersion: v1',
      'clusters:',
      `- name: ${OURS}`,
      '    victim',
      '  cluster:',
      '    server: https://victim.example.com',
      'contexts: []',
      'kind: Config',
      'users: []',
      '',
    ].join('\n');
    expect((YAML.parse(before) as Parsed).clusters[0]!.name).toBe(`${OURS} victim`);
    const after = mergedAs(before);
    expect(after.clusters.map((c) => [c.name, c.cluster.server])).toEqual([
      [`${OURS} victim`, 'https://victim.example.com'],
      [OURS, 'https://ours.example.com'],
    ]);
  });

  it('a plain current-context continued on the next line is replaced whole', () => {
    const before = [
      'apiVersion: v1',
      'clusters: []',
      'contexts: []',
      'current-context: other',
      '  part',
      'kind: Config',
      'users: []',
      '',
    ].join('\n');
    expect((YAML.parse(before) as Parsed)['current-context']).toBe('other part');
    expect(mergedAs(before)['current-context']).toBe(OURS);
  });

  it.each([
    ['a tab after the colon', `- name:\t${OURS}`],
    ['a space before the colon', `- name : ${OURS}`],
    ['a double-quoted key', `- "name": ${OURS}`],
    ['a single-quoted key', `- 'name': ${OURS}`],
    ['an escaped key', `- "n\\x61me": ${OURS}`],
    ['an explicit key', `- ? name\n  : ${OURS}`],
  ])(
    'an entry of our name with %s is replaced, not doubled (kubectl refuses two entries of one name)',
    (_how, line) => {
      const before = [
        'apiVersion: v1',
        'clusters:',
        line,
        '  cluster:',
        '    server: https://old.example.com',
        'contexts: []',
        'kind: Config',
        'users: []',
        '',
      ].join('\n');
      expect((YAML.parse(before) as Parsed).clusters[0]!.name).toBe(OURS);
      const after = mergedAs(before);
      expect(after.clusters.map((c) => [c.name, c.cluster.server])).toEqual([[OURS, 'https://ours.example.com']]);
    },
  );
});

describe('flow style and block scalars go to the parser', () => {
  it.each([
    ['a flow mapping', `- {name: ${OURS}, cluster: {server: https://old.example.com}}`],
    ['a flow mapping over lines', `- {name: ${OURS},\n   cluster: {server: https://old.example.com}}`],
    [
      'a flow mapping with quotes and brackets in its scalars',
      `- {name: '${OURS}', cluster: {server: "https://old.example.com/[{"}}`,
    ],
  ])('an entry of our name as %s is replaced, not doubled', (_how, item) => {
    const before = ['apiVersion: v1', 'clusters:', item, 'contexts: []', 'kind: Config', 'users: []', ''].join('\n');
    expect((YAML.parse(before) as Parsed).clusters[0]!.name).toBe(OURS);
    expect(mergedAs(before).clusters.map((c) => [c.name, c.cluster.server])).toEqual([
      [OURS, 'https://ours.example.com'],
    ]);
  });

  it.each([
    ['a block scalar', `- |\n  name: ${OURS}`],
    ['a flow sequence over lines', `- [\n  name: ${OURS}\n  ]`],
  ])('an entry that is %s holding a line `name: ours` is no entry of ours: it stays', (_how, item) => {
    const before = ['apiVersion: v1', 'clusters:', item, 'contexts: []', 'kind: Config', 'users: []', ''].join('\n');
    const parsed = YAML.parse(before) as { clusters: unknown[] };
    const after = mergedAs(before) as unknown as { clusters: unknown[] };
    expect(after.clusters).toEqual([
      parsed.clusters[0],
      { name: OURS, cluster: { server: 'https://ours.example.com' } },
    ]);
  });
});

describe('a quoted scalar over lines goes to the parser', () => {
  // kubectl 1.33 reads a double-quoted scalar that goes on at column 0 as one string; the yaml parser
  // refuses it. The scan took its lines for a clusters section and replaced the line that closed the
  // quote: the file it wrote was no YAML for kubectl either.
  it.each([
    [
      'a top-level value',
      ['x-note: "a', 'clusters:', `- name: ${OURS}`, '  cluster:', '    server: https://hidden.example.com"'],
    ],
    ["an entry's value", ['clusters:', '- name: other', "  note: 'a", `- name: ${OURS}`, "  cluster: {}'"]],
  ])('in %s: the merge refuses the file as the parser does, and writes nothing', (_where, body) => {
    const before = ['apiVersion: v1', 'kind: Config', 'users: []', 'contexts: []', ...body, ''].join('\n');
    expect(() => mergeKubeconfig(YAML, before, entries, true, 'kc')).toThrow(/^kc is not valid YAML \(/);
  });

  it('quoted scalars closed on their line, with quotes and brackets inside: the entry of our name replaced, the tokens counted once', () => {
    const before = [
      'apiVersion: v1',
      'clusters:',
      `- name: '${OURS}'`,
      `  cluster: {server: "https://old.example.com/'[{", x: 'it''s'}`,
      'contexts: []',
      'users: []',
      '',
    ].join('\n');
    const { module, calls } = countingYaml();
    expect(mergedAs(before, module).clusters.map((c) => [c.name, c.cluster.server])).toEqual([
      [OURS, 'https://ours.example.com'],
    ]);
    expect(calls.lex).toBe(1);
  });
});

describe('a map with keys twice', () => {
  it('a map with a key twice is still refused, as kubectl refuses it', () => {
    const text = ['apiVersion: v1', 'clusters: []', 'kind: Config', 'kind: Config', ''].join('\r\n');
    expect(() => mergeKubeconfig(YAML, text, entries, true, 'kc')).toThrow(
      'kc is not valid YAML (Map keys must be unique at line 4, column 1); fix it or choose another file with --merge <file>',
    );
  });
});
