// expiresIn: the lifetime of a credential whose answer says none (an opaque token, no expires_in),
// like aws eks get-token's fixed 14 minutes. It is reported (margin applied) and cached.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { expectExpiresIn } from '../helpers/examples.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import { SECRET, SECRET_ENV, expectFailure, provider, tokenApis } from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();

describe('expiresIn', () => {
  it('reports the configured lifetime less the margin, and lets the cache keep the credential', async () => {
    const api = await startApi((_request, response) => json(response, 200, { access_token: SECRET.token }));
    const config = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      expiresIn: '60m',
      tls: { caFile: pki.ca.certFile },
    });
    const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-expires-in-')), 'cache');
    const window = { before: Date.now(), after: 0 };
    const first = await runCli(['--config-inline', config, '--cache', '--cache-dir', dir], { env: SECRET_ENV });
    window.after = Date.now();
    const second = await runCli(['--config-inline', config, '--cache', '--cache-dir', dir], { env: SECRET_ENV });
    expect(first.stderr).toBe('');
    // 60 minutes less the 60 s margin, to the second, from the plugin's clock between the test's two reads.
    expectExpiresIn(JSON.parse(first.stdout).status.expirationTimestamp, window, 3600);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(1);
  });

  it('gives way to an expiry the answer carries', async () => {
    const api = await startApi((_request, response) =>
      json(response, 200, { access_token: SECRET.token, expires_in: 300 }),
    );
    const config = provider({
      method: 'POST',
      url: `${api.url}/token`,
      tokenPath: '$.access_token',
      expiresInPath: '$.expires_in',
      expiresIn: '60m',
      tls: { caFile: pki.ca.certFile },
    });
    const window = { before: Date.now(), after: 0 };
    const result = await runCli(['--config-inline', config], { env: SECRET_ENV });
    window.after = Date.now();
    expect(result.stderr).toBe('');
    // The answer's 300 s less the margin, not the configured 60 minutes.
    expectExpiresIn(JSON.parse(result.stdout).status.expirationTimestamp, window, 300);
  });

  it('must be longer than 0s', async () => {
    const config = provider({
      method: 'POST',
      url: 'https://127.0.0.1:9/token',
      tokenPath: '$.access_token',
      expiresIn: '0s',
    });
    const result = await runCli(['validate', '--config-inline', config], { env: SECRET_ENV });
    expectFailure(
      result,
      2,
      'config from --config-inline is invalid: webAPIProviderConfig.expiresIn: must be longer than 0s',
    );
  });
});
