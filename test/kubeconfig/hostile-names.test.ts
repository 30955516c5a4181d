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
import { asKubectlReads } from '../../src/kubeconfig/read.js';
import { runInProcess } from '../helpers/in-process.js';
import { ACCEPTED, REFUSED } from './hostile-names.js';

const PREFIX = 'webapi-credential: ';
const EXISTING = 'apiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster:\n    server: https://other.example.com\ncontexts:\n- name: other\n  context: {cluster: other, user: other}\ncurrent-context: other\nusers:\n- name: other\n  user: {token: t}\n';
const args = (name: string, file: string) => ['kubeconfig', '--server', 'https://k8s.example.com', '--name', name, '--config-inline', 'webAPIProviderConfig: {method: GET, url: "https://t.example.com", tokenPath: $.t}', '--merge', file, '--use'];

describe('a hostile --name', () => {
  it.each(REFUSED)('with %s is a usage error naming it, and nothing is written', async (_what, name, why) => {
    const file = join(mkdtempSync(join(tmpdir(), 'webapi-credential-names-')), 'config');
    expect(await runInProcess(args(name, file))).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}--name holds ${why}: choose a name without control, format or line-break characters\n` });
    expect(existsSync(file)).toBe(false);
  });

  it.each(ACCEPTED)('that is %s is merged, and reads back as itself', async (_what, name) => {
    const file = join(mkdtempSync(join(tmpdir(), 'webapi-credential-names-')), 'config');
    writeFileSync(file, EXISTING, { mode: 0o600 });
    const result = await runInProcess(args(name, file));
    // A line's trailing white space is not printed: the name ending one shows whole earlier in it.
    expect(result).toEqual({ code: 0, stdout: '', stderr: `${`${PREFIX}added cluster, user and context ${name} to ${file}; current-context is ${name}`.trimEnd()}\n` });
    const read = YAML.parse(asKubectlReads(readFileSync(file, 'utf8'))) as Record<'clusters' | 'users' | 'contexts', Array<{ name: string }>> & { 'current-context': string };
    for (const section of ['clusters', 'users', 'contexts'] as const) expect(read[section].map((entry) => entry.name)).toEqual(['other', name]);
    expect(read['current-context']).toBe(name);
  });
});
