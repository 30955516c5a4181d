// stdout and stderr are the caller's (SPEC "Network behaviour"): a stderr whose reader is gone never
// costs the credential, and a stdout that cannot take it (a full disk) is one line naming stdout,
// exit 2, never exit 1 with "internal error". Before: `-v 2>&1 1>out.json | (exec true)` was exit 1,
// no credential and two stale .lock files; stdout on /dev/full was exit 1 "internal error, please
// report it: ENOSPC", and a cached hit whose write failed ran the whole request again.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, cliCommand, leaks, type CliResult } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { PREFIX, SECRET, SECRET_ENV, allSecrets, basic, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };
/** The expiry that lets the cache keep the credential. */
const expiry = { expiresInPath: '$.expires_in' };
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-stdio-'));
const FULL = '/dev/full';

/**
 * A pipe whose reader lives but never reads, already full, as a blocking descriptor (what a caller
 * that never drains stderr gives): every write to it blocks. A FIFO, since Node makes no bare pipe.
 */
function fullPipe(): { fd: number; close: () => void } {
  const fifo = join(dir, `full-${Math.random().toString(36).slice(2)}`);
  spawnSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const filler = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  try {
    for (;;) writeSync(filler, Buffer.alloc(4096, 'x'));
  } catch {
    // EAGAIN: full.
  }
  const fd = openSync(fifo, constants.O_WRONLY);
  closeSync(filler);
  // The reader stays open until the plugin has ended: else its writes fail with EPIPE (the 'gone' case).
  return { fd, close: () => [reader, fd].forEach((f) => closeSync(f)) };
}

/** Runs the CLI with stdout into `stdout` (a path opened for writing) and stderr to a pipe, closed at once, or full. */
function run(args: string[], options: { stdout: string; stderr: 'pipe' | 'gone' | 'full' }): Promise<CliResult> {
  const [command, ...lead] = cliCommand();
  const out = openSync(options.stdout, 'w');
  const full = options.stderr === 'full' ? fullPipe() : undefined;
  return new Promise((resolve, reject) => {
    const child = spawn(command!, [...lead, ...args], {
      env: baseEnv(SECRET_ENV),
      stdio: ['ignore', out, full?.fd ?? 'pipe'],
    });
    closeSync(out);
    let stderr = '';
    // The reader is gone before the plugin writes its first line: every stderr write fails with EPIPE.
    if (options.stderr === 'gone') child.stderr!.destroy();
    else if (options.stderr === 'pipe') child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      full?.close();
      resolve({ code, stdout: options.stdout === FULL ? '' : readFileSync(options.stdout, 'utf8'), stderr });
    });
  });
}

async function tokenApi() {
  return startApi((_request, response) => json(response, 200, { access_token: SECRET.token, expires_in: 3600 }));
}

describe('a stderr whose reader is gone', () => {
  it('costs neither the credential nor a lock: exit 0, the credential in the file, no .lock left', async () => {
    const api = await tokenApi();
    const cacheDir = join(dir, 'cache-gone');
    const out = join(dir, 'out-gone.json');
    const config = provider(basic(`${api.url}/token`, { tls, ...expiry, form: { key: '{{ env.API_KEY }}' } }));
    const result = await run(['--config-inline', config, '-v', '--cache', '--cache-dir', cacheDir], {
      stdout: out,
      stderr: 'gone',
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
    expect(readdirSync(cacheDir).filter((name) => name.endsWith('.lock'))).toEqual([]);
    // And the fast path, which warns on a hit with insecureSkipVerify and traces under -v.
    const again = await run(['--config-inline', config, '-v', '--cache', '--cache-dir', cacheDir], {
      stdout: out,
      stderr: 'gone',
    });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).status.token).toBe(SECRET.token);
    expect(api.requests).toHaveLength(1);
  });

  it('nor does a stderr pipe that is full and never drained: exit 0 within --timeout, the credential in the file', async () => {
    const api = await tokenApi();
    const out = join(dir, 'out-full.json');
    const config = provider(
      basic(`${api.url}/token`, {
        tls: { ...tls, insecureSkipVerify: true },
        ...expiry,
        form: { key: '{{ env.API_KEY }}' },
      }),
    );
    // A plugin that waited on the pipe would be ended by --timeout (exit 3) or by the runner (no exit code).
    const result = await run(
      ['--config-inline', config, '-v', '--timeout', '10s', '--cache', '--cache-dir', join(dir, 'cache-full')],
      { stdout: out, stderr: 'full' },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
  });

  it('costs nothing when the line is a warning (insecureSkipVerify)', async () => {
    const api = await tokenApi();
    const out = join(dir, 'out-warning.json');
    const config = provider(basic(`${api.url}/token`, { tls: { insecureSkipVerify: true } }));
    const result = await run(['--config-inline', config], { stdout: out, stderr: 'gone' });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
  });
});

describe.skipIf(!existsSync(FULL))('a stdout that cannot be written (/dev/full)', () => {
  const ENOSPC = 'ENOSPC (no space left on device)';

  it('is one line naming stdout, exit 2, and no secret', async () => {
    const api = await tokenApi();
    const config = provider(basic(`${api.url}/token`, { tls, ...expiry, form: { key: '{{ env.API_KEY }}' } }));
    const result = await run(['--config-inline', config], { stdout: FULL, stderr: 'pipe' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}cannot write the credential to stdout: ${ENOSPC}\n`,
    });
    expect(leaks(result, allSecrets())).toEqual([]);
  });

  it.each([
    ['render', ['render']],
    ['validate', ['validate']],
    ['kubeconfig', ['kubeconfig', '--server', 'https://k8s.example.com']],
    ['argocd-secret', ['argocd-secret', '--server', 'https://k8s.example.com', '--name', 'prod']],
  ])('%s: one line naming stdout, exit 2', async (_name, command) => {
    const config = provider(basic('https://127.0.0.1:9/token', { form: { key: '{{ env.API_KEY }}' } }));
    const result = await run([...command, '--config-inline', config], { stdout: FULL, stderr: 'pipe' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}cannot write to stdout: ${ENOSPC}\n`,
    });
    expect(leaks(result, allSecrets())).toEqual([]);
  });

  it('a cached hit whose write fails does not run the request again', async () => {
    const api = await tokenApi();
    const cacheDir = join(dir, 'cache-full');
    const config = provider(basic(`${api.url}/token`, { tls, ...expiry }));
    const first = await run(['--config-inline', config, '--cache', '--cache-dir', cacheDir], {
      stdout: join(dir, 'first.json'),
      stderr: 'pipe',
    });
    expect(first.code).toBe(0);
    const result = await run(['--config-inline', config, '--cache', '--cache-dir', cacheDir, '-v'], {
      stdout: FULL,
      stderr: 'pipe',
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `${PREFIX}cache: hit (fast path, ${cacheDir})\n${PREFIX}cannot write the credential to stdout: ${ENOSPC}\n`,
    });
    expect(api.requests).toHaveLength(1);
  });
});
