// Completion of values the scripts cannot know when they are printed or that live elsewhere: init's
// providers (built in, listed in the script) and --context (the kubeconfig's contexts, asked of the
// CLI when completing). A kubeconfig may be anyone's: a context name that a shell could read as code
// is never offered (bash's compgen -W expands its word list).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { installedDir } from '../helpers/installed.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-completion-values-'));
const PWNED = join(dir, 'pwned');
const KUBECONFIG = join(dir, 'kubeconfig');
writeFileSync(
  KUBECONFIG,
  [
    'apiVersion: v1',
    'contexts:',
    '- context: {cluster: a, user: a}',
    '  name: prod',
    '- context: {cluster: a, user: a}',
    '  name: k8s.example.com:6443',
    '- context: {cluster: a, user: a}',
    `  name: "$(touch ${PWNED})"`,
    '- context: {cluster: a, user: a}',
    '  name: "`touch ' + PWNED + '`"',
    '- context: {cluster: a, user: a}',
    '  name: two words',
    '- context: {cluster: a, user: a}',
    '  name: staging',
    'kind: Config',
    '',
  ].join('\n'),
);
const HOME_CONFIG = join(dir, 'home', '.kube');
let script = '';
const PATH = `${installedDir()}:/usr/bin:/bin`;

beforeAll(async () => {
  const result = await runCli(['completion', 'bash']);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  script = join(dir, 'completion.bash');
  writeFileSync(script, result.stdout);
});

function complete(words: string[], env: Record<string, string> = {}): string[] {
  const program = `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w).replace(/\$/g, '\\$')).join(' ')}); COMP_CWORD=${words.length - 1}; _webapi_credential; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], {
    encoding: 'utf8',
    env: { PATH, HOME: join(dir, 'home'), ...env },
    timeout: 20_000,
  });
  expect(result.stderr).toBe('');
  return result.stdout
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

describe('bash completes values from elsewhere', () => {
  it("offers init's providers", () => {
    expect(complete(['webapi-credential', 'init', 'keyc'])).toEqual([
      'keycloak',
      'keycloak/client-secret-post',
      'keycloak/private-key-jwt',
    ]);
    expect(complete(['webapi-credential', 'init', 'oi'])).toEqual([
      'oidc',
      'oidc-device',
      'oidc-login',
      'oidc/client-secret-post',
      'oidc/private-key-jwt',
    ]);
  });

  it('offers the contexts of the kubeconfig on the line, only those of plain characters, and runs none of them', () => {
    expect(complete(['webapi-credential', 'doctor', '--kubeconfig', KUBECONFIG, '--context', ''])).toEqual([
      'k8s.example.com:6443',
      'prod',
      'staging',
    ]);
    expect(complete(['webapi-credential', 'doctor', '--kubeconfig', KUBECONFIG, '--context', 'st'])).toEqual([
      'staging',
    ]);
    expect(existsSync(PWNED)).toBe(false);
  });

  it("without --kubeconfig, the contexts of $KUBECONFIG's files; none from a file that is not there or not a kubeconfig", () => {
    expect(
      complete(['webapi-credential', 'doctor', '--context', ''], {
        KUBECONFIG: `${join(dir, 'missing')}:${KUBECONFIG}`,
      }),
    ).toEqual(['k8s.example.com:6443', 'prod', 'staging']);
    expect(complete(['webapi-credential', 'doctor', '--context', ''], { KUBECONFIG: script })).toEqual([]);
    expect(existsSync(HOME_CONFIG)).toBe(false);
    expect(complete(['webapi-credential', 'doctor', '--context', ''])).toEqual([]);
    expect(existsSync(PWNED)).toBe(false);
  });

  it('__complete-contexts is no command to offer', () => {
    expect(complete(['webapi-credential', '__'])).toEqual([]);
  });
});
