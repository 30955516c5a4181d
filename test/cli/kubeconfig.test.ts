// `webapi-credential kubeconfig`: validates the config as the plugin will run it, then prints a
// kubeconfig whose exec entry runs this very CLI (absolute paths) with that config.
import { readFileSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ROOT, cliCommand, leaks, runCli } from '../helpers/cli.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const SECRET = 'kubeconfig-client-secret-9Tz';
const KEYCLOAK = 'examples/keycloak/config-client-secret-post.yaml';
const SETS = ['--set', 'issuer=https://keycloak.example.com/realms/platform', '--set', 'clientId=kubectl'];
const PREFIX = 'webapi-credential: ';
const [command, ...lead] = cliCommand().map((part) => realpathSync(part));

describe.concurrent('webapi-credential kubeconfig', () => {
  it('prints a kubeconfig whose user runs this CLI with the absolute config path, the --set values and --cache', async () => {
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com:6443', '--config', KEYCLOAK, ...SETS, '--cache'], { env: { CLIENT_SECRET: SECRET } });
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 0,
      stderr: `${PREFIX}note: kubectl must pass CLIENT_SECRET to the plugin: export it where kubectl runs, or add users[].user.exec.env entries\n`,
    });
    expect(leaks(result, [SECRET])).toEqual([]);
    expect(YAML.parse(result.stdout)).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'k8s-example-com', cluster: { server: 'https://k8s.example.com:6443' } }],
      users: [
        {
          name: 'k8s-example-com',
          user: {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command,
              args: [...lead, '--config', `${ROOT}${KEYCLOAK}`, ...SETS, '--cache'],
              interactiveMode: 'Never',
              installHint: `webapi-credential was not found at ${command}: install it and run "webapi-credential kubeconfig" again`,
            },
          },
        },
      ],
      contexts: [{ name: 'k8s-example-com', context: { cluster: 'k8s-example-com', user: 'k8s-example-com' } }],
      'current-context': 'k8s-example-com',
    });
  });

  it('--ca-file embeds the CA, --name names everything, --config-inline travels in args, and --api-version is kept', async () => {
    const inline = 'webAPIProviderConfig: {method: POST, url: "https://auth.example.com/token", tokenPath: $.access_token}';
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com', '--ca-file', pki.ca.certFile, '--name', 'prod', '--config-inline', inline, '--api-version', 'client.authentication.k8s.io/v1beta1']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const kubeconfig = YAML.parse(result.stdout) as { clusters: Array<{ name: string; cluster: Record<string, string> }>; users: Array<{ name: string; user: { exec: Record<string, unknown> } }>; 'current-context': string };
    expect(kubeconfig.clusters).toEqual([{ name: 'prod', cluster: { server: 'https://k8s.example.com', 'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64') } }]);
    expect({ name: kubeconfig.users[0]!.name, args: kubeconfig.users[0]!.user.exec['args'], apiVersion: kubeconfig.users[0]!.user.exec['apiVersion'], context: kubeconfig['current-context'] }).toEqual({
      name: 'prod',
      args: [...lead, '--config-inline', inline],
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      context: 'prod',
    });
  });

  it('--embed-config puts the config in the cluster extension with provideClusterInfo, and validates it with the cluster info', async () => {
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com', '--config', 'examples/pinniped/config.yaml', '--set', 'authenticator=corp', '--embed-config'], { env: { PINNIPED_TOKEN: SECRET } });
    expect(result.code).toBe(0);
    const kubeconfig = YAML.parse(result.stdout) as { clusters: Array<{ cluster: Record<string, unknown> }>; users: Array<{ user: { exec: Record<string, unknown> } }> };
    expect(kubeconfig.clusters[0]!.cluster).toEqual({
      server: 'https://k8s.example.com',
      extensions: [{ name: 'client.authentication.k8s.io/exec', extension: YAML.parse(readFileSync(`${ROOT}examples/pinniped/config.yaml`, 'utf8')) }],
    });
    expect({ args: kubeconfig.users[0]!.user.exec['args'], provideClusterInfo: kubeconfig.users[0]!.user.exec['provideClusterInfo'] }).toEqual({ args: [...lead, '--config-from-cluster', '--set', 'authenticator=corp'], provideClusterInfo: true });
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it.each<[string, string[], Record<string, string>, string]>([
    [
      'a config that needs the cluster info without --embed-config',
      ['--config', 'examples/pinniped/config.yaml', '--set', 'authenticator=corp'],
      { PINNIPED_TOKEN: SECRET },
      "webAPIProviderConfig.url: {{ vars.conciergeUrl ?? cluster.server }}: vars.conciergeUrl, cluster are not set (pass --set conciergeUrl=…, or give a default: vars.conciergeUrl ?? \"…\"; KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)",
    ],
    [
      'a file the config reads that is not here',
      ['--config', 'examples/rfc8693-token-exchange/config.yaml', '--set', 'tokenUrl=https://sts.example.com/t', '--set', 'audience=a'],
      {},
      'webAPIProviderConfig.form.subject_token: {{ file(vars.subjectTokenFile ?? "/var/run/secrets/tokens/token-exchange") }}: file("/var/run/secrets/tokens/token-exchange") cannot be read: no such file',
    ],
    ['a missing env value', ['--config', KEYCLOAK, ...SETS], {}, 'webAPIProviderConfig.form.client_secret: {{ env.CLIENT_SECRET }}: env.CLIENT_SECRET is not set (set it in the environment or the kubeconfig exec env, or give a default: env.CLIENT_SECRET ?? "…")'],
    [
      'an invalid config',
      ['--config-inline', 'webAPIProviderConfig: {method: POST, url: "https://a.example", tokenPath: $.t, retry: {limit: 11}}'],
      {},
      'config from --config-inline is invalid: webAPIProviderConfig.retry.limit: expected an integer from 0 to 10, found number 11',
    ],
    ['a config file that is not there', ['--config', '/nonexistent/config.yaml'], {}, 'cannot read config /nonexistent/config.yaml: no such file'],
    ['no config', [], {}, 'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry'],
    ['a CA file that is not PEM', ['--config', KEYCLOAK, ...SETS, '--ca-file', KEYCLOAK], { CLIENT_SECRET: SECRET }, `--ca-file ${KEYCLOAK}: expected PEM certificates`],
    ['a missing CA file', ['--config', KEYCLOAK, ...SETS, '--ca-file', '/nonexistent/ca.crt'], { CLIENT_SECRET: SECRET }, '--ca-file /nonexistent/ca.crt: cannot read it: no such file'],
  ])('refuses %s with exit 2 and prints nothing', async (_what, args, env, message) => {
    const result = await runCli(['kubeconfig', '--server', 'https://k8s.example.com', ...args], { env });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  });

  it.each([
    ['http://k8s.example.com', '--server "http://k8s.example.com": expected the https:// URL of the Kubernetes API server'],
    ['k8s.example.com', '--server "k8s.example.com": expected the https:// URL of the Kubernetes API server'],
  ])('refuses the server %s with exit 2', async (server, message) => {
    const result = await runCli(['kubeconfig', '--server', server, '--config', KEYCLOAK, ...SETS], { env: { CLIENT_SECRET: SECRET } });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  });

  it('needs --server', async () => {
    const result = await runCli(['kubeconfig', '--config', KEYCLOAK]);
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}required option '--server <url>' not specified (see --help)\n` });
  });
});
