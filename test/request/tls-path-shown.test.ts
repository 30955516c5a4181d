// A tls file's path is put into messages (a file that cannot be read, the CA's origin in a TLS
// failure and in cluster-auth's warnings). A secret read that makes part of it is hidden there by the
// redactor, unless it is too short for the redactor to look for (under 4 bytes: a PIN, a field of a
// JSON secret): then it must be the path as shown, the secret [REDACTED] there as render shows it.
// Each case runs the same command with two short secrets and compares what is printed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'tls-path-shown-'));
const SHORT = ['ab', 'cd'];

/** A config whose tls.caFile is `<dir>/<env.PIN>`, at a token endpoint nothing listens on. */
function config(): string {
  return JSON.stringify({
    webAPIProviderConfig: {
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      form: { grant_type: 'client_credentials', scope: 'openid' },
      tokenPath: '$.access_token',
      retry: { limit: 0 },
      tls: { caFile: `${dir}/{{ env.PIN }}` },
    },
  });
}

async function eachPin(args: string[]): Promise<CliResult[]> {
  const results: CliResult[] = [];
  for (const pin of SHORT)
    results.push(await runInProcess([...args, '--config-inline', config(), '--timeout', '5s'], { env: { PIN: pin } }));
  for (const [i, result] of results.entries()) expect(result.stderr).not.toContain(`/${SHORT[i]}`);
  return results;
}

describe("a short secret read in a tls file's path is [REDACTED] where the path is put in", () => {
  it('a CA file that cannot be read', async () => {
    const [first, second] = await eachPin(['get-token']);
    expect(first!.code).toBe(2);
    expect(first!.stderr).toContain('cannot read');
    expect(second).toEqual(first);
  }, 20_000);

  it("cluster-auth's warning on what the CA file holds besides its certificates", async () => {
    // Each file the secret may name holds the CA and a private key.
    for (const pin of SHORT) {
      writeFileSync(join(dir, pin), `${pki.ca.cert}\n${pki.server.key}`);
    }
    const [first, second] = await eachPin(['cluster-auth', '--issuer', 'https://127.0.0.1:9']);
    expect(first!.stderr).toContain('besides its certificates');
    expect(second).toEqual(first);
  }, 20_000);
});
