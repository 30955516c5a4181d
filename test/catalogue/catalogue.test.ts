// Runs every row of the catalogue (cases.ts) through the CLI's run() in process, against one real
// HTTPS token API that answers each row on its own path. Each row must give its exit code, nothing
// on stdout, exactly one stderr line (so no stack) that is `webapi-credential: <message>`, and no
// secret; a row without an answer must fail before any request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaks } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import type { TokenApi } from '../helpers/token-api.js';
import { SECRET_ENV, SECRETS, cases, startCatalogueApi, type Area, type Fault } from './cases.js';

let api: TokenApi;

beforeAll(async () => {
  api = await startCatalogueApi();
});
afterAll(() => api.close());

const PREFIX = 'webapi-credential: ';

describe.concurrent('the catalogue of bad inputs', () => {
  it.each(
    cases.map((row, index) => [`${row.area}: ${row.name} (${row.fault}) exits ${row.code}`, row, index] as const),
  )('%s', async (_name, row, index) => {
    const url = `${api.url}/case/${index}`;
    const result = await runInProcess(row.args(url), { env: { ...SECRET_ENV, ...row.env } });
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: row.code, stdout: '' });
    const expected = typeof row.message === 'function' ? row.message(url) : row.message;
    if (typeof expected === 'string') expect(result.stderr).toBe(`${PREFIX}${expected}\n`);
    else {
      expect(result.stderr.startsWith(PREFIX)).toBe(true);
      expect(result.stderr.indexOf('\n')).toBe(result.stderr.length - 1);
      expect(result.stderr.slice(PREFIX.length, -1)).toMatch(expected);
    }
    expect(leaks(result, SECRETS)).toEqual([]);
    expect(api.requests.filter((r) => r.path === `/case/${index}`)).toHaveLength(row.answer ? 1 : 0);
  });
});

describe('the catalogue itself', () => {
  it('holds at least 60 rows, in every area, with every fault the issue names', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const areas: Area[] = ['config', 'flags', 'env', 'exec-info', 'templates', 'responses'];
    expect(areas.filter((area) => !cases.some((row) => row.area === area))).toEqual([]);
    const faults: Fault[] = [
      'malformed',
      'truncated',
      'wrong type',
      'huge',
      'binary',
      'unicode',
      'empty',
      'duplicated keys',
      'BOM',
      'CRLF',
      'NUL',
    ];
    expect(faults.filter((fault) => !cases.some((row) => row.fault === fault))).toEqual([]);
  });

  it('names each row once', () => {
    const names = cases.map((row) => row.name);
    expect(names.filter((name, i) => names.indexOf(name) !== i)).toEqual([]);
  });
});
