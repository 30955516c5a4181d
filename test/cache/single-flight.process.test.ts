// Single flight across real processes: many cold callers make one request, and a caller killed with
// SIGKILL while it holds the lock (fetching, or writing the entry) does not block the next one.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  cachedConfig,
  deadPid,
  entryAndRef,
  getToken,
  onlyEntry,
  sandbox,
  spawnCli,
  tokenApis,
  tree,
  HOST_ID,
} from './support.js';

const startApi = tokenApis();
const PREFIX = 'webapi-credential: ';

/**
 * Whether a caller waited out its patience (10 s) instead of taking a dead holder's lock at once: it says
 * so under --verbose (a live holder's lock taken over, or a lock not ours gone around). Read from its
 * trace, not timed: a busy machine makes any wait long.
 */
const waitedItsPatience = (stderr: string) =>
  /cache: took over the lock of a live process|cache: a lock that is not ours holds the key too long/.test(stderr);

describe('single flight', () => {
  it('makes exactly one request for 50 parallel cold invocations, and all 50 print the same credential', async () => {
    // The answer is held back a little so that the callers really do overlap.
    const api = await startApi(undefined, 500);
    const box = sandbox();
    // 50 processes on two cores: the holder may read its answer long after the API sent it. Its
    // attempt must not time out and send the request again (a second request, not a broken lock).
    const config = cachedConfig(api, { timeout: '100s' });
    const results = await Promise.all(
      Array.from({ length: 50 }, () => getToken(box, config, ['--cache', '--timeout', '110s'])),
    );

    expect(results.map((r) => r.code)).toEqual(Array(50).fill(0));
    expect(results.map((r) => r.stderr)).toEqual(Array(50).fill(''));
    const stdouts = new Set(results.map((r) => r.stdout));
    expect(stdouts.size).toBe(1);
    expect((JSON.parse([...stdouts][0]!) as { status: { token: string } }).status.token).toBe('token-1');
    expect(api.requests).toHaveLength(1);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  }, 120_000);

  it('makes one request for 8 cold callers of a config whose request changes every render (jwt, uuid, now)', async () => {
    // A signed client assertion with a fresh jti, a uuid and the time: a key over the rendered
    // request would never repeat, and each caller would fetch on its own.
    const api = await startApi(undefined, 500);
    const box = sandbox();
    const { generateKeyPairSync } = await import('node:crypto');
    const key = join(box.root, 'client.key');
    writeFileSync(
      key,
      generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
        format: 'pem',
        type: 'pkcs8',
      }) as string,
    );
    const config = cachedConfig(api, {
      query: { request_id: '{{ uuid() }}', at: '{{ now() }}' },
      headers: {
        Authorization: 'Bearer {{ env.API_KEY }}',
        'X-Assertion': `{{ jwt({ iss: "client", aud: "api" }, file(${JSON.stringify(key)})) }}`,
      },
    });
    const results = await Promise.all(Array.from({ length: 8 }, () => getToken(box, config, ['--cache'])));
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    expect(new Set(results.map((r) => r.stdout)).size).toBe(1);
    expect(api.requests).toHaveLength(1);
    const again = await getToken(box, config, ['--cache']);
    expect(again.stdout).toBe(results[0]!.stdout);
    expect(api.requests).toHaveLength(1);
  });

  it('lets a waiting caller go on at once when the lock holder is killed with SIGKILL mid-request', async () => {
    const api = await startApi();
    const held = api.holdRequest(1);
    const box = sandbox();
    const config = cachedConfig(api);
    const env = box.env({ API_KEY: 'api-key-1' });

    const holder = spawnCli(['--config-inline', config, '--cache'], env);
    await held.arrived;
    const lock = tree(box.cacheDir).find((name) => name.endsWith('.lock'));
    expect(lock).toMatch(/^[0-9a-f]{64}\.lock$/);
    // Its pid, host, deadline (its --timeout, 30 s by default, from its start) and that it is no login.
    expect(readFileSync(join(box.cacheDir, lock!), 'utf8')).toMatch(
      new RegExp(`^${holder.child.pid} ${HOST_ID.replace(/[[\]]/g, '\\$&')} \\d{13} fetch\n$`),
    );

    const waiter = spawnCli(['--config-inline', config, '--cache', '--verbose'], env);
    // The waiter says it polls the lock (under --verbose): it must not have fetched.
    await waiter.waitForStderr(`${PREFIX}cache: waiting for process ${holder.child.pid}, which holds the lock until `);
    expect(api.requests).toHaveLength(1);

    holder.child.kill('SIGKILL');
    expect(await holder.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const { code } = await waiter.exited;
    held.release();

    expect(code).toBe(0);
    expect(JSON.parse(waiter.stdout()).status.token).toBe('token-2');
    expect(api.requests).toHaveLength(2);
    expect(waitedItsPatience(waiter.stderr())).toBe(false);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  });

  it('serves the next caller at once after the lock holder was killed with SIGKILL mid-request', async () => {
    const api = await startApi();
    const held = api.holdRequest(1);
    const box = sandbox();
    const config = cachedConfig(api);

    const holder = spawnCli(['--config-inline', config, '--cache'], box.env({ API_KEY: 'api-key-1' }));
    await held.arrived;
    holder.child.kill('SIGKILL');
    await holder.exited;
    const stale = tree(box.cacheDir);
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatch(/^[0-9a-f]{64}\.lock$/);

    const next = await getToken(box, config, ['--cache', '--verbose']);
    held.release();

    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout).status.token).toBe('token-2');
    expect(waitedItsPatience(next.stderr)).toBe(false);
    expect(api.requests).toHaveLength(2);
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
  });

  it('recovers from a caller killed while writing: dead lock, stray temp file and truncated entry', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    const first = await getToken(box, config, ['--cache']);
    expect(first.code).toBe(0);
    const { key, path, text } = onlyEntry(box.cacheDir);

    // What a writer killed between creating its temp file and the rename would leave, plus an entry
    // truncated by a crash of a writer that did not use rename. The temp file holds a credential that
    // must never be served.
    const pid = await deadPid();
    writeFileSync(join(box.cacheDir, `${key}.lock`), `${pid} ${HOST_ID}\n`, { mode: 0o600 });
    const temp = `${key}.${pid}-k1ll3d.tmp`;
    writeFileSync(join(box.cacheDir, temp), text.replace('token-1', 'token-from-temp-file'), { mode: 0o600 });
    writeFileSync(path, text.slice(0, 40));

    const next = await getToken(box, config, ['--cache', '--verbose']);

    expect(next.code).toBe(0);
    expect(JSON.parse(next.stdout).status.token).toBe('token-2');
    expect(next.stdout).not.toContain('token-from-temp-file');
    expect(next.stderr.split('\n').filter((line) => line.startsWith(`${PREFIX}cache:`))).toEqual([
      `${PREFIX}cache: miss (entry is corrupt or truncated)`,
      `${PREFIX}cache: stored`,
    ]);
    expect(api.requests).toHaveLength(2);
    // The lock is gone; the dead writer's temp file stays until it is older than any writer lives.
    expect(tree(box.cacheDir)).toEqual([...entryAndRef(box.cacheDir), temp].sort());

    const hit = await getToken(box, config, ['--cache']);
    expect(hit.stdout).toBe(next.stdout);
    expect(api.requests).toHaveLength(2);

    const clear = await runCli(['cache', 'clear'], { env: box.env() });
    expect(clear.stdout).toBe(`removed 1 cached credential from ${box.cacheDir}\n`);
    expect(tree(box.cacheDir)).toEqual([]);
  });

  it('takes over the lock, exits 0 and stores the entry when a live process holds the lock past the deadline it wrote', async () => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api);
    await getToken(box, config, ['--cache']);
    const { key, path } = onlyEntry(box.cacheDir);
    writeFileSync(path, '');
    // A live holder (this test runner) that never finishes, whose deadline is 2 s away: the waiter,
    // with a later one, takes its lock over once that has passed (and leaves it alone before).
    const until = Date.now() + 2_000;
    writeFileSync(join(box.cacheDir, `${key}.lock`), `${process.pid} ${HOST_ID} ${until} fetch\n`, { mode: 0o600 });

    const result = await getToken(box, config, ['--cache', '--verbose', '--timeout', '20s']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe('token-2');
    expect(result.stderr.split('\n').filter((line) => line.startsWith(`${PREFIX}cache:`))).toEqual([
      `${PREFIX}cache: miss (entry is corrupt or truncated)`,
      `${PREFIX}cache: waiting for process ${process.pid}, which holds the lock until ${new Date(until).toISOString()}`,
      `${PREFIX}cache: took over the lock of a live process whose own deadline had passed`,
      `${PREFIX}cache: stored`,
    ]);
    // The hung holder's lock was taken over, and ours released.
    expect(tree(box.cacheDir)).toEqual(entryAndRef(box.cacheDir));
    expect(api.requests).toHaveLength(2);
  });
});
