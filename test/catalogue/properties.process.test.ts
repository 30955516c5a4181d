// A few of properties.test.ts's random configs through the built CLI as client-go starts it: the
// same exit code, stdout and stderr as the in-process run (cli-parity covers the catalogue's rows).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { document, leakedPieces, SECRETS } from './arbitraries.js';

describe('random configs through the built CLI', () => {
  it('exit 0 or 2 from render, never 1, no secret, and what the in-process run says', async () => {
    // The first six of the in-process property's samples (same seed): child processes are the slow part.
    const samples = fc
      .sample(
        document.map((d) => JSON.stringify(d)),
        { numRuns: 40, seed: 4242 },
      )
      .slice(0, 6);
    const env = { ...SECRETS };
    const children = await Promise.all(samples.map((text) => runCli(['render', '--config-inline', text], { env })));
    for (const result of children) {
      expect([0, 2]).toContain(result.code);
      if (result.code === 2) expect(result.stderr).toMatch(/^webapi-credential: [^\n]*\n$/);
      expect(leakedPieces(result.stdout + result.stderr)).toEqual([]);
    }
    const inProcess = await Promise.all(
      samples.map((text) => runInProcess(['render', '--config-inline', text], { env })),
    );
    expect(children).toEqual(inProcess);
  });
});
