// Adversarial review of kubeconfig --merge's in-place edits (kubeconfig-splice.ts): unusual but
// valid kubeconfigs that a merge must neither corrupt nor read differently from kubectl.
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { mergeKubeconfig } from '../../../src/use-case/manifest/kubeconfig-merge.js';

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
});
