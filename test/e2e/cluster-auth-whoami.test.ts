// The cluster side end to end (SPEC "The cluster side"): from an issuer alone (the real oidc-provider)
// `init oidc-login` and `init oidc` make the person's and the machine's configs; the person logs in
// as a person does, through a real browser (Debian's chromium driven by playwright-core, opened by
// $BROWSER); `cluster-auth --from-token --bind-user` prints what the cluster must trust for each;
// the stand-in apiserver loads that output (checked against the transcribed k8s.io/apiserver types
// and rules) and real `kubectl auth whoami` names oidc:<sub>. A token of another audience is refused,
// and doctor names its aud.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import YAML from 'yaml';
import { leaks, runCli, type CliResult } from '../helpers/cli.js';
import { MACHINE_ID, MACHINE_SECRET, startDeviceProvider, type DeviceProvider } from '../helpers/device-provider.js';
import { BROWSER_ACCOUNT, BROWSER_CLIENT_ID, startBrowserProvider } from '../helpers/browser-provider.js';
import { CHROMIUM, startBrowserDriver } from '../helpers/chromium.js';
import { startApiServer, type ApiServer } from '../helpers/apiserver.js';
import { authenticationConfigIn, authenticationConfigProblems } from '../helpers/authentication-config.js';
import { KUBECTL_1_33, makeKube, runKubectl, writeKubeconfig } from '../helpers/kubectl.js';
import { makePki } from '../helpers/pki.js';
import { describeWith } from '../helpers/tools.js';

const pki = makePki();
const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-cluster-auth-'));
const RESOURCE = 'https://kubernetes.example.test';
const OTHER = 'https://other.example.test';
let idp: DeviceProvider;
const servers: ApiServer[] = [];
beforeAll(async () => {
  idp = await startDeviceProvider(pki);
}, 30_000);
afterAll(async () => {
  await Promise.all([idp?.close(), ...servers.map((server) => server.close())]);
});

async function init(file: string, args: string[], issuer = idp.issuer): Promise<string> {
  const result = await runCli(['init', ...args, '--set', `issuer=${issuer}`, '--set', `caFile=${pki.ca.certFile}`]);
  expect(result.code, result.stderr).toBe(0);
  writeFileSync(join(dir, file), result.stdout);
  return join(dir, file);
}

/** Two loopback ports free now: 8000 and 18000 (init's, kubelogin's) may be anyone's on a shared machine. */
async function freePorts(): Promise<number[]> {
  const servers = await Promise.all(
    [0, 1].map(
      () =>
        new Promise<Server>((resolve) => {
          const server = createServer();
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/** What cluster-auth printed, loaded as the apiserver loads it; its ClusterRoleBinding beside. */
function loaded(result: CliResult) {
  expect(result.code, result.stderr).toBe(0);
  const documents = YAML.parseAllDocuments(result.stdout).map((document) => document.toJS() as Record<string, unknown>);
  expect(documents.map((document) => document['kind'])).toEqual(['AuthenticationConfiguration', 'ClusterRoleBinding']);
  expect(authenticationConfigProblems(documents[0])).toEqual([]);
  return {
    config: authenticationConfigIn(result.stdout),
    binding: documents[1] as { subjects: Array<{ kind: string; name: string }>; roleRef: { name: string } },
  };
}

async function whoami(apiserver: ApiServer, args: string[], env: Record<string, string> = {}) {
  const kube = writeKubeconfig(makeKube(), {
    server: apiserver.url,
    caFile: apiserver.caFile,
    exec: { apiVersion: 'client.authentication.k8s.io/v1', args, env, interactiveMode: 'Never' },
  });
  return runKubectl(KUBECTL_1_33, kube, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'], 30_000);
}

describeWith(KUBECTL_1_33, CHROMIUM)(
  'cluster-auth: a person, from an issuer and a browser login to kubectl auth whoami',
  () => {
    it("the person's browser login: the id_token's issuer and client id, oidc:<sub> bound to view", async () => {
      const ports = await freePorts();
      const issuer = await startBrowserProvider(
        pki,
        ports.map((port) => `http://localhost:${port}`),
      );
      const driver = await startBrowserDriver();
      try {
        const written = await init(
          'person.yaml',
          ['oidc-login', '--set', `clientId=${BROWSER_CLIENT_ID}`],
          issuer.issuer,
        );
        // The ports the test's client is registered with, in place of init's 8000 and 18000.
        const config = join(dir, 'person-ports.yaml');
        writeFileSync(
          config,
          readFileSync(written, 'utf8').replace(
            /^( +)url: ("https:\/\/localhost:\d+\/auth")$/m,
            `$1url: $2\n$1redirectPorts: [${ports.join(', ')}]`,
          ),
        );
        expect(readFileSync(config, 'utf8')).toContain(`redirectPorts: [${ports.join(', ')}]`);
        const cache = ['--cache-dir', join(dir, 'person-cache')];
        const login = await runCli(['login', '--config', config, ...cache], {
          env: { BROWSER: driver.script },
          timeoutMs: 60_000,
        });
        expect(login.code, login.stderr).toBe(0);
        expect(driver.opened).toHaveLength(1);
        expect(leaks(login, [...issuer.issued])).toEqual([]);

        const result = await runCli(['cluster-auth', '--config', config, '--from-token', '--bind-user', ...cache]);
        const { config: authentication, binding } = loaded(result);
        expect(authentication.jwt).toEqual([
          {
            issuer: { url: issuer.issuer, audiences: [BROWSER_CLIENT_ID], certificateAuthority: pki.ca.cert },
            claimMappings: { username: { claim: 'sub', prefix: 'oidc:' } },
          },
        ]);
        expect(binding.subjects).toEqual([
          { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: `oidc:${BROWSER_ACCOUNT}` },
        ]);
        expect(binding.roleRef.name).toBe('view');
        expect(result.stdout).toContain(
          `#     --oidc-issuer-url=${issuer.issuer}\n#     --oidc-client-id=${BROWSER_CLIENT_ID}\n`,
        );
        expect(leaks(result, [...issuer.issued])).toEqual([]);

        const apiserver = await startApiServer({ authentication });
        servers.push(apiserver);
        const who = await whoami(apiserver, ['--config', config, '--cache', ...cache]);
        expect({ code: who.code, stdout: who.stdout }, who.stderr).toEqual({
          code: 0,
          stdout: `oidc:${BROWSER_ACCOUNT}`,
        });
      } finally {
        await Promise.all([issuer.close(), driver.close()]);
      }
    }, 120_000);
  },
);

describeWith(KUBECTL_1_33)('cluster-auth: a machine, from an issuer to kubectl auth whoami', () => {
  it("the machine's client credentials: the access token's aud is the resource it asked for; another audience is refused, and doctor names it", async () => {
    const env = { CLIENT_SECRET: MACHINE_SECRET };
    const config = await init('machine.yaml', [
      'oidc',
      '--set',
      `clientId=${MACHINE_ID}`,
      '--set',
      `resource=${RESOURCE}`,
    ]);
    const result = await runCli(['cluster-auth', '--config', config, '--from-token', '--bind-user'], { env });
    const { config: authentication, binding } = loaded(result);
    expect(authentication.jwt[0]!.issuer.audiences).toEqual([RESOURCE]);
    expect(binding.subjects[0]!.name).toBe(`oidc:${MACHINE_ID}`);
    expect(leaks(result, [MACHINE_SECRET, ...idp.issued])).toEqual([]);

    const apiserver = await startApiServer({ authentication });
    servers.push(apiserver);
    const who = await whoami(apiserver, ['--config', config], env);
    expect({ code: who.code, stdout: who.stdout }, who.stderr + JSON.stringify(apiserver.requests.at(-1))).toEqual({
      code: 0,
      stdout: `oidc:${MACHINE_ID}`,
    });

    // The same client asking for another resource: a JWT of the same issuer the cluster does not take.
    const other = await init('other.yaml', ['oidc', '--set', `clientId=${MACHINE_ID}`, '--set', `resource=${OTHER}`]);
    const refused = await whoami(apiserver, ['--config', other], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('You must be logged in to the server');
    expect(apiserver.requests.at(-1)?.refused).toBe(
      `oidc: verify token: oidc: expected audience in ["${RESOURCE}"] got ["${OTHER}"]`,
    );
    const doctor = await runCli(
      ['doctor', '--config', other, '--server', apiserver.url, '--ca-file', apiserver.caFile],
      { env },
    );
    expect(doctor.code).toBe(3);
    const cluster = doctor.stdout.split('\n').find((line) => line.slice(2).startsWith('cluster '));
    expect(cluster).toContain(
      `the token's iss is ${idp.issuer} and its aud ${OTHER}: webapi-credential cluster-auth --from-token`,
    );
    expect(leaks(doctor, [MACHINE_SECRET, ...idp.issued])).toEqual([]);
  }, 90_000);
});

it('doctor says when the config asked for an audience the token does not carry (oidc-provider reads resource, not audience)', async () => {
  const config = await init('both.yaml', [
    'oidc',
    '--set',
    `clientId=${MACHINE_ID}`,
    '--set',
    `resource=${RESOURCE}`,
    '--set',
    'audience=https://ignored.example.test',
  ]);
  const doctor = await runCli(['doctor', '--config', config], { env: { CLIENT_SECRET: MACHINE_SECRET } });
  expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
  expect(doctor.stdout).toContain(
    `the config asked for audience https://ignored.example.test, which the token does not carry (its aud: ${RESOURCE})`,
  );
  expect(leaks(doctor, [MACHINE_SECRET, ...idp.issued])).toEqual([]);
}, 60_000);
