// One bit per run (issue 27, item 4): where a secret decides whether a template fails, validate and
// render fail or pass the same way for every value of it. Otherwise a config that compares the
// secret with a prefix (`fromJson(env.S >= 'prefix' ? 'x' : '1')`), changed between runs, finds the
// secret in ~160 runs of validate through its exit code alone. get-token still fails when the
// request really cannot be made, with one message that does not say which way the secret went.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { DECIDED_FAILURE } from '../../src/template/problems.js';

const PIVOT = 'm';
/** Templates whose failure a comparison of the secret with PIVOT decides: one branch fails, the other passes. */
const CASES: Array<[string, Record<string, unknown>]> = [
  [
    'fromJson() of text a comparison chose',
    { headers: { 'X-A': `{{ json(fromJson(env.S >= '${PIVOT}' ? 'x' : '1')) }}` } },
  ],
  [
    'a URL host a comparison chose',
    { url: `https://{{ env.S >= '${PIVOT}' ? 'api.example.test' : 'not a host' }}/token` },
  ],
  [
    'a URL made from a chosen piece',
    { url: `https://{{ (env.S >= '${PIVOT}' ? 'api' : 'a b') + '.example.test' }}/token` },
  ],
  ['a header a comparison chose', { headers: { 'X-A': `{{ env.S >= '${PIVOT}' ? 'fine' : 'line\\nbreak' }}` } }],
  ['a key a comparison chose', { headers: { 'X-A': `{{ ({ a: 'x' }[env.S >= '${PIVOT}' ? 'a' : 'b']) + 'z' }}` } }],
  ['a file a comparison chose', { body: `{{ file(env.S >= '${PIVOT}' ? 'package.json' : 'no-such-file') }}` }],
  ['a value of either kind', { headers: { 'X-A': `{{ json(fromJson(env.S >= '${PIVOT}' ? '{"a": 1}' : '[1') ) }}` } }],
];

const config = (fields: Record<string, unknown>) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://api.example.test/token',
      tokenPath: '$.access_token',
      ...fields,
    },
  });

/** Secrets on both sides of the pivot, of any length. */
const secrets = fc.tuple(fc.stringMatching(/^[a-l][a-z0-9]{7,20}$/), fc.stringMatching(/^[m-z][a-z0-9]{7,20}$/));

describe.each(['validate', 'render'])('%s with a secret that decides whether a template fails', (command) => {
  it.each(CASES)('says the same for every value of the secret: %s', async (_name, fields) => {
    await fc.assert(
      fc.asyncProperty(secrets, async ([below, above]) => {
        const [low, high] = await Promise.all(
          [below, above].map((S) => runInProcess([command, '--config-inline', config(fields)], { env: { S } })),
        );
        expect(high).toEqual(low);
        for (const secret of [below, above])
          expect(`${low!.stdout}${low!.stderr}${high!.stdout}${high!.stderr}`).not.toContain(secret);
      }),
      { numRuns: 8 },
    );
  });

  it('passes, showing the value as [REDACTED], where every branch would be sent', async () => {
    const result = await runInProcess([command, '--config-inline', config(CASES[1]![1])], {
      env: { S: 'zebra-secret' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('https://[REDACTED]/token');
  });
});

describe('get-token with a secret that decides whether a template fails', () => {
  it('fails for the value that fails, saying neither which template nor why', async () => {
    const result = await runInProcess(['--config-inline', config(CASES[0]![1])], { env: { S: 'zulu-secret' } });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `webapi-credential: ${DECIDED_FAILURE}\n` });
  });
});
