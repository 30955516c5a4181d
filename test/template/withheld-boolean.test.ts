// A comparison of a secret is a boolean whatever the secret holds. validate and render withhold it
// (a placeholder), but a use that refuses a boolean refuses it for every value: as a computed key
// (`m[env.S > "m"]`) or as one branch beside text. Every get-token run fails there with exit 2 before
// any request; validate and render must say the same, for every value of the secret.
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

const TEMPLATES = ['{{ { a: "x" }[env.S > "m"] }}', '{{ env.S > "m" ? env.S < "t" : "text" }}'];
const SECRETS = ['a', 'q', 'zulu-S3cr3t-22'];

describe.each(TEMPLATES)('a withheld comparison used where no boolean goes: %s', (template) => {
  it.each(['validate', 'render'])(
    '%s fails as every get-token run does, for every value of the secret',
    async (command) => {
      const results: CliResult[] = [];
      for (const S of SECRETS) {
        results.push(await runInProcess(['--config-inline', config(template)], { env: { S } }));
        results.push(await runInProcess([command, '--config-inline', config(template)], { env: { S } }));
      }
      for (const result of results) {
        expect(result.code).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).not.toContain('zulu');
      }
      expect(results.map((r) => r.stderr)).toEqual(results.map(() => results[0]!.stderr));
    },
  );
});
