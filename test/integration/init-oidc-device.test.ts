// `init oidc-device` against the real oidc-provider with its device flow: discovery gives the token
// and device authorization endpoints, the printed config validates, and a device login with exactly
// that config works (the test plays the person at the server's verification page); a server whose
// discovery document offers no device grant is exit 3 naming what to give instead.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { CLIENT_ID } from '../helpers/device-config.js';
import { actAsPerson, startDeviceProvider } from '../helpers/device-provider.js';
import { startPlugin } from '../helpers/device-run.js';
import { expectFailure, tokenApis } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-init-device-'));
const TRUST = ['--set', `caFile=${pki.ca.certFile}`];
const startApi = tokenApis();
const idp = await startDeviceProvider(pki);
afterAll(() => idp.close());

const init = (args: string[]) => runCli(['init', 'oidc-device', ...args]);

describe('init oidc-device', () => {
  it('discovers both endpoints; the printed config validates and logs a person in', async () => {
    const printed = await init(['--set', `issuer=${idp.issuer}`, '--set', `clientId=${CLIENT_ID}`, ...TRUST]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    const from = `${idp.issuer}/.well-known/openid-configuration`;
    expect(printed.stdout).toContain(
      `# tokenUrl: the token_endpoint of the issuer ${idp.issuer}, from ${from}\n# deviceUrl: the device_authorization_endpoint of the issuer ${idp.issuer}, from ${from}\n`,
    );
    expect(printed.stdout).toContain(`  url: "${idp.issuer}/token"\n`);
    expect(printed.stdout).toContain(
      `  login:\n    deviceAuthorization:\n      url: "${idp.issuer}/device/auth"\n      form:\n        scope: openid offline_access\n`,
    );
    expect(printed.stdout).toContain(`  tls:\n    caFile: ${pki.ca.certFile}\n`);
    expect(printed.stdout).not.toContain('vars.');
    const file = join(dir, 'device.yaml');
    writeFileSync(file, printed.stdout);
    const valid = await runCli(['validate', '--config', file]);
    expect(valid).toEqual({
      code: 0,
      stderr: '',
      stdout: `config from --config ${file} is valid: POST ${idp.issuer}/token\n`,
    });

    const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-init-device-cache-'));
    const run = startPlugin(['login', '--config', file, '--cache', '--cache-dir', cacheDir]);
    const { url, code } = await run.prompt();
    expect(url).toBe(`${idp.issuer}/device?user_code=${encodeURIComponent(code)}`);
    await actAsPerson(url, code, pki.ca.cert, 'approve');
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(leaks(result, [...idp.issued])).toEqual([]);
    // kubectl's next call with nobody at a terminal: the id_token, from the cache, no request.
    const before = idp.requests.length;
    const again = await runCli(['--config', file, '--cache', '--cache-dir', cacheDir]);
    expect(again.code, again.stderr).toBe(0);
    const token = (JSON.parse(again.stdout) as { status: { token: string } }).status.token;
    expect(idp.isIdToken(token)).toBe(true);
    expect(idp.requests.length).toBe(before);
    expect(leaks(again, [...idp.issued], [token])).toEqual([]);
  }, 60_000);

  it('--set scope, audience and resource (RFC 8707) go to the device authorization request', async () => {
    const printed = await init([
      '--set',
      `issuer=${idp.issuer}`,
      '--set',
      `clientId=${CLIENT_ID}`,
      '--set',
      'scope=openid groups offline_access',
      '--set',
      'audience=https://k8s.example.com',
      '--set',
      'resource=https://k8s.example.com/api',
      ...TRUST,
    ]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(printed.stdout).toContain(
      '      form:\n        scope: openid groups offline_access\n        audience: https://k8s.example.com\n        resource: https://k8s.example.com/api\n',
    );
    expect(printed.stdout).toContain(`\n  form:\n    client_id: "${CLIENT_ID}"\n  login:\n`);
  });

  it('a server whose discovery names no device_authorization_endpoint: exit 3, what to give instead', async () => {
    const api = await startApi((request, response) => {
      if (request.path === '/.well-known/openid-configuration')
        return json(response, 200, { issuer: api.url, token_endpoint: `${api.url}/token` });
      json(response, 404, { error: 'nope' });
    });
    expectFailure(
      await init(['--set', `issuer=${api.url}`, '--set', 'clientId=c', ...TRUST]),
      3,
      `the discovery document ${api.url}/.well-known/openid-configuration of ${api.url} names no device_authorization_endpoint: the server offers no device authorization grant (RFC 8628), or publishes it elsewhere; give it with --set deviceUrl=URL`,
    );
  });

  it('--set tokenUrl and deviceUrl skip discovery; one of them alone needs the issuer', async () => {
    const printed = await init([
      '--set',
      'tokenUrl=https://login.example.com/token',
      '--set',
      'deviceUrl=https://login.example.com/device',
      '--set',
      'clientId=c',
    ]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(printed.stdout).not.toContain('# tokenUrl:');
    expect(printed.stdout).toContain('      url: "https://login.example.com/device"\n');
    expectFailure(
      await init(['--set', 'tokenUrl=https://login.example.com/token', '--set', 'clientId=c']),
      2,
      'init oidc-device needs --set issuer=URL (or --set tokenUrl=URL and --set deviceUrl=URL): the config reads vars.deviceUrl (its header says where each is found; init oidc-device alone prints it)',
    );
    expectFailure(
      await init(['--set', 'issuer=https://x.example', '--set', 'clientId=c', '--set', 'authMethod=private_key_jwt']),
      2,
      /^--set authMethod: the oidc-device config reads no vars\.authMethod; it takes /,
    );
  });
});
