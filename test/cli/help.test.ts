// --help of every command ends with its examples; every command has some.
import { describe, expect, it } from 'vitest';
import { GET_TOKEN_FLAGS, flagSyntax } from '../../src/cli/flags.js';
import { EXAMPLES } from '../../src/cli/help.js';
import { runInProcess } from '../helpers/in-process.js';

describe('--help', () => {
  it('has examples for exactly the commands there are', async () => {
    const bash = await runInProcess(['completion', 'bash']);
    const paths = /case "\$next" in\n\s+(.+)\) sub="\$next" ;;/
      .exec(bash.stdout)![1]!
      .split('|')
      .map((p) => p.slice(1, -1));
    expect(Object.keys(EXAMPLES).sort()).toEqual(['', ...paths].sort());
  });

  it("the top-level --help lists get-token's options, from the one flag table", async () => {
    const result = await runInProcess(['--help']);
    const section = result.stdout.split('Without a command, get-token runs. Its options:\n')[1]!.split('\n\n')[0]!;
    expect(section.split('\n').map((line) => line.trim().split(/\s{2,}/)[0])).toEqual(GET_TOKEN_FLAGS.map(flagSyntax));
    expect(section).toContain('  --timeout <duration>     whole-call deadline, e.g. 10s (default: 30s)\n');
  });

  it("get-token --help lists exactly the table's flags, and --help", async () => {
    const result = await runInProcess(['get-token', '--help']);
    const listed = [...result.stdout.matchAll(/^ {2}(-.+?)(?: {2,}|$)/gm)].map((m) => m[1]);
    expect(listed).toEqual([...GET_TOKEN_FLAGS.map(flagSyntax), '-h, --help']);
  });

  it.each(Object.keys(EXAMPLES))('%j ends with its examples', async (path) => {
    const result = await runInProcess([...(path ? path.split(' ') : []), '--help']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.endsWith(`\nExamples:\n${EXAMPLES[path]!.map((line) => `  $ ${line}`).join('\n')}\n`)).toBe(
      true,
    );
    expect(result.stdout.startsWith(`Usage: webapi-credential ${path ? `${path} ` : ''}`)).toBe(true);
  });
});
