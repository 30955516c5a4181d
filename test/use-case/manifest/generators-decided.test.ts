// The generators' own words read the same whichever word a secret decided (docs/redaction.md, "Values
// a secret decided, and the plugin's own words"): they render the config as the plugin will, but with
// every value a secret decided withheld (prepare's withholdDecided), so none is registered with the
// redactor and no word of their notes or errors can read [REDACTED] for one secret and not another.
// Were that to change, these runs would tell one bit each. What they print differs by --set only.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { leaks, type CliResult } from '../../helpers/cli.js';
import { runInProcess } from '../../helpers/in-process.js';

const SECRET = 'hunter2-decides-31337';

const config = (yes: string, no: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://login.example.com/token',
      headers: { 'X-Word': `{{ env.SECRET < vars.t ? '${yes}' : '${no}' }}` },
      tokenPath: '$.access_token',
      ...extra,
    },
  });

async function bothWays(args: (yes: string, no: string) => string[], yes: string, no: string): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const t of ['a', 'z']) {
    const homedir = mkdtempSync(join(tmpdir(), 'generators-decided-'));
    results.push(await runInProcess([...args(yes, no), '--set', `t=${t}`], { env: { SECRET }, homedir }));
  }
  for (const result of results) expect(leaks(result, [SECRET])).toEqual([]);
  expect(results[1]!.stdout).toBe(results[0]!.stdout.replaceAll('t=a', 't=z'));
  return results;
}

const loginConfig = (yes: string, no: string) =>
  config(yes, no, {
    form: { client_id: 'kubectl' },
    login: { deviceAuthorization: { url: 'https://login.example.com/device' } },
  });

describe("the generators' notes read the same whichever word a secret decided", () => {
  it.each([
    ['kubeconfig', 'kubectl', 0, config],
    ['kubeconfig', 'plugin', 0, config],
    ['kubeconfig', 'export', 0, config],
    ['argocd-secret', 'placeholder', 0, config],
    ['argocd-secret', 'secrets', 0, config],
    ['argocd-secret', 'roots', 0, config],
    // A login config: argocd-secret refuses it (exit 2), in words of its own.
    ['argocd-secret', 'login', 2, loginConfig],
    ['argocd-secret', 'person', 2, loginConfig],
  ] as const)('%s, whether the secret chose %s or other', async (command, yes, code, of) => {
    const [first, second] = await bothWays(
      (y, n) => [command, '--server', 'https://k8s.example.com', '--name', 'prod', '--config-inline', of(y, n)],
      yes,
      'other',
    );
    expect(first!.code, first!.stderr).toBe(code);
    expect(first!.stderr).not.toContain('[REDACTED]');
    expect({ code: second!.code, stderr: second!.stderr }).toEqual({ code: first!.code, stderr: first!.stderr });
  });
});
