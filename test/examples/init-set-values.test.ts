// `init --set k=v` writes each value as data (review3): a value that names another var (`vars.role`)
// stays that text. Each key was filled in turn over the text the earlier ones had made, so a later
// key rewrote `vars.<key>` inside an earlier value's string literal, and its own literal then closed
// that one: `--set ttl=vars.role --set role=+env.HOME+` printed `{{ ''+env.HOME+'' }}`, an expression
// reading the environment.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { scratchFile } from '../helpers/examples.js';

const SECRET = 'init-set-values-secret-7Hq';

describe('init --set values are data', () => {
  it.each([
    [
      'vault',
      ['vaultAddr=https://vault.example.com', 'namespace=n', 'ttl=vars.role', 'role=+env.INJECTED+'],
      '"ttl":"vars.role"',
    ],
    [
      'oidc/client-secret-post',
      ['clientId=vars.tokenUrl', 'tokenUrl=https://login.example.com/token'],
      'client_id=vars.tokenUrl&',
    ],
  ])(
    'init %s with a value naming another var: the value is sent as given, nothing of it evaluated',
    async (provider, pairs, sent) => {
      const printed = await runCli(['init', provider, ...pairs.flatMap((pair) => ['--set', pair])]);
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
      const env = { VAULT_TOKEN: SECRET, CLIENT_SECRET: SECRET, INJECTED: 'from-the-environment' };
      const rendered = await runCli(['render', '--config', scratchFile('init-set-values.yaml', printed.stdout)], {
        env,
      });
      expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({ code: 0, stderr: '' });
      expect(rendered.stdout).toContain(sent);
      expect(rendered.stdout).not.toContain('from-the-environment');
      expect(rendered.stdout).not.toContain(SECRET);
    },
  );
});
