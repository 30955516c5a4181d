// The npm package as users get it: `npm pack` of this checkout (prepack builds dist/), installed
// into a fresh prefix with `npm i -g`, run on the oldest Node it claims (22, the npm node@22 package)
// (where NODE_22 names it) and on the pinned 24: a real fetch, validate, render, kubeconfig. An
// older Node gets one line.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PINNED_NODE, ROOT, runCommand } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, provider, tokenApis } from '../helpers/integration.js';
import { describeWith, NODE_22 } from '../helpers/tools.js';

const pki = makePki();
const startApi = tokenApis();
let installed = '';

/** Runs the installed bin with `node` first on the PATH, as a user's shell would. */
function run(node: string, args: string[], env: Record<string, string> = {}) {
  return runCommand(installed, args, { PATH: `${dirname(node)}:/usr/bin:/bin`, HOME: tmpdir(), ...env });
}

describe('the npm package, packed and installed', () => {
  beforeAll(() => {
    const work = mkdtempSync(join(tmpdir(), 'webapi-credential-package-'));
    // Packed from a copy of the checkout's tracked files, as a clean clone would be: prepack builds
    // dist/ there, not under the other suites' feet (they run this checkout's dist/ meanwhile).
    const clone = join(work, 'clone');
    for (const path of execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n')) {
      mkdirSync(dirname(join(clone, path)), { recursive: true });
      copyFileSync(join(ROOT, path), join(clone, path));
    }
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
    // npm pack runs prepack (the build) with the Node that runs npm: the pinned one.
    const npmEnv = { ...process.env, PATH: `${dirname(PINNED_NODE)}:${process.env['PATH'] ?? ''}` };
    execFileSync('npm', ['pack', '--silent', '--pack-destination', work], {
      cwd: clone,
      env: npmEnv,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'))!;
    const prefix = join(work, 'prefix');
    // No runtime dependencies (everything is bundled): the install needs no registry.
    execFileSync(
      'npm',
      ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', join(work, tarball)],
      { env: npmEnv, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    installed = join(prefix, 'bin', 'webapi-credential');
  }, 180_000);

  /** A real fetch, validate, render and kubeconfig from the installed package, run by `node`. */
  async function exercise(node: string) {
    const version = await run(node, ['--version']);
    expect(version.stdout).toMatch(/^webapi-credential \d+\.\d+\.\d+ \(node v\d+\.\d+\.\d+, [a-z0-9]+-[a-z0-9]+\)\n$/);
    const api = await startApi((_request, response) =>
      json(response, 200, { access_token: SECRET.token, expires_in: 600 }),
    );
    const config = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      form: { s: '{{ env.PKG_SECRET }}' },
      tls: { caFile: pki.ca.certFile },
    });
    const env = { PKG_SECRET: 'package-secret-Lm3' };
    const fetched = await run(node, ['--config-inline', config], env);
    expect(fetched.stderr).toBe('');
    expect(JSON.parse(fetched.stdout).status.token).toBe(SECRET.token);
    const validated = await run(node, ['validate', '--config-inline', config], env);
    expect(validated.stdout).toBe(`config from --config-inline is valid: POST ${api.url}/token\n`);
    const rendered = await run(node, ['render', '--config-inline', config], env);
    expect(rendered.stdout).toContain('s=[REDACTED]');
    expect(rendered.stdout).not.toContain('package-secret-Lm3');
    const kubeconfig = await run(
      node,
      ['kubeconfig', '--server', 'https://k8s.example', '--config-inline', config],
      env,
    );
    expect(kubeconfig.code).toBe(0);
    expect(kubeconfig.stdout).toContain('kind: Config');
  }

  it('fetches, validates, renders and writes a kubeconfig on the pinned Node 24', () => exercise(PINNED_NODE));

  // The oldest Node it claims comes from npm, outside the checkout: only where NODE_22 names it.
  describeWith(NODE_22)('on the oldest Node it claims', () => {
    it('fetches, validates, renders and writes a kubeconfig on Node 22', () => exercise(realpathSync(NODE_22.path!)));
  });

  it('says in one line that an older Node will not do', async () => {
    const old = execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim();
    const version = execFileSync(old, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(version.slice(1).split('.')[0]) >= 22) return; // this machine's node is new enough: nothing to show
    const result = await run(old, ['--version']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `webapi-credential: needs Node >= 22, this is ${version}; install a newer Node, or use the single binary\n`,
    });
  });
});
