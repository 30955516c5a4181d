// The generators take two CAs apart: --ca-file is the cluster's (certificate-authority-data, caData),
// --token-ca-file the token API's (the config's tls.caData). The Argo CD secret carries the config
// as a reviewer can read it: one line of JSON in --config-inline, a plain JSON object when embedded.
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks } from '../helpers/cli.js';
import { scratchFile } from '../helpers/examples.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';

const pki = makePki();
const SECRET = 'generator-trust-secret-6Hq';
const PREFIX = 'webapi-credential: ';
const CONFIG = scratchFile(
  'trust.yaml',
  'webAPIProviderConfig:\n  method: POST\n  url: https://login.example.com/token\n  headers:\n    Authorization: "{{ basicAuth(\'c\', env.CLIENT_SECRET) }}"\n  form: { grant_type: client_credentials, scope: "a \\"b\\" c" }\n  tokenPath: $.access_token\n',
);
const WITH_CA = scratchFile(
  'trust-ca.yaml',
  `webAPIProviderConfig:\n  method: GET\n  url: https://login.example.com/token\n  tokenPath: $.t\n  tls: { caFile: ${pki.ca.certFile} }\n`,
);
const SERVER = ['--server', 'https://k8s.example.com'];

interface Secret {
  stringData: { config: string };
}
const execOf = (stdout: string) =>
  JSON.parse((YAML.parse(stdout) as Secret).stringData.config).execProviderConfig as {
    args: string[];
    config?: unknown;
  };

describe('--token-ca-file, apart from --ca-file', () => {
  it('each help line says whose CA it is; --config-from-cluster is not a generator option', async () => {
    for (const command of ['kubeconfig', 'argocd-secret']) {
      const help = (await runInProcess([command, '--help'])).stdout.replace(/\s+/g, ' ');
      expect(help).toContain("--ca-file <path> the cluster's CA: PEM bundle of the Kubernetes API server");
      expect(help).toContain(
        "--token-ca-file <path> the token API's CA: PEM bundle of the server the config calls (written into the config as tls.caData); not the cluster's",
      );
      expect(help).not.toContain('--config-from-cluster');
      const refused = await runInProcess([
        command,
        ...SERVER,
        '--name',
        'p',
        '--config',
        CONFIG,
        '--config-from-cluster',
      ]);
      expect({ code: refused.code, stderr: refused.stderr }).toEqual({
        code: 2,
        stderr: `${PREFIX}unknown option '--config-from-cluster' (see --help)\n`,
      });
    }
  });

  it('kubeconfig: the token API CA goes into the config as tls.caData, the cluster CA into the cluster entry', async () => {
    const result = await runInProcess(
      [
        'kubeconfig',
        ...SERVER,
        '--config',
        CONFIG,
        '--ca-file',
        pki.ca.certFile,
        '--token-ca-file',
        pki.otherCa.certFile,
      ],
      { env: { CLIENT_SECRET: SECRET } },
    );
    expect(result.code).toBe(0);
    const kubeconfig = YAML.parse(result.stdout) as {
      clusters: Array<{ cluster: Record<string, string> }>;
      users: Array<{ user: { exec: { args: string[] } } }>;
    };
    expect(Buffer.from(kubeconfig.clusters[0]!.cluster['certificate-authority-data']!, 'base64').toString()).toBe(
      pki.ca.cert,
    );
    const args = kubeconfig.users[0]!.user.exec.args;
    expect(args[0]).toBe('--config-inline');
    expect(JSON.parse(args[1]!).webAPIProviderConfig.tls).toEqual({ caData: pki.otherCa.cert });
    expect(leaks(result, [SECRET])).toEqual([]);
  });

  it('argocd-secret --embed-config: tls.caData in execProviderConfig.config', async () => {
    const result = await runInProcess([
      'argocd-secret',
      ...SERVER,
      '--name',
      'p',
      '--config',
      CONFIG,
      '--token-ca-file',
      pki.otherCa.certFile,
      '--embed-config',
    ]);
    expect(result.code).toBe(0);
    expect(
      (execOf(result.stdout).config as { webAPIProviderConfig: { tls: unknown } }).webAPIProviderConfig.tls,
    ).toEqual({ caData: pki.otherCa.cert });
  });

  it.each([
    [
      [WITH_CA, pki.otherCa.certFile],
      `--token-ca-file ${pki.otherCa.certFile}: the config gives the token API's CA already (webAPIProviderConfig.tls.caFile); keep one of them`,
    ],
    [[CONFIG, '/nonexistent/ca.pem'], '--token-ca-file /nonexistent/ca.pem: cannot read it: no such file'],
    [[CONFIG, CONFIG], `--token-ca-file ${CONFIG}: expected PEM certificates`],
  ])('refuses %j: exit 2, one line, nothing written', async ([config, ca], message) => {
    const result = await runInProcess(['kubeconfig', ...SERVER, '--config', config!, '--token-ca-file', ca!], {
      env: { CLIENT_SECRET: SECRET },
    });
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${PREFIX}${message}\n` });
  });
});

describe('the Argo CD secret a reviewer reads', () => {
  it('any-version form: --config-inline is the config as one line of compact JSON', async () => {
    const result = await runInProcess([
      'argocd-secret',
      ...SERVER,
      '--name',
      'p',
      '--config',
      CONFIG,
      '--token-ca-file',
      pki.ca.certFile,
    ]);
    expect(result.code).toBe(0);
    const args = execOf(result.stdout).args;
    expect(args[0]).toBe('--config-inline');
    expect(args[1]).not.toContain('\n');
    expect(args[1]).toBe(JSON.stringify(JSON.parse(args[1]!)));
    expect(JSON.parse(args[1]!)).toEqual({
      webAPIProviderConfig: {
        method: 'POST',
        url: 'https://login.example.com/token',
        headers: { Authorization: "{{ basicAuth('c', env.CLIENT_SECRET) }}" },
        form: { grant_type: 'client_credentials', scope: 'a "b" c' },
        tokenPath: '$.access_token',
        tls: { caData: pki.ca.cert },
      },
    });
    // The config string of the secret is JSON whose one string holds the config's JSON: two layers, not three.
    expect((YAML.parse(result.stdout) as Secret).stringData.config).toContain(
      `"--config-inline",\n      "{\\"webAPIProviderConfig\\":{\\"method\\":\\"POST\\"`,
    );
  });

  it('--embed-config form: execProviderConfig.config is a plain JSON object; each note once', async () => {
    const result = await runInProcess([
      'argocd-secret',
      ...SERVER,
      '--name',
      'p',
      '--config',
      CONFIG,
      '--embed-config',
      '--cache',
    ]);
    expect(result.code).toBe(0);
    const exec = execOf(result.stdout);
    expect(typeof exec.config).toBe('object');
    expect(exec.config).toMatchObject({ webAPIProviderConfig: { method: 'POST', form: { scope: 'a "b" c' } } });
    const lines = result.stderr.trimEnd().split('\n');
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.filter((line) => line.includes('placeholder'))).toHaveLength(1);
  });
});
