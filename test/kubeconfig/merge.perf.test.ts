// kubeconfig --merge and completion on large hostile kubeconfigs (the perf tier): each is timed at n and
// at 4n entries or lines, and the time may grow about linearly, not as the square (test/helpers/growth.ts).
// The sizes are where the quadratic work was already many times the linear, and n takes tens of ms.
// Each case was quadratic once: 80 000 blank lines took 13 s for the scan's check, 40 000 keys of a map
// 74 s for the parser's unique-key check, 80 000 duplicates of our entry 100 s spliced one by one, 4 000
// aliases resolved each by a walk of the whole document 18 s.
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { contextNames, mergeKubeconfig } from '../../src/kubeconfig/merge.js';
import { expectLinear } from '../helpers/growth.js';

const OURS = 'ours.example.com:443';
const ours = {
  name: OURS,
  cluster: { server: 'https://ours.example.com' },
  user: { token: 't' },
  context: { cluster: OURS, user: OURS },
};
const entries = (name: string, server: string) => ({
  name,
  cluster: { server, 'certificate-authority-data': 'Q0EK' },
  user: {
    exec: {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'webapi-credential',
      args: ['--config-inline', 'a: 1\nb: 2', '--cache'],
    },
  },
  context: { cluster: name, user: name },
});

describe('the merge and completion are linear in the file', () => {
  it.each([
    ['blank lines', '\n'],
    ['lines of spaces', '   \n'],
    ['indented comments', '  # c\n'],
  ])('a kubeconfig of growing runs of %s', async (_what, filler) => {
    const file = (lines: number) =>
      `apiVersion: v1\nclusters: []\n${filler.repeat(lines)}contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n`;
    await expectLinear((n) => expect(contextNames(YAML, file(n))).toEqual(['c']), 80_000);
    await expectLinear((n) => expect(mergeKubeconfig(YAML, file(n), ours, true, 'kc').outcome).toBe('added'), 10_000);
  });

  // CR line ends send a file to the parser, whose check of unique keys compared each key of a map
  // with every one before it (60 characters a key: 8.5 bytes a token, under the token bound).
  it('a kubeconfig that goes to the parser, with a map of growing thousands of keys', async () => {
    const file = (keys: number) => {
      const lines = ['apiVersion: v1', 'preferences:'];
      for (let i = 0; i < keys; i++) lines.push(`  k${String(i).padStart(60, '0')}: v`);
      lines.push('contexts:', '- name: c', '  context:', '    cluster: c', '    user: u', '');
      return lines.join('\r\n');
    };
    await expectLinear((n) => expect(contextNames(YAML, file(n))).toEqual(['c']), 2_500);
    await expectLinear((n) => expect(mergeKubeconfig(YAML, file(n), ours, true, 'kc').outcome).toBe('added'), 2_500);
  });

  // Each duplicate of our name is an edit; the merge parses the file for its check (merge/check.ts) too.
  it('a kubeconfig of growing thousands of duplicates of our entry: the merge keeps one', async () => {
    const entry = `- name: ${OURS}\n  cluster:\n    server: https://old.example\n`;
    const file = (copies: number) =>
      `apiVersion: v1\nclusters:\n- name: theirs\n  cluster:\n    server: https://theirs.example\n${entry.repeat(copies)}contexts: []\nusers: []\n`;
    const merged = YAML.parse(mergeKubeconfig(YAML, file(2_500), ours, true, 'kc').text) as { clusters: unknown };
    expect(merged.clusters).toEqual([
      { name: 'theirs', cluster: { server: 'https://theirs.example' } },
      { name: OURS, cluster: ours.cluster },
    ]);
    await expectLinear((copies) => mergeKubeconfig(YAML, file(copies), ours, true, 'kc'), 2_500);
  });
});

describe('the edits in place are linear in the file', () => {
  // Long values keep these files under the parser's token bound (8 bytes a token).
  const pad = 'p'.repeat(150);

  it.each([
    [
      'a flow list on one line',
      (n: number) =>
        `clusters: [{name: theirs, cluster: {server: https://theirs.example}}${`, {name: ${OURS}, cluster: {server: https://old.example/${pad}}}`.repeat(n)}]\n`,
    ],
    [
      'a block list with a tab in a comment',
      (n: number) =>
        `clusters:\n\t# tab\n- name: theirs\n  cluster: {server: https://theirs.example}\n${`- name: ${OURS}\n  cluster: {server: https://old.example/${pad}}\n`.repeat(n)}`,
    ],
    [
      'aliases of an anchor outside our entries',
      (n: number) =>
        `x: &a ${pad}\nclusters:\n- name: theirs\n  cluster: {server: *a}\n${`- name: ${OURS}\n  cluster: {server: *a, x: ${pad}${pad}}\n`.repeat(n)}`,
    ],
  ])('%s, with growing thousands of entries of our name: one kept, the rest kept', async (_what, file) => {
    const merged = mergeKubeconfig(YAML, file(1_000), entries(OURS, 'https://ours.example.com'), true, 'kc');
    expect(merged.rewritten).toBeUndefined();
    const clusters = (YAML.parse(merged.text) as { clusters: Array<{ name: string }> }).clusters;
    expect(clusters.map((cluster) => cluster.name)).toEqual(['theirs', OURS]);
    await expectLinear(
      (copies) => mergeKubeconfig(YAML, file(copies), entries(OURS, 'https://ours.example.com'), true, 'kc'),
      1_000,
    );
  });

  it('the rewrite for aliases into a replaced entry copies growing thousands of aliases, each the value it meant', async () => {
    const pad200 = 'p'.repeat(200);
    const aliased = (copies: number) =>
      `clusters:\n- name: b\n  cluster: &c {server: https://b.example.com}\n${Array.from({ length: copies }, (_, i) => `- name: d${i}${pad200}\n  cluster: *c\n`).join('')}`;
    const merged = mergeKubeconfig(YAML, aliased(500), entries('b', 'https://moved.example.com'), false, 'kc');
    expect(merged.rewritten).toBe('an alias elsewhere refers to an anchor inside an entry it replaces');
    const clusters = (YAML.parse(merged.text) as { clusters: Array<{ cluster: unknown }> }).clusters;
    expect(clusters).toHaveLength(501);
    expect(clusters.at(-1)!.cluster).toEqual({ server: 'https://b.example.com' });
    await expectLinear(
      (copies) => mergeKubeconfig(YAML, aliased(copies), entries('b', 'https://moved.example.com'), false, 'kc'),
      500,
    );
  });
});
