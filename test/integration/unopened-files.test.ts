// Files a config names are checked by stat before any open (SPEC "Network behaviour"): a FIFO or a
// device is refused without being opened. Opening a FIFO, even non-blocking, completes the open of a
// writer blocked on it (another user's process waiting for a reader: it would now go on), and
// opening some devices has effects of its own. Before, `validate` opened a FIFO given to file(),
// tls.caFile or --config, releasing its writer, and only then refused it.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { expectFailure, provider } from '../helpers/integration.js';

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-unopened-'));
const writers: ChildProcess[] = [];
afterAll(() => {
  for (const writer of writers) writer.kill('SIGKILL');
});

/** A FIFO with a writer blocked in open(2) until a reader opens it; `opened()` says whether it got through. */
async function blockedWriter(name: string): Promise<{ path: string; opened: () => boolean }> {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  // The shell's open of the FIFO for writing blocks until a reader opens it; then it says so.
  const writer = spawn('sh', ['-c', 'exec 3>"$1"; echo opened', 'sh', path], { stdio: ['ignore', 'pipe', 'ignore'] });
  writers.push(writer);
  let out = '';
  writer.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  // Give the shell time to reach open(2).
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    path,
    opened: () => out.includes('opened'),
  };
}

/** Waits a moment after the CLI ended: a writer released by an open would have said so by then. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('a FIFO named by the config is refused without being opened', () => {
  it("validate of file('ff'): exit 2, and the writer stays blocked", async () => {
    const fifo = await blockedWriter('file.fifo');
    const config = provider({
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      tokenPath: '$.t',
      form: { s: `{{ file(${JSON.stringify(fifo.path)}) }}` },
    });
    const result = await runCli(['validate', '--config-inline', config]);
    expectFailure(
      result,
      2,
      `webAPIProviderConfig.form.s: {{ file(${JSON.stringify(fifo.path)}) }}: file(${JSON.stringify(fifo.path)}) cannot be read: not a regular file`,
    );
    await settle();
    expect(fifo.opened()).toBe(false);
  });

  it('validate of tls.caFile: exit 2, and the writer stays blocked', async () => {
    const fifo = await blockedWriter('ca.fifo');
    const config = provider({
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      tokenPath: '$.t',
      tls: { caFile: fifo.path },
    });
    const result = await runCli(['validate', '--config-inline', config]);
    expectFailure(result, 2, `webAPIProviderConfig.tls.caFile: cannot read ${fifo.path}: not a regular file`);
    await settle();
    expect(fifo.opened()).toBe(false);
  });

  it.each([
    ['get-token', []],
    ['validate', ['validate']],
    ['get-token --cache (the fast path reads it too)', ['--cache']],
  ])('%s of --config on a FIFO: exit 2, and the writer stays blocked', async (_name, command) => {
    const fifo = await blockedWriter(`config-${writers.length}.fifo`);
    const result = await runCli([...command, '--config', fifo.path]);
    expectFailure(result, 2, `cannot read config ${fifo.path}: not a regular file`);
    await settle();
    expect(fifo.opened()).toBe(false);
  });

  it('a device is refused as not a regular file', async () => {
    const config = provider({
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      tokenPath: '$.t',
      tls: { caFile: '/dev/null' },
    });
    const result = await runCli(['validate', '--config-inline', config]);
    expectFailure(result, 2, 'webAPIProviderConfig.tls.caFile: cannot read /dev/null: not a regular file');
  });
});
