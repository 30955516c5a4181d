// One bit per run (README "Security model"): a computed member (`m[env.S]`) is decided by its key, so
// whether the key hits tells what the secret holds. validate and render withhold the value, but the
// miss must not reach the message of a failure beside it: "env.UNSET is not set" for one value of the
// secret and the message that names nothing for the others is a membership test of the secret in the
// object's keys, a bisection of a PIN or a role over a handful of validate runs.
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const config = (header: string) =>
  JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://api.example.test/token',
      tokenPath: '$.access_token',
      headers: { X: header },
    },
  });

/** Templates that fail for every value of S (env.UNSET, vars.nope), beside a member read by S. */
const TEMPLATES = [
  '{{ { a: "x" }[env.S] + env.UNSET }}',
  '{{ { a: "x" }[env.S] + vars.nope }}',
  '{{ { a: "x" }[env.S] ?? env.UNSET }}',
  '{{ ["x"][env.S] + env.UNSET }}',
  '{{ fromJson(env.CFG)[env.S] + env.UNSET }}',
  // The same for env read by a name the secret gives: whether env.a is set tells whether S is "a".
  '{{ env[env.S] + env.UNSET }}',
];
/** One value that hits a key of each object above, and values that miss. */
const SECRETS = ['a', '0', 'zulu-S3cr3t-22', 'b'];

describe.each(['validate', 'render'])(
  '%s of a member read by a secret key, beside a value every run misses',
  (command) => {
    it.each(TEMPLATES)('fails the same way for every value of the secret: %s', async (template) => {
      const results: CliResult[] = [];
      for (const S of SECRETS)
        results.push(
          await runInProcess([command, '--config-inline', config(template)], {
            env: { S, a: 'value-of-a-Qx71', CFG: '{"a":"value-of-a-Qx71"}' },
          }),
        );
      for (const result of results) {
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).not.toContain('value-of-a-Qx71');
      }
      expect(results.map((r) => r.stderr)).toEqual(results.map(() => results[1]!.stderr));
    });
  },
);
