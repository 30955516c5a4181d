// A relative path means another file from another place (SPEC Cache: every file a template reads is in
// the key). The same config text in two directories, or the same inline config and env run from two
// directories, reads two identities: each must get its own credential, never the other's through the
// fast path (its ref names the files it resolved the first time), and a hit from where it was stored.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, cliCommand, leaks, runCli, type CliResult } from '../helpers/cli.js';
import { json, startTokenApi } from '../helpers/token-api.js';
import { cachedConfig, sandbox, tokenApis } from './support.js';

const startApi = tokenApis();

/** Two directories, each with identity.txt (alice, bob) and, when `config` is given, cfg.json holding it. */
function twoPlaces(root: string, config?: string): [string, string] {
  return (['alice', 'bob'] as const).map((who) => {
    const dir = join(root, `dir-${who}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'identity.txt'), `identity-of-${who}\n`);
    if (config !== undefined) writeFileSync(join(dir, 'cfg.json'), config);
    return dir;
  }) as [string, string];
}

/** `command` run by a shell that enters `dir` and removes it first: process.cwd() fails in it. */
function inRemovedDirectory(dir: string, command: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'cd "$1" && rmdir "$1" && shift && exec "$@"', 'sh', dir, ...command], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a relative file read from two places', () => {
  it('a config file in each of two directories, file() of a path relative to it: each gets its own credential', async () => {
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: 3600 }));
    const box = sandbox();
    const [alice, bob] = twoPlaces(box.root, cachedConfig(api, { form: { who: "{{ file('identity.txt') }}" } }));
    const env = box.env({ API_KEY: 'api-key-1' });
    const first = await runCli(['--config', join(alice, 'cfg.json'), '--cache', '--verbose'], { env });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['--config', join(bob, 'cfg.json'), '--cache', '--verbose'], { env });
    expect(second.code, second.stderr).toBe(0);
    // bob's call asked the token API with bob's identity, and got its own token.
    expect(api.requests.map((request) => new URLSearchParams(request.body).get('who'))).toEqual([
      'identity-of-alice',
      'identity-of-bob',
    ]);
    expect(JSON.parse(second.stdout).status.token).toBe('token-2');
    expect(second.stderr).not.toContain('(fast path');
    expect(leaks(second, ['api-key-1', 'identity-of-bob', 'identity-of-alice'], ['token-2'])).toEqual([]);
    // Back in alice's directory: her credential, by the fast path, without a request.
    const again = await runCli(['--config', join(alice, 'cfg.json'), '--cache', '--verbose'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).status.token).toBe('token-1');
    expect(api.requests).toHaveLength(2);
  }, 60_000);

  it('an inline config and an env path relative to the current directory (GOOGLE_APPLICATION_CREDENTIALS=./key.json), run from two directories', async () => {
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: 3600 }));
    const box = sandbox();
    const [alice, bob] = twoPlaces(box.root);
    const config = cachedConfig(api, { form: { who: '{{ file(env.KEYFILE) }}' } });
    const env = box.env({ API_KEY: 'api-key-1', KEYFILE: './identity.txt' });
    const first = await runCli(['--config-inline', config, '--cache'], { env, cwd: alice });
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['--config-inline', config, '--cache', '--verbose'], { env, cwd: bob });
    expect(second.code, second.stderr).toBe(0);
    expect(api.requests.map((request) => new URLSearchParams(request.body).get('who'))).toEqual([
      'identity-of-alice',
      'identity-of-bob',
    ]);
    expect(JSON.parse(second.stdout).status.token).toBe('token-2');
    expect(leaks(second, ['api-key-1', 'identity-of-bob', 'identity-of-alice'], ['token-2'])).toEqual([]);
    const again = await runCli(['--config-inline', config, '--cache', '--verbose'], { env, cwd: bob });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).status.token).toBe('token-2');
    expect(again.stderr).toContain('(fast path');
    expect(api.requests).toHaveLength(2);
  }, 60_000);

  // A path a step answers, relative to the current directory: where it resolves is known only after
  // the steps ran, so the key made before them cannot hold it. Each place gets its own credential, and
  // a rotated file misses whether the last call was a fetch or a hit.
  it('a path a step answers, relative to the current directory, run from two directories: each its own credential, a rotation misses', async () => {
    let issued = 0;
    const api = await startTokenApi((request, response) => {
      if (request.path === '/login') return json(response, 200, { path: './identity.txt' });
      // Which identity the token API was sent, said in the token without the identity itself.
      const who = { 'identity-of-alice': 'alice', 'identity-of-bob': 'bob', rotated: 'rotated' }[
        new URLSearchParams(request.body).get('who')!.trim()
      ];
      json(response, 200, { access_token: `token-${++issued}-${who}`, expires_in: 3600 });
    });
    try {
      const box = sandbox();
      const [alice, bob] = twoPlaces(box.root);
      const config = cachedConfig(api, {
        steps: [{ name: 'login', method: 'POST', url: `${api.url}/login`, json: { r: 'x' } }],
        form: { who: '{{ file(steps.login.path) }}' },
      });
      const env = box.env({ API_KEY: 'api-key-1' });
      const token = async (cwd: string) => {
        const result = await runCli(['--config-inline', config, '--cache'], { env, cwd });
        expect(result.code, result.stderr).toBe(0);
        expect(leaks(result, ['api-key-1', 'identity-of-alice', 'identity-of-bob'])).toEqual([]);
        return (JSON.parse(result.stdout) as { status: { token: string } }).status.token;
      };
      expect(await token(alice)).toBe('token-1-alice');
      expect(await token(alice)).toBe('token-1-alice');
      // Not alice's credential: the key made before the steps ran held neither her file nor her place.
      expect(await token(bob)).toBe('token-2-bob');
      expect(await token(bob)).toBe('token-2-bob');
      writeFileSync(join(bob, 'identity.txt'), 'rotated\n');
      expect(await token(bob)).toBe('token-3-rotated');
      expect(await token(bob)).toBe('token-3-rotated');
      expect(await token(alice)).toMatch(/^token-\d-alice$/);
    } finally {
      await api.close();
    }
  }, 60_000);

  it('from a current directory that was removed under it: a config of absolute paths is fetched, then served from the cache', async () => {
    const api = await startApi((n) => ({ access_token: `token-${n}`, expires_in: 3600 }));
    const box = sandbox();
    const gone = join(box.root, 'gone');
    const config = cachedConfig(api);
    for (const expected of ['token-1', 'token-1']) {
      mkdirSync(gone);
      // A shell that enters the directory and removes it, then runs the plugin there (a kubectl run
      // from a tree another process deleted): process.cwd() fails in it.
      const ran = await inRemovedDirectory(
        gone,
        [...cliCommand(), '--config-inline', config, '--cache'],
        baseEnv(box.env({ API_KEY: 'api-key-1' })),
      );
      expect(ran.code, ran.stderr).toBe(0);
      expect(JSON.parse(ran.stdout).status.token).toBe(expected);
    }
    expect(api.requests).toHaveLength(1);
  }, 60_000);
});
