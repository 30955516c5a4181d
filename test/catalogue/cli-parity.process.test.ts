// The catalogue runs in process for speed; this runs a sample of it, one or more rows per area,
// through the built CLI as client-go would start it, and expects the very same exit code, stdout
// and stderr. Rows that only a separate process can get wrong are in the sample: Node warnings
// printed to stderr (an unknown YAML tag), the main thread's stack depth, a binary config file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import type { TokenApi } from '../helpers/token-api.js';
import { SECRET_ENV, cases, startCatalogueApi } from './cases.js';

const SAMPLE = [
  'a config file that is a PNG image',
  'a YAML config indented with a tab',
  'an unknown YAML tag',
  'a config nested twenty thousand levels deep',
  'a --timeout without its value',
  'a WEBAPI_CREDENTIAL_CONFIG that is /dev/null',
  'a KUBERNETES_EXEC_INFO with a byte-order mark',
  'an env value with a line break sent in a header',
  'a template that would build a gigabyte string with a method',
  'an answer of binary bytes',
  'a token with a line break in it',
];

let api: TokenApi;
beforeAll(async () => {
  api = await startCatalogueApi();
});
afterAll(() => api.close());

describe.concurrent('the built CLI agrees with the in-process catalogue', () => {
  it.each(SAMPLE)('on %s', async (name) => {
    const index = cases.findIndex((row) => row.name === name);
    expect(index).toBeGreaterThanOrEqual(0);
    const row = cases[index]!;
    const args = row.args(`${api.url}/case/${index}`);
    const env = { ...SECRET_ENV, ...row.env };
    const [child, inProcess] = await Promise.all([runCli(args, { env }), runInProcess(args, { env })]);
    expect(child.code).toBe(row.code);
    if (row.message instanceof RegExp) {
      // Where the row allows variation (a stack depth decides the column), both must still match it.
      expect({ code: child.code, stdout: child.stdout }).toEqual({ code: inProcess.code, stdout: inProcess.stdout });
      for (const result of [child, inProcess])
        expect(result.stderr.slice('webapi-credential: '.length, -1)).toMatch(row.message);
      expect(child.stderr.split('\n')).toHaveLength(2);
    } else expect(child).toEqual(inProcess);
  });
});
