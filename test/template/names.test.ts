// namesScope: whether any let or template names a scope value, from the trees alone (the cache keys on
// the cluster info only when one names `cluster`).
import { describe, expect, it } from 'vitest';
import { namesScope } from '../../src/template/names.js';

describe('namesScope', () => {
  it.each<[string, Array<[string, string]>, string[], boolean]>([
    ['a template reading cluster.server', [], ['https://a/{{ cluster.server }}'], true],
    ['a computed member keyed by cluster', [], ['{{ vars[cluster.server] }}'], true],
    ['a branch that is not taken', [], ['{{ env.X ? "a" : cluster["certificate-authority-data"] }}'], true],
    ['a let (with or without braces)', [['c', '{{ cluster }}']], ['{{ c.server }}'], true],
    ['a helper argument deep in an object', [], ['{{ json({ a: [1, { b: lower(cluster.server) }] }) }}'], true],
    ['only a property called cluster', [], ['{{ steps.login.cluster }}', '{{ vars.cluster }}'], false],
    ['only literal text', [], ['cluster: {{ "cluster" }}'], false],
    ['no template at all', [], ['https://auth.example.com/token'], false],
  ])('%s', (_name, lets, templates, expected) => {
    expect(namesScope('cluster', lets, templates)).toBe(expected);
  });
});
