// `webapi-credential init`: the providers are the directories of examples/ (their config-<variant>
// files as <provider>/<variant>), embedded in the build; each config's header names the env
// variables and --set values it needs, and what init prints, filled in with --set, validates with
// that env set, exactly as the example file does. In process (runInProcess), with the examples
// embedded as the build embeds them (vitest.config.ts's define); test/examples/init.test.ts shows the
// binary holds them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES_DIR, scratchFile } from '../helpers/examples.js';
import { serviceAccountKey } from '../helpers/google-apis.js';
import { runInProcess } from '../helpers/in-process.js';
import { expectFailure } from '../helpers/integration.js';
import { selfSignedRsa } from '../helpers/pki.js';

const TOKEN_FILE = scratchFile('dummy-token', 'dummy-token\n');
const GOOGLE_KEY_FILE = scratchFile(
  'google-key.json',
  JSON.stringify(serviceAccountKey('argocd@acme-prod.iam.gserviceaccount.com').fields),
);
const KEY = selfSignedRsa('init');
const SECRET = 'init-dummy-secret-8Qw';

/** provider -> [the env its header names, the --set values init fills in]. */
const CASES: Record<string, [Record<string, string>, string[]]> = {
  'azure-ad': [{ AZURE_CLIENT_SECRET: SECRET }, ['tenantId=contoso.onmicrosoft.com', 'clientId=argocd']],
  'entra-id-certificate': [
    {},
    ['tenantId=contoso.onmicrosoft.com', 'clientId=argocd', `keyFile=${KEY.keyFile}`, `certFile=${KEY.certFile}`],
  ],
  'google-service-account': [{ GOOGLE_APPLICATION_CREDENTIALS: GOOGLE_KEY_FILE }, []],
  'google-workload-identity': [
    {},
    [
      'projectNumber=123456789012',
      'poolId=argocd',
      'providerId=prod',
      'serviceAccount=argocd@acme-prod.iam.gserviceaccount.com',
      `subjectTokenFile=${TOKEN_FILE}`,
    ],
  ],
  keycloak: [{ CLIENT_SECRET: SECRET }, ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd']],
  'keycloak/client-secret-post': [
    { CLIENT_SECRET: SECRET },
    ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd'],
  ],
  'keycloak/private-key-jwt': [
    {},
    ['issuer=https://keycloak.example.com/realms/platform', 'clientId=argocd', `keyFile=${KEY.keyFile}`],
  ],
  oidc: [{ CLIENT_SECRET: SECRET }, ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd']],
  'oidc/client-secret-post': [
    { CLIENT_SECRET: SECRET },
    ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd'],
  ],
  'oidc/private-key-jwt': [
    {},
    ['tokenUrl=https://login.example.com/oauth2/v1/token', 'clientId=argocd', `keyFile=${KEY.keyFile}`],
  ],
  'oidc-device': [
    {},
    [
      'tokenUrl=https://login.example.com/oauth2/v1/token',
      'deviceUrl=https://login.example.com/oauth2/v1/device/authorize',
      'clientId=kubectl',
    ],
  ],
  'oidc-login': [
    {},
    [
      'tokenUrl=https://login.example.com/oauth2/v1/token',
      'authorizationUrl=https://login.example.com/oauth2/v1/authorize',
      'deviceUrl=https://login.example.com/oauth2/v1/device/authorize',
      'clientId=kubectl',
    ],
  ],
  pinniped: [{ PINNIPED_TOKEN: SECRET }, ['authenticator=corp-oidc', 'conciergeUrl=https://k8s.example.com']],
  rancher: [{ RANCHER_PASSWORD: SECRET }, ['rancherUrl=https://rancher.example.com', 'username=argocd']],
  'rfc8693-token-exchange': [
    {},
    [
      'tokenUrl=https://sts.example.com/oauth2/token',
      'audience=https://k8s.example.com',
      `subjectTokenFile=${TOKEN_FILE}`,
    ],
  ],
  upbound: [{ UPBOUND_TOKEN: SECRET }, ['org=acme']],
  vault: [{ VAULT_TOKEN: SECRET }, ['vaultAddr=https://vault.example.com:8200', 'role=argocd', 'namespace=apps']],
  'vault/kubernetes-auth': [
    {},
    ['vaultAddr=https://vault.example.com:8200', 'role=argocd', 'namespace=apps', `tokenFile=${TOKEN_FILE}`],
  ],
};

/** The providers as the directories of examples/ make them. */
function providersOnDisk(): string[] {
  return readdirSync(EXAMPLES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && readdirSync(join(EXAMPLES_DIR, entry.name)).includes('config.yaml'))
    .flatMap((entry) =>
      readdirSync(join(EXAMPLES_DIR, entry.name)).flatMap((file) => {
        const variant = /^config(?:-(.+))?\.yaml$/.exec(file);
        return variant ? [variant[1] ? `${entry.name}/${variant[1]}` : entry.name] : [];
      }),
    )
    .sort();
}
const exampleFile = (provider: string) =>
  join(EXAMPLES_DIR, provider.includes('/') ? provider.replace('/', '/config-') + '.yaml' : `${provider}/config.yaml`);
const sets = (pairs: string[]) => pairs.flatMap((pair) => ['--set', pair]);

describe('webapi-credential init', () => {
  it('lists every provider of examples/, and this test knows each', async () => {
    const result = await runInProcess(['init']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(
      'Providers (webapi-credential init <provider> prints its config; --set key=value fills in its vars):',
    );
    expect(
      lines
        .slice(1)
        .map((line) => line.trim().split(/\s+/)[0])
        .sort(),
    ).toEqual(providersOnDisk());
    expect(Object.keys(CASES).sort()).toEqual(providersOnDisk());
  });

  it.each(Object.keys(CASES))('init %s prints the example as it is, header and all', async (provider) => {
    const result = await runInProcess(['init', provider]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      readFileSync(exampleFile(provider), 'utf8').replace(/^# yaml-language-server: .*\n/, ''),
    );
  });

  it.each(Object.entries(CASES))(
    'init %s, filled in with --set, validates with the env its header names set, as the example does',
    async (provider, [env, pairs]) => {
      const printed = await runInProcess(['init', provider, ...sets(pairs)]);
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
      const header = printed.stdout.slice(0, printed.stdout.indexOf('\nwebAPIProviderConfig:'));
      expect(header).toContain('# Needs:');
      for (const name of Object.keys(env)) expect(header).toContain(`env ${name}`);
      for (const pair of pairs) expect(header).toContain(`--set ${pair.slice(0, pair.indexOf('='))}=`);
      const file = scratchFile('init.yaml', printed.stdout);
      const mine = await runInProcess(['validate', '--config', file], { env });
      const example = await runInProcess(['validate', '--config', exampleFile(provider), ...sets(pairs)], { env });
      expect({ code: mine.code, stderr: mine.stderr }).toEqual({ code: 0, stderr: '' });
      expect(mine.stdout.replace(file, '<file>')).toBe(example.stdout.replace(exampleFile(provider), '<file>'));
      expect(`${mine.stdout}${mine.stderr}${printed.stdout}`).not.toContain(SECRET);
    },
  );

  it('writes a --set value as data: quotes and braces stay text, nothing of it is evaluated', async () => {
    const value = "it's {{ env.CLIENT_SECRET }} ${X}";
    const printed = await runInProcess([
      'init',
      'keycloak/client-secret-post',
      '--set',
      'issuer=https://kc.example/realms/r',
      '--set',
      `clientId=${value}`,
    ]);
    expect(printed.code).toBe(0);
    const rendered = await runInProcess(['render', '--config', scratchFile('init.yaml', printed.stdout)], {
      env: { CLIENT_SECRET: SECRET },
    });
    expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(rendered.stdout).toContain(`client_id=${new URLSearchParams({ v: value }).toString().slice(2)}&`);
    expect(rendered.stdout).not.toContain(SECRET);
  });

  it("the list shows each provider's own purpose, whole", async () => {
    const lines = (await runInProcess(['init'])).stdout.trimEnd().split('\n').slice(1);
    const purposes = lines.map((line) => line.trim().replace(/^\S+\s+/, ''));
    expect(new Set(purposes).size).toBe(lines.length);
    for (const purpose of purposes) {
      expect(purpose).not.toMatch(/…$/);
      expect(purpose.length).toBeGreaterThan(20);
    }
    expect(lines.find((line) => line.trim().startsWith('keycloak '))).toContain('client_secret_basic');
    expect(lines.find((line) => line.trim().startsWith('keycloak/client-secret-post '))).toContain(
      'client_secret_post',
    );
  });

  it.each(Object.entries(CASES))(
    'init %s with a value for every var it reads leaves no literal ?? default behind',
    async (provider) => {
      const example = readFileSync(exampleFile(provider), 'utf8');
      const read = [
        ...new Set(
          [...example.slice(example.indexOf('webAPIProviderConfig:')).matchAll(/\bvars\.(\w+)/g)].map((m) => m[1]!),
        ),
      ];
      const printed = await runInProcess([
        'init',
        provider,
        ...sets(read.map((key) => `${key}=${key.endsWith('File') ? '/run/x' : 'https://x.example'}`)),
      ]);
      expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
      const config = printed.stdout.slice(printed.stdout.indexOf('webAPIProviderConfig:'));
      expect(config).not.toMatch(/'\s*\?\?/);
      expect(config).not.toContain('vars.');
    },
  );

  it('--set caFile gives every provider tls.caFile, by its absolute path', async () => {
    const pem = readFileSync(KEY.certFile, 'utf8');
    const file = scratchFile('token-api-ca.pem', pem);
    const printed = await runInProcess(['init', 'upbound', '--set', 'org=acme', '--set', `caFile=${file}`]);
    expect({ code: printed.code, stderr: printed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(printed.stdout).toContain(`  tls:\n    caFile: ${file}\n`);
    const valid = await runInProcess(['validate', '--config', scratchFile('init-ca.yaml', printed.stdout)], {
      env: { UPBOUND_TOKEN: SECRET },
    });
    expect({ code: valid.code, stderr: valid.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it.each([
    [
      ['init', 'upbund'],
      'no provider "upbund" (did you mean upbound?); the providers are azure-ad, entra-id-certificate, google-service-account, google-workload-identity, keycloak, keycloak/client-secret-post, keycloak/private-key-jwt, oidc, oidc/client-secret-post, oidc/private-key-jwt, oidc-device, oidc-login, pinniped, rancher, rfc8693-token-exchange, upbound, vault, vault/kubernetes-auth',
    ],
    [
      ['init', 'upbound', '--set', 'organisation=acme'],
      '--set organisation: the upbound config reads no vars.organisation; it takes authUrl, org, caFile',
    ],
    [
      ['init', 'keycloak', '--set', 'issuer=https://kc.example/realms/r'],
      'init keycloak needs --set clientId=…: the config reads vars.clientId (its header says where each is found; init keycloak alone prints it)',
    ],
    [
      ['init', 'vault', '--set', 'vaultAddr=https://vault.example.com'],
      'init vault needs --set role=… and --set namespace=…: the config reads vars.role, vars.namespace (its header says where each is found; init vault alone prints it)',
    ],
    [
      [
        'init',
        'keycloak',
        '--set',
        'issuer=https://kc.example/realms/r',
        '--set',
        'clientId=a',
        '--set',
        'caFile=/nonexistent/ca.pem',
      ],
      '--set caFile /nonexistent/ca.pem: cannot read it: no such file',
    ],
    [['init', 'upbound', '--set', 'org'], '--set "org": expected key=value with a key of letters, digits, _ or -'],
    ...['__proto__', 'constructor', 'toString', '../../etc', 'keycloak/../vault'].map((name): [string[], string] => [
      ['init', name],
      `no provider ${JSON.stringify(name)}; the providers are azure-ad, entra-id-certificate, google-service-account, google-workload-identity, keycloak, keycloak/client-secret-post, keycloak/private-key-jwt, oidc, oidc/client-secret-post, oidc/private-key-jwt, oidc-device, oidc-login, pinniped, rancher, rfc8693-token-exchange, upbound, vault, vault/kubernetes-auth`,
    ]),
  ])('%j is exit 2', async (args, message) => {
    expectFailure(await runInProcess(args), 2, message);
  });
});
