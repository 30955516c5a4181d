// The binary holds init's providers (scripts/build.mjs embeds examples/ in it): its list and a printed
// example are the in-process run's, to the byte. test/use-case/init.test.ts checks every provider in
// process, with the examples embedded by the same function (vitest.config.ts's define).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

describe('webapi-credential init, as built', () => {
  it.each([[['init']], [['init', 'keycloak/private-key-jwt']], [['init', 'upbound', '--set', 'org=acme']]])(
    '%j prints what the in-process run prints',
    async (args) => {
      const [child, inProcess] = await Promise.all([runCli(args), runInProcess(args)]);
      expect({ code: child.code, stderr: child.stderr }).toEqual({ code: 0, stderr: '' });
      // Not an empty list nor an empty config: the examples are there.
      expect(child.stdout).toMatch(
        args.length === 1 ? /\n\s+keycloak\/private-key-jwt\s/ : /\nwebAPIProviderConfig:\n/,
      );
      expect(child).toEqual(inProcess);
    },
  );
});
