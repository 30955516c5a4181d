// `webapi-credential logout` against the real oidc-provider (RFC 7009 revocation at /token/revocation):
// the config's entry goes (credential, refresh token), the refresh token is revoked first when the
// config names login.revocation.url, so the issuer refuses it after; from a kubeconfig context too.
// A revocation that fails is exit 3, said after the entry is gone. No token on stdout or stderr.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leaks, runCli } from '../helpers/cli.js';
import { CLIENT_ID, deviceConfig } from '../helpers/device-config.js';
import { startDeviceProvider } from '../helpers/device-provider.js';
import { approvedLogin } from '../helpers/device-run.js';
import { cacheEntries } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const idp = await startDeviceProvider(pki);
afterAll(() => idp.close());

const config = (revocation: string | undefined) =>
  deviceConfig(idp.issuer, pki.ca.certFile, {
    login: revocation !== undefined ? { revocation: { url: revocation } } : {},
  });

async function loggedIn(revocation: string | undefined): Promise<{ cacheDir: string; args: string[]; held: string }> {
  const cacheDir = mkdtempSync(join(tmpdir(), 'webapi-credential-logout-'));
  const args = ['--config-inline', config(revocation), '--cache-dir', cacheDir];
  await approvedLogin(args, pki.ca.cert);
  const held = idp.refreshTokens.at(-1)!;
  expect(cacheEntries(cacheDir)).toContain(held);
  return { cacheDir, args, held };
}

/** The issuer's word on a refresh token: the refresh grant's status and error. */
function refreshAtIssuer(token: string): Promise<{ status: number; error?: string }> {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: token,
    client_id: CLIENT_ID,
  }).toString();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      `${idp.issuer}/token`,
      { method: 'POST', ca: pki.ca.cert, headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.statusCode !== 200 ? { error: (JSON.parse(text) as { error: string }).error } : {}),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('logout', () => {
  it('from a kubeconfig context: the entry removed, the refresh token revoked, and the issuer refuses it after', async () => {
    const revocation = `${idp.issuer}/token/revocation`;
    const { cacheDir, held } = await loggedIn(revocation);
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-logout-kubeconfig-'));
    const kubeconfig = join(dir, 'config');
    const exec = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'webapi-credential',
      args: ['--config-inline', config(revocation), '--cache', '--cache-dir', cacheDir],
      interactiveMode: 'IfAvailable',
    };
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
        users: [
          { name: 'u', user: { exec } },
          { name: 'other', user: { token: 'x' } },
        ],
        contexts: [
          { name: 'dev', context: { cluster: 'c', user: 'u' } },
          { name: 'else', context: { cluster: 'c', user: 'other' } },
        ],
        'current-context': 'else',
      }),
    );
    const result = await runCli(['logout', '--kubeconfig', kubeconfig, '--context', 'dev']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      `logged out: removed this config's cached credential and refresh token from ${cacheDir}; the refresh token was revoked at ${new URL(idp.issuer).host}\n`,
    );
    expect(leaks(result, [...idp.issued])).toEqual([]);
    expect(cacheEntries(cacheDir)).toBe('');
    expect(idp.requests.some((r) => r.path === '/token/revocation')).toBe(true);
    expect(await refreshAtIssuer(held)).toEqual({ status: 400, error: 'invalid_grant' });

    const again = await runCli(['logout', '--kubeconfig', kubeconfig, '--context', 'dev']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`logged out: nothing of this config was cached in ${cacheDir}\n`);
  }, 60_000);

  it('a revocation that fails: exit 3 after the entry is gone, and the line says the issuer may still honour the token', async () => {
    const { cacheDir, args, held } = await loggedIn('https://localhost:1/revoke');
    const result = await runCli(['logout', ...args, '--timeout', '10s']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(
      `logged out: removed this config's cached credential and refresh token from ${cacheDir}\n`,
    );
    expect(result.stderr).toMatch(
      /^webapi-credential: the revocation endpoint: connection to https:\/\/localhost:1\/revoke refused( after \d attempts)?: the refresh token was removed here but may still be valid at the issuer until it expires\n$/,
    );
    expect(leaks(result, [...idp.issued])).toEqual([]);
    expect(cacheEntries(cacheDir)).toBe('');
    expect((await refreshAtIssuer(held)).status).toBe(200);
  }, 60_000);

  it('a config without login.revocation.url: the entry removed, and the line says the token was not revoked', async () => {
    const { cacheDir, args } = await loggedIn(undefined);
    const result = await runCli(['logout', ...args]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      `logged out: removed this config's cached credential and refresh token from ${cacheDir}; the refresh token was not revoked (the config has no login.revocation.url): the issuer honours it until it expires\n`,
    );
    expect(leaks(result, [...idp.issued])).toEqual([]);
    expect(cacheEntries(cacheDir)).toBe('');
  }, 60_000);

  it('a config without login: exit 2, nothing removed', async () => {
    const result = await runCli([
      'logout',
      '--config-inline',
      JSON.stringify({ webAPIProviderConfig: { method: 'POST', url: 'https://localhost:1/token', tokenPath: '$.t' } }),
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'webapi-credential: logout drops the login of a config with login; this config has none (cache clear removes every cached credential)\n',
    );
  });

  it('a revocation URL that is no https:// URL is a config error naming the field', async () => {
    const bad = JSON.parse(config('http://idp.example/revoke')) as { webAPIProviderConfig: Record<string, unknown> };
    const result = await runCli(['validate', '--config-inline', JSON.stringify(bad)]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'webAPIProviderConfig.login.revocation.url: http:// sends the refresh token in clear text; use https:// or set allowInsecureHTTP: true',
    );
  });
});
