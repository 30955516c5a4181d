// `webapi-credential argocd-secret`: validates the config, then prints an Argo CD cluster secret
// that runs the plugin with it (in args, or for Argo CD >= 3.5 in execProviderConfig.config), with
// placeholders for the secret values. Filled in, the secret works the way Argo CD runs it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks, runCli } from '../helpers/cli.js';
import { clientGoStatus, runExecEntry } from '../helpers/exec-plugin.js';
import { TRUST_TEST_CA, readYaml, scratchFile, standIns, type ArgoCdSecret } from '../helpers/examples.js';
import { makePki } from '../helpers/pki.js';
import { keycloak } from '../helpers/provider-apis.js';

const SECRET = 'argocd-client-secret-4Vb';
const CONFIG = 'examples/keycloak/config.yaml';
const PREFIX = 'webapi-credential: ';
/** Every secret here is written without --ca-file: Argo CD then trusts only its system roots, and is told so. */
const NO_CA = `${PREFIX}note: no --ca-file: Argo CD will trust only its system roots for the cluster's certificate (a cluster with a private CA needs --ca-file)\n`;
const start = standIns();
const pki = makePki();

function parseSecret(stdout: string): ArgoCdSecret {
  const secret = YAML.parse(stdout) as { metadata: ArgoCdSecret['metadata']; stringData: Record<string, string> };
  return {
    metadata: secret.metadata,
    name: secret.stringData['name']!,
    server: secret.stringData['server']!,
    ...JSON.parse(secret.stringData['config']!),
  };
}

async function keycloakApi() {
  const issued: string[] = [];
  const api = await start(keycloak({ realm: 'platform', clientId: 'argocd', clientSecret: SECRET }, issued));
  return { issued, sets: ['--set', `issuer=${api.url}/realms/platform`, '--set', 'clientId=argocd'] };
}

describe.concurrent('webapi-credential argocd-secret', () => {
  it.each([
    ['the config in --config-inline (every Argo CD)', []],
    ['the config in execProviderConfig.config (Argo CD >= 3.5)', ['--embed-config']],
  ])(
    'prints a cluster secret with %s that, its placeholder filled in, gets a credential as Argo CD runs it',
    async (_how, flags) => {
      const { issued, sets } = await keycloakApi();
      const result = await runCli(
        [
          'argocd-secret',
          '--server',
          'https://k8s.example.com',
          '--name',
          'Platform',
          '--config',
          CONFIG,
          ...sets,
          ...flags,
        ],
        { env: { CLIENT_SECRET: SECRET } },
      );
      expect({ code: result.code, stderr: result.stderr, leaks: leaks(result, [SECRET]) }).toEqual({
        code: 0,
        stderr: `${PREFIX}note: replace the placeholder of CLIENT_SECRET in execProviderConfig.env with the real value; this command never prints secrets\n${NO_CA}`,
        leaks: [],
      });
      const secret = parseSecret(result.stdout);
      const exec = secret.execProviderConfig;
      const embedded = flags.length > 0;
      expect({
        metadata: secret.metadata,
        name: secret.name,
        server: secret.server,
        env: exec.env,
        command: exec.command,
        apiVersion: exec.apiVersion,
      }).toEqual({
        metadata: {
          name: 'cluster-platform',
          namespace: 'argocd',
          labels: { 'argocd.argoproj.io/secret-type': 'cluster' },
        },
        name: 'Platform',
        server: 'https://k8s.example.com',
        env: { CLIENT_SECRET: '<CLIENT_SECRET>' },
        command: '/custom-tools/webapi-credential',
        apiVersion: 'client.authentication.k8s.io/v1beta1',
      });
      const config = readYaml('keycloak', 'config.yaml');
      if (embedded)
        expect({ args: exec.args, config: exec.config, provideClusterInfo: exec.provideClusterInfo }).toEqual({
          args: ['--config-from-cluster', ...sets],
          config,
          provideClusterInfo: true,
        });
      else
        expect({
          first: exec.args[0],
          config: YAML.parse(exec.args[1]!),
          rest: exec.args.slice(2),
          provideClusterInfo: exec.provideClusterInfo,
        }).toEqual({ first: '--config-inline', config, rest: sets, provideClusterInfo: undefined });

      const filled = { ...exec, env: { CLIENT_SECRET: SECRET } };
      const run = await runExecEntry(filled, {
        plugin: '/custom-tools/webapi-credential',
        cluster: { server: secret.server },
        callerEnv: TRUST_TEST_CA,
      });
      expect(clientGoStatus(run, exec.apiVersion).token).toBe(issued[0]);
    },
  );

  it('--ca-file, --namespace and --command shape the secret', async () => {
    const ca = scratchFile('ca.crt', '');
    writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
    const result = await runCli(
      [
        'argocd-secret',
        '--server',
        'https://k8s.example.com',
        '--name',
        'prod',
        '--config',
        CONFIG,
        '--set',
        'issuer=https://kc/realms/r',
        '--set',
        'clientId=c',
        '--ca-file',
        ca,
        '--namespace',
        'gitops',
        '--command',
        '/usr/local/bin/webapi-credential',
      ],
      {
        env: { CLIENT_SECRET: SECRET },
      },
    );
    expect(result.code).toBe(0);
    const secret = parseSecret(result.stdout);
    expect({
      namespace: secret.metadata.namespace,
      command: secret.execProviderConfig.command,
      tls: secret.tlsClientConfig,
    }).toEqual({
      namespace: 'gitops',
      command: '/usr/local/bin/webapi-credential',
      tls: { caData: Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n').toString('base64') },
    });
  });

  it('a config without secrets needs no env and prints no note', async () => {
    const result = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'p',
      '--config-inline',
      'webAPIProviderConfig: {method: GET, url: "https://a.example/t", tokenPath: $.t}',
    ]);
    expect({
      code: result.code,
      stderr: result.stderr,
      env: parseSecret(result.stdout).execProviderConfig.env,
    }).toEqual({ code: 0, stderr: NO_CA, env: {} });
  });

  it('a file the config reads in the Argo CD containers need not exist here: it is named in a note', async () => {
    const sets = [
      '--set',
      'tokenUrl=https://sts.example.com/oauth2/token',
      '--set',
      'audience=https://k8s.example.com',
    ];
    const result = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'w',
      '--config',
      'examples/rfc8693-token-exchange/config.yaml',
      ...sets,
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${NO_CA}${PREFIX}note: /var/run/secrets/tokens/token-exchange must exist in the Argo CD containers (not found here)\n`,
    });
    expect(parseSecret(result.stdout).execProviderConfig.args.slice(2)).toEqual(sets);
  });

  it("works with the secret env variables unset, as on an operator's machine: they get placeholders", async () => {
    const result = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'p',
      '--config',
      CONFIG,
      '--set',
      'issuer=https://kc.example.com/realms/r',
      '--set',
      'clientId=c',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${PREFIX}note: replace the placeholder of CLIENT_SECRET in execProviderConfig.env with the real value; this command never prints secrets\n${NO_CA}`,
    });
    expect(parseSecret(result.stdout).execProviderConfig.env).toEqual({ CLIENT_SECRET: '<CLIENT_SECRET>' });
  });

  it.each([
    ['in --config-inline', []],
    ['embedded', ['--embed-config']],
  ])(
    'puts tls.caFile, certFile and keyFile in the secret as data (%s), and says what file() reads in the pod',
    async (_how, flags) => {
      const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-argocd-'));
      writeFileSync(`${dir}/client.crt`, pki.client.cert);
      writeFileSync(`${dir}/client.key`, pki.client.key);
      writeFileSync(`${dir}/ca.crt`, pki.ca.cert);
      const provider = {
        method: 'POST',
        url: 'https://auth.example.com/token',
        form: {
          assertion: "{{ file('/var/run/secrets/tokens/sa') }}",
          extra: "{{ file('relative.txt') }}",
          secret: '{{ env.CLIENT_SECRET }}',
        },
        tokenPath: '$.access_token',
        tls: { caFile: 'ca.crt', certFile: `${dir}/client.crt`, keyFile: 'client.key' },
      };
      writeFileSync(`${dir}/config.yaml`, YAML.stringify({ webAPIProviderConfig: provider }));
      const result = await runCli([
        'argocd-secret',
        '--server',
        'https://k8s.example.com',
        '--name',
        'p',
        '--config',
        `${dir}/config.yaml`,
        ...flags,
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 0,
        stderr:
          `${PREFIX}note: replace the placeholder of CLIENT_SECRET in execProviderConfig.env with the real value; this command never prints secrets\n` +
          `${PREFIX}note: webAPIProviderConfig.tls.keyFile client.key is inlined as tls.keyData: the manifest holds its private key, keep it as secret as the file\n` +
          NO_CA +
          `${PREFIX}note: /var/run/secrets/tokens/sa must exist in the Argo CD containers (not found here)\n` +
          `${PREFIX}note: relative.txt is a relative path: in the Argo CD containers it resolves against their working directory; use an absolute path\n`,
      });
      const exec = parseSecret(result.stdout).execProviderConfig;
      const config = (flags.length > 0 ? exec.config : YAML.parse(exec.args[1]!)) as {
        webAPIProviderConfig: { tls: unknown };
      };
      expect(config.webAPIProviderConfig.tls).toEqual({
        caData: pki.ca.cert,
        certData: pki.client.cert,
        keyData: pki.client.key,
      });
      expect(result.stdout).not.toContain(dir);
    },
  );

  it('needs --name, and refuses an invalid config with exit 2 and nothing on stdout', async () => {
    const noName = await runCli(['argocd-secret', '--server', 'https://k8s.example.com', '--config', CONFIG]);
    expect(noName).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}required option '--name <name>' not specified (see --help)\n`,
    });
    const invalid = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'p',
      '--config-inline',
      'webAPIProviderConfig: {method: POST, url: "https://a.example"}',
    ]);
    expect(invalid).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}config from --config-inline is invalid: webAPIProviderConfig.tokenPath: is required (unless clientCertificateDataPath and clientKeyDataPath are both set)\n`,
    });
  });
});
