// One bit per run, through a test rather than a comparison (review of issue 27, item 4): whether a
// secret number, boolean or missing value is truthy or set is what it holds. `!(pin + -1234)` is
// `pin === 1234`, a secret boolean is its own answer, `?? ` on a secret list's item tells its length.
// Each of these chose the branch that fails for some values of the secret only, so validate and
// render told the value through the exit code, one run per guess.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

const config = (template: string) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://api.example.test/token',
      tokenPath: '$.access_token',
      headers: { 'X-A': template },
    },
  });

/** A template, and two values of the secret for which it failed one way and passed the other. */
const CASES: Array<[string, string, Record<string, string>, Record<string, string>]> = [
  ['! of a sum', `{{ !(fromJson(env.P) + -1234) ? 'a' : fromJson('x') }}`, { P: '1234' }, { P: '1235' }],
  ['|| after a sum', `{{ json((fromJson(env.P) + -1234) || fromJson('x')) }}`, { P: '1234' }, { P: '1235' }],
  [
    'a secret boolean as a condition',
    `{{ fromJson(env.J).flag ? 'a' : fromJson('x') }}`,
    { J: '{"flag":true}' },
    { J: '{"flag":false}' },
  ],
  [
    '&& after a secret boolean',
    `{{ json(fromJson(env.J).flag && fromJson('x')) }}`,
    { J: '{"flag":true}' },
    { J: '{"flag":false}' },
  ],
  [
    'a secret list length',
    `{{ !(fromJson(env.J).length + -3) ? 'a' : fromJson('x') }}`,
    { J: '[1,2,3]' },
    { J: '[1,2]' },
  ],
  ['?? on a secret list item', `{{ fromJson(env.J)[2] ?? fromJson('x') }}`, { J: '[1,2,3]' }, { J: '[1,2]' }],
];

describe.each(['validate', 'render'])('%s with a secret tested for truth', (command) => {
  it.each(CASES)('says the same for both values of the secret: %s', async (_name, template, a, b) => {
    const [first, second] = await Promise.all(
      [a, b].map((env) => runInProcess([command, '--config-inline', config(template)], { env })),
    );
    expect(second).toEqual(first);
  });
});

describe('a secret string tested for being set', () => {
  it('still chooses: env.X ?? "default" and env.X || "default" pass with or without the variable', async () => {
    for (const template of [`{{ env.X ?? 'fallback-value' }}`, `{{ env.X || 'fallback-value' }}`]) {
      for (const env of [{}, { X: 'given-value-1' }]) {
        const result = await runInProcess(['render', '--config-inline', config(template)], { env });
        expect(result.code).toBe(0);
      }
    }
    const unset = await runInProcess(['render', '--config-inline', config(`{{ env.X ?? 'fallback-value' }}`)], {
      env: {},
    });
    expect(unset.stdout).toContain('X-A: fallback-value');
  });
});
