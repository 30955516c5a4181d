// --version and --help of the built CLI (test/cli/output.test.ts checks what a fetch prints, in process).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { VERSION } from '../helpers/integration.js';

describe.concurrent('--version and --help', () => {
  it('prints the version and exits 0', async () => {
    // The Node it runs on: the one the bin script runs, or the one the single binary carries.
    expect(await runCli(['--version'])).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        new RegExp(
          `^webapi-credential ${VERSION.replaceAll('.', '\\.')} \\(node v\\d+\\.\\d+\\.\\d+, ${process.platform}-${process.arch}\\)\\n$`,
        ),
      ),
      stderr: '',
    });
  });

  it('prints the usage on stdout and exits 0', async () => {
    const result = await runCli(['--help']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.split('\n')[0]).toBe('Usage: webapi-credential [options] [command]');
    for (const command of ['get-token', 'validate', 'render'])
      expect(result.stdout).toContain(`\n  ${command} [options]`);
  });

  it('prints the options of get-token with get-token --help', async () => {
    const result = await runCli(['get-token', '--help']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.split('\n')[0]).toBe('Usage: webapi-credential get-token [options]');
    for (const flag of [
      '--config <path>',
      '--config-inline <text>',
      '--set <key=value>',
      '--output <format>',
      '--api-version <version>',
      '--timeout <duration>',
      '--verbose',
    ]) {
      expect(result.stdout).toContain(flag);
    }
  });
});
