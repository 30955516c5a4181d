// The safety net of kubeconfig --merge (kubeconfig/check.ts): the merged text is parsed back and
// must read as what the merge means, or it is not written. Each way to produce the text is tested
// for giving the right result elsewhere; here the net is given wrong ones: texts a broken merge could
// write, and merges whose ways are made to write wrong text (a yaml module that changes what it writes).
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { expectation, misread } from '../../src/kubeconfig/check.js';
import { mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { nameReader } from '../../src/kubeconfig/names.js';
import { valueIds } from '../../src/kubeconfig/values.js';
import { UsageError } from '../../src/errors.js';
import { caught } from '../helpers/caught.js';

const entries = (name: string) => ({
  name,
  cluster: { server: 'https://new.example.com' },
  user: { token: 't' },
  context: { cluster: name, user: name },
});

const BEFORE =
  'apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: https://a.example.com}\n- name: b\n  cluster: {server: https://old.example.com}\nusers: []\ncurrent-context: a\n';
const OURS = {
  users: 'users:\n- name: b\n  user: {token: t}\n',
  contexts: 'contexts:\n- name: b\n  context: {cluster: b, user: b}\n',
};
const RIGHT = `apiVersion: v1\nclusters:\n- name: a\n  cluster: {server: https://a.example.com}\n- name: b\n  cluster: {server: https://new.example.com}\n${OURS.users}${OURS.contexts}current-context: b\n`;

/** Why `after` is not what merging b into BEFORE (with --use) means, as the net says. */
function why(after: string, name = 'b', before = BEFORE): string | undefined {
  const doc = YAML.parseDocument(before, { uniqueKeys: false });
  const ids = valueIds(YAML);
  return misread(YAML, after, expectation(YAML, doc, nameReader(YAML, doc), ids, entries(name), true, 'kc'), ids);
}

describe('the check of a merged kubeconfig', () => {
  it('passes the text the merge means, in any key order and style', () => {
    expect(why(RIGHT)).toBeUndefined();
    expect(
      why(
        `current-context: "b"\n${OURS.contexts}${OURS.users}clusters: [{name: a, cluster: {server: https://a.example.com}}, {"name": "b", "cluster": {"server": "https://new.example.com"}}]\napiVersion: v1\n`,
      ),
    ).toBeUndefined();
  });

  it.each([
    [
      'not YAML',
      RIGHT.replace('[', '').replace('{server: https://a', '{{server: https://a'),
      /^it would not be valid YAML: /,
    ],
    ['a key twice', `${RIGHT}kind: Config\nkind: Config\n`, /^a mapping would hold a key twice$/],
    [
      'an entry it did not touch changed',
      RIGHT.replace('https://a.example.com', 'https://evil.example.com'),
      /^its clusters entry 1 would read otherwise$/,
    ],
    [
      'an entry it did not touch gone',
      RIGHT.replace('- name: a\n  cluster: {server: https://a.example.com}\n', ''),
      /^its clusters would hold 1 entries, not 2$/,
    ],
    [
      'entries in another order',
      RIGHT.replace(
        '- name: a\n  cluster: {server: https://a.example.com}\n- name: b\n  cluster: {server: https://new.example.com}\n',
        '- name: b\n  cluster: {server: https://new.example.com}\n- name: a\n  cluster: {server: https://a.example.com}\n',
      ),
      /^its clusters entry 1 would read otherwise$/,
    ],
    [
      'ours not as meant',
      RIGHT.replace('https://new.example.com', 'https://other.example.com'),
      /^its clusters entry 2 would read otherwise$/,
    ],
    [
      'ours twice',
      RIGHT.replace(
        'users:\n- name: b\n  user: {token: t}\n',
        'users:\n- name: b\n  user: {token: t}\n- name: b\n  user: {token: t}\n',
      ),
      /^its users would hold 2 entries, not 1$/,
    ],
    ['a top-level key gone', RIGHT.replace('apiVersion: v1\n', ''), /^its top-level key "apiVersion" would be gone$/],
    [
      'a top-level key changed',
      RIGHT.replace('apiVersion: v1', 'apiVersion: v2'),
      /^its "apiVersion" would read otherwise$/,
    ],
    [
      'a top-level key added',
      `${RIGHT}preferences: {}\n`,
      /^it would have a top-level key "preferences" it did not have$/,
    ],
    ['not a list', RIGHT.replace(OURS.users, 'users: {}\n'), /^its users would not be a list$/],
    ['not a mapping', '- a\n', /^it would not be a mapping$/],
  ])('refuses %s', (_what, after, reason) => {
    expect(why(after)).toMatch(reason);
  });

  // The same text to the yaml library (YAML 1.2), not to kubectl's YAML 1.1: a plain `on` is a boolean there.
  it('refuses ours or current-context written so that kubectl reads another value', () => {
    const before = BEFORE.replace(/\bb\b/g, 'on');
    const right = RIGHT.replace(/\bb\b/g, '"on"');
    expect(why(right, 'on', before)).toBeUndefined();
    expect(why(right.replace('- name: "on"\n  cluster', '- name: on\n  cluster'), 'on', before)).toBe(
      'its clusters entry 2 would read otherwise to kubectl',
    );
    expect(why(right.replace('current-context: "on"', 'current-context: on'), 'on', before)).toBe(
      'its current-context would read otherwise to kubectl',
    );
    // Not ours to write without --use: a plain current-context the file had is its own business.
    const doc = YAML.parseDocument('current-context: on\nclusters: []\n');
    const ids = valueIds(YAML);
    const kept = expectation(YAML, doc, nameReader(YAML, doc), ids, entries('b'), false, 'kc');
    expect(
      misread(
        YAML,
        `current-context: on\nclusters: [{"name": "b", "cluster": {"server": "https://new.example.com"}}]\n${OURS.users}${OURS.contexts}`,
        kept,
        ids,
      ),
    ).toBeUndefined();
  });

  it('reads aliases by what they refer to, and in time linear in what they repeat', () => {
    const before = 'x: &x [a]\ny: *x\nclusters: []\n';
    const after = `x: &x [a]\ny: *x\nclusters: [{"name": "b", "cluster": {"server": "https://new.example.com"}}]\n${OURS.users}${OURS.contexts}current-context: b\n`;
    expect(why(after, 'b', before)).toBeUndefined();
    expect(why(after.replace('y: *x', 'y: [b]'), 'b', before)).toBe('its "y" would read otherwise');
    // Ten anchors, each repeating the one before ten times: 10^10 strings if the aliases were copied out,
    // which would neither end before the test's timeout nor fit in memory.
    const laughs = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 10; i++)
      laughs.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    const bomb = `${laughs.join('\n')}\nclusters: []\n`;
    expect(
      why(
        `${bomb.replace('clusters: []\n', '')}clusters: [{"name": "b", "cluster": {"server": "https://new.example.com"}}]\n${OURS.users}${OURS.contexts}current-context: b\n`,
        'b',
        bomb,
      ),
    ).toBeUndefined();
  });
});

/** The yaml library, but the text it writes for a new Document has `from` replaced by `to`. */
function writingWrong(from: string, to: string, rewriteToo: boolean): typeof YAML {
  class Document extends YAML.Document {
    override toString(options?: Parameters<YAML.Document['toString']>[0]): string {
      return super.toString(options).replace(from, to);
    }
  }
  return {
    ...YAML,
    Document,
    // The Document the file is parsed into writes the rewrite.
    parseDocument: (...args: Parameters<typeof YAML.parseDocument>) => {
      const doc = YAML.parseDocument(...args);
      if (rewriteToo) doc.toString = (options) => YAML.Document.prototype.toString.call(doc, options).replace(from, to);
      return doc;
    },
  } as unknown as typeof YAML;
}

describe('kubeconfig --merge with the check', () => {
  const before = 'apiVersion: v1\nclusters:\n- name: a\n  cluster:\n    server: https://a.example.com\n';

  it('writes the rewrite, with its note, when the edits in place would read otherwise', () => {
    const merged = mergeKubeconfig(
      writingWrong('https://new.example.com', 'https://wrong.example.com', false),
      before,
      entries('b'),
      true,
      'kc',
    );
    expect(merged.rewritten).toBe(
      'an edit in place would change what it says: its clusters entry 2 would read otherwise',
    );
    expect(YAML.parse(merged.text)).toEqual({
      apiVersion: 'v1',
      clusters: [
        { name: 'a', cluster: { server: 'https://a.example.com' } },
        { name: 'b', cluster: { server: 'https://new.example.com' } },
      ],
      users: [{ name: 'b', user: { token: 't' } }],
      contexts: [{ name: 'b', context: { cluster: 'b', user: 'b' } }],
      'current-context': 'b',
    });
  });

  it('refuses, exit 2 and one line, when every way would change what the file says', () => {
    const error = caught(UsageError, () =>
      mergeKubeconfig(
        writingWrong('https://new.example.com', 'https://wrong.example.com', true),
        before,
        entries('b'),
        true,
        'kc',
      ),
    );
    expect({ code: error.code, exitCode: error.exitCode, message: error.message }).toEqual({
      code: 'KUBECONFIG_UNSAFE_MERGE',
      exitCode: 2,
      message:
        'cannot merge into kc without changing what it says (its clusters entry 2 would read otherwise); nothing was written: edit it by hand, or choose another file with --merge <file>',
    });
  });
});
