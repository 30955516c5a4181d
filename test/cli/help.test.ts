// --help of every command ends with its examples; every command has some.
import { describe, expect, it } from 'vitest';
import { EXAMPLES } from '../../src/cli/help.js';
import { runCli } from '../helpers/cli.js';

describe('--help', () => {
  it('has examples for exactly the commands there are', async () => {
    const bash = await runCli(['completion', 'bash']);
    const paths = /case "\$next" in\n\s+(.+)\) sub="\$next" ;;/.exec(bash.stdout)![1]!.split('|').map((p) => p.slice(1, -1));
    expect(Object.keys(EXAMPLES).sort()).toEqual(['', ...paths].sort());
  });

  it.each(Object.keys(EXAMPLES))('%j ends with its examples', async (path) => {
    const result = await runCli([...(path ? path.split(' ') : []), '--help']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout.endsWith(`\nExamples:\n${EXAMPLES[path]!.map((line) => `  $ ${line}`).join('\n')}\n`)).toBe(true);
    expect(result.stdout.startsWith(`Usage: webapi-credential ${path ? `${path} ` : ''}`)).toBe(true);
  });
});
