// `webapi-credential kubeconfig`: validates the config as the plugin will run it, then prints a
// kubeconfig whose exec entry runs webapi-credential as installed (by name, on the PATH, unless
// --command gives a path) with that config. Secret values are never needed, nor printed.
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ROOT, leaks, runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const SECRET = 'kubeconfig-client-secret-9Tz';
const KEYCLOAK = 'examples/keycloak/config-client-secret-post.yaml';
const SETS = ['--set', 'issuer=https://keycloak.example.com/realms/platform', '--set', 'clientId=kubectl'];
const PREFIX = 'webapi-credential: ';
const ON_PATH_HINT =
  'webapi-credential was not found on the PATH: install a release binary as webapi-credential in a directory of the PATH, or npm i -g webapi-credential (Node >= 22)';
const NOTE_CLIENT_SECRET = `${PREFIX}note: kubectl must pass CLIENT_SECRET to the plugin: export it where kubectl runs, or add users[].user.exec.env entries\n`;

describe.concurrent('webapi-credential kubeconfig', () => {
  it('prints a kubeconfig whose user runs webapi-credential from the PATH with the absolute config path, the --set values and --cache (the default)', async () => {
    const result = await runCli(
      ['kubeconfig', '--server', 'https://k8s.example.com:6443', '--config', KEYCLOAK, ...SETS],
      { env: { CLIENT_SECRET: SECRET } },
    );
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: NOTE_CLIENT_SECRET,
    });
    expect(leaks(result, [SECRET])).toEqual([]);
    expect(YAML.parse(result.stdout)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k8s.example.com:6443', cluster: { server: 'https://k8s.example.com:6443' } }],
      users: [
        {
          name: 'k8s.example.com:6443',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: 'webapi-credential',
              args: ['--config', `${ROOT}${KEYCLOAK}`, ...SETS, '--cache'],
              interactiveMode: 'Never',
              installHint: ON_PATH_HINT,
            },
          },
        },
      ],
      contexts: [
        { name: 'k8s.example.com:6443', context: { cluster: 'k8s.example.com:6443', user: 'k8s.example.com:6443' } },
      ],
      'current-context': 'k8s.example.com:6443',
    });
  });

  it('--ca-file embeds the CA, --name names everything, --config-inline travels in args, and --api-version is kept', async () => {
    const inline =
      'webAPIProviderConfig: {method: POST, url: "https://auth.example.com/token", tokenPath: $.access_token}';
    const result = await runCli([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--ca-file',
      pki.ca.certFile,
      '--name',
      'prod',
      '--config-inline',
      inline,
      '--api-version',
      'client.authentication.k8s.io/v1beta1',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const kubeconfig = YAML.parse(result.stdout) as {
      clusters: Array<{ name: string; cluster: Record<string, string> }>;
      users: Array<{ name: string; user: { exec: Record<string, unknown> } }>;
      'current-context': string;
    };
    expect(kubeconfig.clusters).toEqual([
      {
        name: 'prod',
        cluster: {
          server: 'https://k8s.example.com',
          'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64'),
        },
      },
    ]);
    expect({
      name: kubeconfig.users[0]!.name,
      args: kubeconfig.users[0]!.user.exec['args'],
      apiVersion: kubeconfig.users[0]!.user.exec['apiVersion'],
      context: kubeconfig['current-context'],
    }).toEqual({
      name: 'prod',
      args: ['--config-inline', inline, '--cache'],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      context: 'prod',
    });
  });

  it('--embed-config puts the config in the cluster extension with provideClusterInfo, and validates it with the cluster info', async () => {
    const result = await runCli(
      [
        'kubeconfig',
        '--server',
        'https://k8s.example.com',
        '--config',
        'examples/pinniped/config.yaml',
        '--set',
        'authenticator=corp',
        '--embed-config',
      ],
      { env: { PINNIPED_TOKEN: SECRET } },
    );
    expect(result.code).toBe(0);
    const kubeconfig = YAML.parse(result.stdout) as {
      clusters: Array<{ cluster: Record<string, unknown> }>;
      users: Array<{ user: { exec: Record<string, unknown> } }>;
    };
    expect(kubeconfig.clusters[0]!.cluster).toEqual({
      server: 'https://k8s.example.com',
      extensions: [
        {
          name: 'client.authentication.k8s.io/exec',
          extension: YAML.parse(readFileSync(`${ROOT}examples/pinniped/config.yaml`, 'utf8')),
        },
      ],
    });
    expect({
      args: kubeconfig.users[0]!.user.exec['args'],
      provideClusterInfo: kubeconfig.users[0]!.user.exec['provideClusterInfo'],
    }).toEqual({ args: ['--config-from-cluster', '--set', 'authenticator=corp', '--cache'], provideClusterInfo: true });
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it.each<[string, string[], Record<string, string>, string]>([
    [
      'a config that needs the cluster info without --embed-config',
      ['--config', 'examples/pinniped/config.yaml', '--set', 'authenticator=corp'],
      { PINNIPED_TOKEN: SECRET },
      'webAPIProviderConfig.url: {{ vars.conciergeUrl ?? cluster.server }}: vars.conciergeUrl, cluster are not set (pass --set conciergeUrl=…, or give a default: vars.conciergeUrl ?? "…"; KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)',
    ],
    [
      'a file the config reads that is not here',
      [
        '--config',
        'examples/rfc8693-token-exchange/config.yaml',
        '--set',
        'tokenUrl=https://sts.example.com/t',
        '--set',
        'audience=a',
      ],
      {},
      'webAPIProviderConfig.form.subject_token: {{ file(vars.subjectTokenFile ?? "/var/run/secrets/tokens/token-exchange") }}: file("/var/run/secrets/tokens/token-exchange") cannot be read: no such file',
    ],
    [
      'missing --set values, every one in one run (an env value is never needed)',
      ['--config', KEYCLOAK],
      {},
      'webAPIProviderConfig.url: {{ vars.issuer }}: vars.issuer is not set (pass --set issuer=…, or give a default: vars.issuer ?? "…"); webAPIProviderConfig.form.client_id: {{ vars.clientId }}: vars.clientId is not set (pass --set clientId=…, or give a default: vars.clientId ?? "…")',
    ],
    [
      'an invalid config',
      [
        '--config-inline',
        'webAPIProviderConfig: {method: POST, url: "https://a.example", tokenPath: $.t, retry: {limit: 11}}',
      ],
      {},
      'config from --config-inline is invalid: webAPIProviderConfig.retry.limit: expected an integer from 0 to 10, found number 11',
    ],
    [
      'a config file that is not there',
      ['--config', '/nonexistent/config.yaml'],
      {},
      'cannot read config /nonexistent/config.yaml: no such file',
    ],
    [
      'no config',
      [],
      {},
      'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry',
    ],
    [
      'a CA file that is not PEM',
      ['--config', KEYCLOAK, ...SETS, '--ca-file', KEYCLOAK],
      { CLIENT_SECRET: SECRET },
      `--ca-file ${KEYCLOAK}: expected PEM certificates`,
    ],
    [
      'a missing CA file',
      ['--config', KEYCLOAK, ...SETS, '--ca-file', '/nonexistent/ca.crt'],
      { CLIENT_SECRET: SECRET },
      '--ca-file /nonexistent/ca.crt: cannot read it: no such file',
    ],
  ])('refuses %s with exit 2 and prints nothing', async (_what, args, env, message) => {
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com', ...args], { env });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  });

  it.each([
    [
      'http://k8s.example.com',
      '--server "http://k8s.example.com": expected the https:// URL of the Kubernetes API server',
    ],
    ['k8s.example.com', '--server "k8s.example.com": expected the https:// URL of the Kubernetes API server'],
  ])('refuses the server %s with exit 2', async (server, message) => {
    const result = await runCli(['kubeconfig', '--server', server, '--config', KEYCLOAK, ...SETS], {
      env: { CLIENT_SECRET: SECRET },
    });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  });

  it('needs no secret value: an unset env variable the config reads is named, never demanded', async () => {
    const result = await runCli([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--config',
      KEYCLOAK,
      ...SETS,
      '--no-cache',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: NOTE_CLIENT_SECRET });
    const exec = (YAML.parse(result.stdout) as { users: Array<{ user: { exec: Record<string, unknown> } }> }).users[0]!
      .user.exec;
    expect(exec['args']).toEqual(['--config', `${ROOT}${KEYCLOAK}`, ...SETS]);
  });

  it('--command writes an absolute path, with an installHint that says where', async () => {
    const result = await runCli(
      [
        'kubeconfig',
        '--server',
        'https://k8s.example.com',
        '--config',
        KEYCLOAK,
        ...SETS,
        '--command',
        '/opt/tools/webapi-credential',
      ],
      { env: { CLIENT_SECRET: SECRET } },
    );
    expect(result.code).toBe(0);
    const exec = (YAML.parse(result.stdout) as { users: Array<{ user: { exec: Record<string, unknown> } }> }).users[0]!
      .user.exec;
    expect({ command: exec['command'], installHint: exec['installHint'] }).toEqual({
      command: '/opt/tools/webapi-credential',
      installHint:
        'webapi-credential was not found at /opt/tools/webapi-credential: install it there, or write this kubeconfig again with webapi-credential kubeconfig --command <path>',
    });
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it('--embed-config inlines tls.caFile, certFile and keyFile (relative to the config file) as data, and notes a relative file() path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-embed-'));
    copyFileSync(pki.ca.certFile, join(dir, 'ca.crt'));
    copyFileSync(pki.client.certFile, join(dir, 'client.crt'));
    copyFileSync(pki.client.keyFile, join(dir, 'client.key'));
    writeFileSync(join(dir, 'token'), 'mounted-token-value-7Qp\n');
    const config = join(dir, 'config.yaml');
    const provider = {
      method: 'POST',
      url: 'https://auth.example.com/token',
      form: { token: "{{ file('token') }}", secret: '{{ env.CLIENT_SECRET }}' },
      tokenPath: '$.access_token',
      tls: { caFile: 'ca.crt', certFile: 'client.crt', keyFile: 'client.key', serverName: 'auth.internal' },
    };
    writeFileSync(config, YAML.stringify({ webAPIProviderConfig: provider }));
    const result = await runCli([
      'kubeconfig',
      '--server',
      'https://k8s.example.com',
      '--config',
      config,
      '--embed-config',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr:
        NOTE_CLIENT_SECRET +
        `${PREFIX}note: webAPIProviderConfig.tls.keyFile client.key is inlined as tls.keyData: the manifest holds its private key, keep it as secret as the file\n` +
        `${PREFIX}note: token is a relative path: in an embedded config it resolves against the directory kubectl runs in; use an absolute path\n`,
    });
    expect(leaks(result, ['mounted-token-value-7Qp'])).toEqual([]);
    const cluster = (
      YAML.parse(result.stdout) as {
        clusters: Array<{
          cluster: { extensions: Array<{ extension: { webAPIProviderConfig: Record<string, unknown> } }> };
        }>;
      }
    ).clusters[0]!.cluster;
    expect(cluster.extensions[0]!.extension.webAPIProviderConfig['tls']).toEqual({
      caData: pki.ca.cert,
      certData: pki.client.cert,
      keyData: pki.client.key,
      serverName: 'auth.internal',
    });
  });

  it("--config-inline with a relative path: noted, since kubectl's directory decides it", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-inline-'));
    copyFileSync(pki.ca.certFile, join(dir, 'ca.crt'));
    const inline =
      'webAPIProviderConfig: {method: POST, url: "https://auth.example.com/token", tokenPath: $.access_token, tls: {caFile: ca.crt}}';
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com', '--config-inline', inline], {
      cwd: dir,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${PREFIX}note: ca.crt is a relative path: in an inline config it resolves against the directory kubectl runs in; use an absolute path\n`,
    });
  });

  it('needs --server', async () => {
    const result = await runCli(['kubeconfig', '--config', KEYCLOAK]);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `${PREFIX}required option '--server <url>' not specified (see --help)\n`,
    });
  });
});
