// `webapi-credential doctor` as a process (the bin script, and the single binary) against the
// stand-ins: a token API on the test CA and the API server stand-in. Each stage fails in turn (exit code, that stage's line, no secret anywhere),
// and every stage passes for a config, a kubeconfig the `kubeconfig` generator wrote and an Argo CD
// secret `argocd-secret` wrote.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type ApiServer, type ApiServerOptions } from '../helpers/apiserver.js';
import { cliCommand, leaks, runCli, type CliResult } from '../helpers/cli.js';
import { atTerminal } from '../helpers/device-run.js';
import { installedDir } from '../helpers/installed.js';
import { HOST_ID } from '../cache/support.js';
import { closedPort, writeTemp } from '../helpers/integration.js';
import { makePki } from '../helpers/pki.js';
import { describeWith, SCRIPT } from '../helpers/tools.js';
import { fakeJwt, json, startTokenApi, type TokenApi } from '../helpers/token-api.js';

const API_KEY = 'doctor-api-key-Hq27Xv';
const NOW_S = Math.floor(Date.now() / 1000);
const TOKEN = fakeJwt(NOW_S + 3600, {
  iss: 'https://issuer.doctor.test',
  sub: 'alice-sub',
  aud: 'kubernetes',
  iat: NOW_S,
  email: 'alice@example.test',
  groups: ['dev'],
});
const SECRETS = [API_KEY, TOKEN, TOKEN.split('.')[1]!, TOKEN.split('.')[2]!];
const ALICE = { username: 'alice', uid: 'uid-alice-1', groups: ['dev', 'system:authenticated'] };
const pki = makePki();

let tokenApi: TokenApi;
let untrusted: TokenApi;
let apiserver: ApiServer;
const servers: Array<{ close: () => Promise<void> }> = [];

/** The token API: the key in x-api-key buys the JWT; /skewed answers with a Date five minutes old. */
function tokenHandler(
  request: { path: string; headers: Record<string, string | string[] | undefined> },
  response: Parameters<typeof json>[0],
): void {
  if (request.headers['x-api-key'] !== API_KEY)
    return json(response, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
  const headers: Record<string, string> =
    request.path === '/skewed' ? { date: new Date(Date.now() - 300_000).toUTCString() } : {};
  json(response, 200, { access_token: TOKEN, expires_in: 3600, token_type: 'Bearer' }, headers);
}

async function apiServer(
  options: Omit<ApiServerOptions, 'accepts'> & { accepts?: ApiServerOptions['accepts'] } = {},
): Promise<ApiServer> {
  const server = await startApiServer({ accepts: (token) => (token === TOKEN ? ALICE : undefined), ...options });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  tokenApi = await startTokenApi(tokenHandler);
  untrusted = await startTokenApi(tokenHandler, { serverCert: pki.untrustedServer });
  apiserver = await apiServer();
  servers.push(tokenApi, untrusted);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

function config(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    method: 'POST',
    url: `${tokenApi.url}/token`,
    headers: { 'x-api-key': '{{ env.API_KEY }}' },
    tokenPath: '$.access_token',
    expiresInPath: '$.expires_in',
    tls: { caFile: pki.ca.certFile },
    retry: { limit: 0 },
    ...extra,
  };
}

function configFile(extra: Record<string, unknown> = {}): string {
  return writeTemp('doctor.json', JSON.stringify({ webAPIProviderConfig: config(extra) }));
}

function doctor(args: string[], env: Record<string, string | undefined> = { API_KEY }): Promise<CliResult> {
  return runCli(['doctor', ...args], {
    env: { HOME: mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-')), ...env },
  });
}

const cluster = (server: ApiServer = apiserver) => ['--server', server.url, '--ca-file', server.caFile];

/** The line of `stage` in the text report. */
function line(result: CliResult, stage: string): string {
  return (
    result.stdout.split('\n').find((l) => l.slice(2).startsWith(stage)) ??
    `(no ${stage} line in ${JSON.stringify(result.stdout)})`
  );
}

function expectClean(result: CliResult): void {
  expect(leaks(result, SECRETS)).toEqual([]);
}

const INSTALLED = installedDir();
const SYSTEM_PATH = process.env['PATH'] ?? '/usr/bin:/bin';

describe('doctor with a config', () => {
  it('passes every stage and says who the cluster thinks the credential is', async () => {
    const result = await doctor(['--config', configFile(), ...cluster()]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.slice(0, 1))).toEqual(['✓', '✓', '✓', '✓', '–', '✓']);
    expect(line(result, 'config')).toContain('env API_KEY set');
    expect(line(result, 'token API')).toMatch(
      /POST https:\/\/localhost:\d+\/token: 200 in \d+ ms \(DNS \d+, connect \d+, TLS \d+ ms\); TLS CN=localhost issued by CN=ca, expires \S+, verified by tls\.caFile /,
    );
    expect(line(result, 'credential')).toMatch(
      /token, JWT, \d+ characters: iss https:\/\/issuer\.doctor\.test, sub alice-sub, aud kubernetes, exp \S+, iat \S+; other claims: email, groups; expires at \S+ \(in 3600 s\), reported to kubectl as \S+; this machine's clock agrees with the token API's/,
    );
    expect(line(result, 'cluster')).toContain(
      `${apiserver.url} (v1.33.0-standin): user alice (uid uid-alice-1), groups dev, system:authenticated (authentication.k8s.io/v1 SelfSubjectReview)`,
    );
    expectClean(result);
  });

  it('prints the same as one JSON document with -o json', async () => {
    const result = await doctor(['--config', configFile(), ...cluster(), '-o', 'json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      exitCode: number;
      stages: Array<{ name: string; result: string; details: Record<string, unknown> }>;
    };
    expect(report.exitCode).toBe(0);
    expect(report.stages.map((s) => [s.name, s.result])).toEqual([
      ['source', 'pass'],
      ['config', 'pass'],
      ['token API', 'pass'],
      ['credential', 'pass'],
      ['cache', 'skip'],
      ['cluster', 'pass'],
    ]);
    expect(report.stages[5]!.details['user']).toEqual(ALICE);
    expect((report.stages[3]!.details['token'] as { kind: string }).kind).toBe('JWT');
    expectClean(result);
  });

  it('names the failing stage and its exit code in the JSON document', async () => {
    const result = await doctor(['--config', configFile(), ...cluster(), '-o', 'json'], { API_KEY: 'wrong-key-Zq4' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 3, stderr: '' });
    const report = JSON.parse(result.stdout) as {
      exitCode: number;
      stages: Array<{ name: string; result: string; summary: string; exitCode?: number }>;
    };
    expect(report.exitCode).toBe(3);
    expect(report.stages.map((s) => s.result)).toEqual(['pass', 'pass', 'fail', 'skip', 'skip', 'skip']);
    expect(report.stages[2]).toMatchObject({
      name: 'token API',
      exitCode: 3,
      summary: expect.stringMatching(/^the token API answered 401 Unauthorized/),
    });
    expect(leaks(result, [...SECRETS, 'wrong-key-Zq4'])).toEqual([]);
  });

  it('traces every stage under --verbose, secrets redacted', async () => {
    const result = await doctor(['--config', configFile(), ...cluster(), '-v']);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('x-api-key: [REDACTED]');
    expectClean(result);
  });

  it('says the token API was not called when the cache served the credential, and calls it with --no-cache', async () => {
    const home = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-'));
    const file = configFile();
    const first = await doctor(['--config', file, '--cache'], { API_KEY, HOME: home });
    expect(first.code).toBe(0);
    const requests = tokenApi.requests.length;
    const second = await doctor(['--config', file, '--cache'], { API_KEY, HOME: home });
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(second, 'token API')).toMatch(
      /^– token API +not called: the credential came from the cache \(--no-cache calls the token API\)/,
    );
    expect(line(second, 'credential')).toMatch(
      /^✓ credential +token, JWT, .*; from the cache, reported to kubectl as expiring at \S+/,
    );
    expect(line(second, 'cache')).toMatch(/entry expires in \d+ s .*note: hit/);
    expect(tokenApi.requests.length).toBe(requests);
    const fresh = await doctor(['--config', file, '--no-cache'], { API_KEY, HOME: home });
    expect(line(fresh, 'token API')).toMatch(/^✓ token API +POST /);
    expect(tokenApi.requests.length).toBe(requests + 1);
    expectClean(first);
    expectClean(second);
  });

  it.each([
    ['alive', () => `${process.pid} ${HOST_ID}\n`, /a lock held by pid \d+ \(alive\)/],
    ['gone', () => `999999999 ${HOST_ID}\n`, /a lock held by pid 999999999 \(gone: the next call recovers it\)/],
    [
      'on another host',
      () => '4242 another-host/pid:[1]\n',
      /a lock held by pid 4242 \(on another host or container: recovered by its age\)/,
    ],
  ])('says whether the holder of a lock lives (%s)', async (_who, content, said) => {
    const home = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-'));
    const file = configFile();
    expect((await doctor(['--config', file, '--cache'], { API_KEY, HOME: home })).code).toBe(0);
    const dir = join(home, '.kube', 'cache', 'webapi-credential');
    const entry = readdirSync(dir).find((name) => /^[0-9a-f]{16,}\.json$/.test(name))!;
    writeFileSync(join(dir, entry.replace(/\.json$/, '.lock')), content(), { mode: 0o600 });
    const result = await doctor(['--config', file, '--cache'], { API_KEY, HOME: home });
    expect(result.code).toBe(0);
    expect(line(result, 'cache')).toMatch(said);
    expectClean(result);
  });

  it('says a failure is remembered, when it was, and how to ask again at once', async () => {
    const home = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-'));
    const file = configFile({ cache: { failureTTL: '5m' } });
    const first = await doctor(['--config', file, '--cache'], { API_KEY: 'wrong-key-Rm8', HOME: home });
    expect(first.code).toBe(3);
    const requests = tokenApi.requests.length;
    const second = await doctor(['--config', file, '--cache'], { API_KEY: 'wrong-key-Rm8', HOME: home });
    expect({ code: second.code, stderr: second.stderr }).toEqual({ code: 3, stderr: '' });
    expect(tokenApi.requests.length).toBe(requests);
    expect(line(second, 'token API')).toMatch(
      /^✗ token API +the token API answered 401 Unauthorized: .* \(remembered from \d+s ago until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; webapi-credential cache clear retries now\)/,
    );
    const fresh = await doctor(['--config', file, '--no-cache'], { API_KEY: 'wrong-key-Rm8', HOME: home });
    expect(line(fresh, 'token API')).toMatch(/^✗ token API +the token API answered 401 Unauthorized: [^(]*$/);
    expect(tokenApi.requests.length).toBe(requests + 1);
    for (const result of [first, second, fresh]) expect(leaks(result, [...SECRETS, 'wrong-key-Rm8'])).toEqual([]);
  });

  it('refuses --kubeconfig with --argocd-secret as a usage error', async () => {
    const result = await doctor(['--kubeconfig', 'k', '--argocd-secret', 's']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'webapi-credential: doctor takes --kubeconfig or --argocd-secret, not both\n',
    });
    const config = await doctor(['--kubeconfig', 'k', '--config', 'c.yaml']);
    expect(config).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "webapi-credential: doctor --kubeconfig runs the config options of the exec entry's args; leave --config, --config-inline, --config-from-cluster and --set out\n",
    });
  });

  it('reports the cache entry it stored, with --cache', async () => {
    const result = await doctor(['--config', configFile(), '--cache']);
    expect(result.code).toBe(0);
    expect(line(result, 'cache')).toMatch(/^✓ cache +.*: entry expires in \d+ s \(\S+\); no lock/);
    expect(line(result, 'cluster')).toMatch(/^– cluster +no server known/);
    expectClean(result);
  });

  it.each([
    ['an env value is unset', () => ['--config', configFile()], {}, 2, 'config', /API_KEY/],
    [
      'the token API is down',
      async () => ['--config', configFile({ url: `https://localhost:${await closedPort()}/token` })],
      { API_KEY },
      3,
      'token API',
      /connection to https:\/\/localhost:\d+\/token refused/,
    ],
    [
      'the token API has a certificate of another CA',
      () => ['--config', configFile({ url: `${untrusted.url}/token` })],
      { API_KEY },
      3,
      'token API',
      /TLS handshake .* failed: .*; note: the server sent CN=localhost issued by CN=other-ca; trusted were the system roots plus tls\.caFile \S+ca\.crt/,
    ],
    [
      'the token API refuses the client (401)',
      () => ['--config', configFile()],
      { API_KEY: 'wrong-key' },
      3,
      'token API',
      /the token API answered 401 Unauthorized: .*invalid_client/,
    ],
    [
      'tokenPath has a typo',
      () => ['--config', configFile({ tokenPath: '$.acces_token' })],
      { API_KEY },
      4,
      'credential',
      /tokenPath \$\.acces_token matched nothing/,
    ],
  ])('stops at the stage that fails when %s', async (_why, args, env, code, stage, message) => {
    const result = await doctor(await args(), env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code, stderr: '' });
    expect(line(result, stage)).toMatch(new RegExp(`^✗ ${stage} `));
    expect(line(result, stage)).toMatch(message);
    // Every stage after it is skipped, and says why.
    const after = result.stdout
      .trimEnd()
      .split('\n')
      .slice(result.stdout.split('\n').indexOf(line(result, stage)) + 1);
    for (const skipped of after) expect(skipped).toMatch(new RegExp(`^– .*not run: ${stage} failed`));
    expectClean(result);
  });

  it('fails the cluster stage with exit 3 when the cluster refuses the credential', async () => {
    const refusing = await apiServer({ accepts: () => undefined });
    const result = await doctor(['--config', configFile(), ...cluster(refusing)]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 3, stderr: '' });
    expect(line(result, 'cluster')).toMatch(
      /^✗ cluster +the cluster does not accept this credential \(401 Unauthorized from https:\/\/127\.0\.0\.1:\d+\/apis\/authentication\.k8s\.io\/v1\/selfsubjectreviews\): check that its audience, issuer and expiry/,
    );
    expect(line(result, 'credential')).toMatch(/^✓ credential/);
    expectClean(result);
  });

  it('shows what a cluster names a user as text: its control characters escaped, none reaches the terminal', async () => {
    const hostile = await apiServer({
      accepts: () => ({ username: 'eve\u001b[2K\rroot', uid: 'u\u009b1m', groups: ['dev\u0007'] }),
    });
    const result = await doctor(['--config', configFile(), ...cluster(hostile)]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'cluster')).toContain('user eve\\u001b[2K\\rroot (uid u\\u009b1m), groups dev\\u0007 (');
    expect(result.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expectClean(result);
    // JSON escapes C0 itself; C1 (the 8-bit CSI) is escaped too, and the value reads back the same.
    const json = await doctor(['--config', configFile(), ...cluster(hostile), '-o', 'json']);
    expect(json.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const report = JSON.parse(json.stdout) as { stages: Array<{ name: string; details: { user?: { uid?: string } } }> };
    expect(report.stages.find((s) => s.name === 'cluster')!.details.user!.uid).toBe('u\u009b1m');
  });

  it.each([
    [
      'never answers',
      'hang',
      /^✗ cluster +no answer from the cluster at https:\/\/localhost:\d+\/version within the deadline \(--timeout\)$/,
    ],
    ['answers 2 MiB', 'huge', /^✗ cluster +the cluster at https:\/\/localhost:\d+\/version answered more than 1 MiB$/],
  ])('bounds the cluster stage when the cluster %s: exit 3 within --timeout', async (_what, mode, said) => {
    const cluster = await startTokenApi((_request, response) => {
      if (mode === 'huge') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(`{"gitVersion":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      }
      // 'hang': no answer, ever.
    });
    servers.push(cluster);
    const result = await doctor([
      '--config',
      configFile(),
      '--server',
      cluster.url,
      '--ca-file',
      pki.ca.certFile,
      '--timeout',
      '3s',
    ]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 3, stderr: '' });
    expect(line(result, 'cluster')).toMatch(said);
    expectClean(result);
  });

  it('passes with a note when the API server has no SelfSubjectReview (404), and asks v1beta1 after v1', async () => {
    const none = await apiServer({ selfSubjectReview: [] });
    const result = await doctor(['--config', configFile(), ...cluster(none)]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'cluster')).toMatch(
      /^✓ cluster .*the credential was not refused; .*note: the API server has no SelfSubjectReview \(older than 1\.28, or the API is disabled\)/,
    );
    expect(none.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'GET /version 200',
      'POST /apis/authentication.k8s.io/v1/selfsubjectreviews 404',
      'POST /apis/authentication.k8s.io/v1beta1/selfsubjectreviews 404',
    ]);
    const beta = await apiServer({ selfSubjectReview: ['v1beta1'] });
    const older = await doctor(['--config', configFile(), ...cluster(beta)]);
    expect(older.code).toBe(0);
    expect(line(older, 'cluster')).toContain(
      'user alice (uid uid-alice-1), groups dev, system:authenticated (authentication.k8s.io/v1beta1 SelfSubjectReview)',
    );
    expectClean(result);
    expectClean(older);
  });

  it('warns when the token API clock and this one are minutes apart (its Date header)', async () => {
    const result = await doctor(['--config', configFile({ url: `${tokenApi.url}/skewed` }), ...cluster()]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'credential')).toMatch(
      /^✓ credential .*; warning: this machine's clock is 30\d s ahead of the token API's \(its Date header\); client-go trusts the local clock/,
    );
    expectClean(result);
  });

  it('fails the cluster stage with exit 2 for a server that is not an https:// URL', async () => {
    const result = await doctor(['--config', configFile(), '--server', 'http://127.0.0.1:1']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: '' });
    expect(line(result, 'cluster')).toBe(
      '✗ cluster     the cluster\'s server "http://127.0.0.1:1" is not an https:// URL: doctor asks only an API server it can authenticate',
    );
    expectClean(result);
  });

  it('fails the source stage when no config is given', async () => {
    const result = await doctor([]);
    expect(result.code).toBe(2);
    expect(line(result, 'source')).toMatch(/^✗ source +no config: pass --config/);
    expectClean(result);
  });
});

describe('doctor with what the generators wrote', () => {
  async function generated(command: 'kubeconfig' | 'argocd-secret', extra: string[] = []): Promise<string> {
    const args = [
      command,
      '--server',
      apiserver.url,
      '--ca-file',
      apiserver.caFile,
      '--config',
      configFile(),
      '--name',
      'doctor',
      ...extra,
    ];
    const printed = await runCli(args, { env: {} });
    expect(printed.code, printed.stderr).toBe(0);
    return printed.stdout;
  }

  it('passes every stage for a kubeconfig from `kubeconfig`, the command found on the PATH', async () => {
    const kubeconfig = writeTemp('kubeconfig.yaml', await generated('kubeconfig', ['--cache']));
    const result = await doctor(['--kubeconfig', kubeconfig], { API_KEY, PATH: `${INSTALLED}:${SYSTEM_PATH}` });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.slice(0, 1)),
    ).toEqual(['✓', '✓', '✓', '✓', '✓', '✓']);
    expect(line(result, 'source')).toMatch(
      new RegExp(
        `^✓ source +kubeconfig ${kubeconfig}, context doctor \\(user doctor\\): runs ${INSTALLED}/webapi-credential \\(version [^)]+\\); apiVersion client.authentication.k8s.io/v1; args --config --cache; env \\(none\\); provideClusterInfo false; interactiveMode Never`,
      ),
    );
    expect(line(result, 'cache')).toMatch(/entry expires in \d+ s/);
    expect(line(result, 'cluster')).toContain('user alice (uid uid-alice-1)');
    expectClean(result);
  });

  // Its words are the plugin's frame: were a word of them that a comparison in the config chose
  // ("runs", "version") read [REDACTED] for one secret and not another, each run would tell one bit.
  it.each([
    ['runs', 'other'],
    ['version', 'other'],
  ])('the source line reads the same whether the secret chose %s or %s', async (yes, no) => {
    const file = configFile({
      headers: { 'x-api-key': '{{ env.API_KEY }}', 'X-Word': `{{ env.API_KEY < env.T ? '${yes}' : '${no}' }}` },
    });
    const printed = await runCli(
      ['kubeconfig', '--server', apiserver.url, '--ca-file', apiserver.caFile, '--config', file, '--name', 'doctor'],
      { env: { API_KEY, T: 'a' } },
    );
    expect(printed.code, printed.stderr).toBe(0);
    const kubeconfig = writeTemp('kubeconfig.yaml', printed.stdout);
    const sources: string[] = [];
    for (const T of ['a', 'z']) {
      const result = await doctor(['--kubeconfig', kubeconfig], { API_KEY, T, PATH: `${INSTALLED}:${SYSTEM_PATH}` });
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expectClean(result);
      sources.push(line(result, 'source'));
    }
    expect(sources[0]).toMatch(
      new RegExp(
        `^✓ source +kubeconfig ${kubeconfig}, context doctor \\(user doctor\\): runs ${INSTALLED}/webapi-credential \\(version [^)]+\\); apiVersion client.authentication.k8s.io/v1; args --config --cache; env \\(none\\); provideClusterInfo false; interactiveMode Never$`,
      ),
    );
    expect(sources[1]).toBe(sources[0]);
  });

  it('passes for a kubeconfig with the config embedded (provideClusterInfo)', async () => {
    const kubeconfig = writeTemp('kubeconfig.yaml', await generated('kubeconfig', ['--embed-config']));
    const result = await doctor(['--kubeconfig', kubeconfig, '--context', 'doctor'], {
      API_KEY,
      PATH: `${INSTALLED}:${SYSTEM_PATH}`,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'source')).toMatch(
      /args --config-from-cluster( --cache)?; env \(none\); provideClusterInfo true;/,
    );
    expect(line(result, 'config')).toContain('KUBERNETES_EXEC_INFO spec.cluster.config');
    expectClean(result);
  });

  it('shares one credential between two clusters behind one token API (the key has no cluster unless a template reads it)', async () => {
    const second = await apiServer();
    const home = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-'));
    const file = configFile();
    const kubeconfigFor = async (server: ApiServer, name: string) => {
      const printed = await runCli(
        [
          'kubeconfig',
          '--server',
          server.url,
          '--ca-file',
          server.caFile,
          '--config',
          file,
          '--name',
          name,
          '--embed-config',
        ],
        { env: {} },
      );
      expect(printed.code, printed.stderr).toBe(0);
      return writeTemp('kubeconfig.yaml', printed.stdout);
    };
    const env = { API_KEY, HOME: home, PATH: `${INSTALLED}:${SYSTEM_PATH}` };
    const requests = tokenApi.requests.length;
    const first = await doctor(['--kubeconfig', await kubeconfigFor(apiserver, 'one')], env);
    const other = await doctor(['--kubeconfig', await kubeconfigFor(second, 'two')], env);
    for (const result of [first, other])
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(first, 'token API')).toMatch(/^✓ token API +POST /);
    expect(line(other, 'token API')).toMatch(/^– token API +not called: the credential came from the cache/);
    expect(line(other, 'cluster')).toContain(`${second.url} (v1.33.0-standin): user alice`);
    expect(tokenApi.requests.length).toBe(requests + 1);
    expectClean(first);
    expectClean(other);
  });

  it('passes for what `kubeconfig --merge --use` wrote into a kubeconfig holding other entries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-merge-'));
    const kubeconfig = join(dir, 'config');
    writeFileSync(
      kubeconfig,
      '# mine\napiVersion: v1\nkind: Config\nclusters:\n- name: other\n  cluster: {server: https://other.example}\nusers:\n- name: other\n  user: {token: other-static-token}\ncontexts:\n- name: other\n  context: {cluster: other, user: other}\ncurrent-context: other\n',
    );
    const merged = await runCli(
      [
        'kubeconfig',
        '--server',
        apiserver.url,
        '--ca-file',
        apiserver.caFile,
        '--config',
        configFile(),
        '--name',
        'merged',
        '--merge',
        kubeconfig,
        '--use',
      ],
      { env: {} },
    );
    expect(merged.code, merged.stderr).toBe(0);
    const result = await doctor(['--kubeconfig', kubeconfig], { API_KEY, PATH: `${INSTALLED}:${SYSTEM_PATH}` });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'source')).toMatch(
      new RegExp(
        `^✓ source +kubeconfig ${kubeconfig}, context merged \\(user merged\\): runs ${INSTALLED}/webapi-credential`,
      ),
    );
    expect(line(result, 'cluster')).toContain(`${apiserver.url} (v1.33.0-standin): user alice`);
    expect(leaks(result, [...SECRETS, 'other-static-token'])).toEqual([]);
  });

  it('fails the source stage with exit 2 when the command is not on the PATH', async () => {
    const kubeconfig = writeTemp('kubeconfig.yaml', await generated('kubeconfig'));
    const result = await doctor(['--kubeconfig', kubeconfig], { API_KEY, PATH: '/usr/bin:/bin' });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: '' });
    expect(line(result, 'source')).toMatch(
      /^✗ source +kubeconfig \S+, context doctor \(user doctor\): webapi-credential is not on the PATH: install it in a directory of the PATH, or set exec\.command to its absolute path$/,
    );
    expectClean(result);
  });

  // A config is data: a kubeconfig someone else wrote names any program (and env for it, LD_PRELOAD
  // included); doctor finds out whether it is this program by the file, never by running it.
  it.each([
    ['on the PATH', (dir: string) => ({ PATH: `${dir}:${SYSTEM_PATH}` }), 'webapi-credential'],
    ['beside the kubeconfig (a relative command)', () => ({}), './webapi-credential'],
  ])(
    'does not run a command %s that is another program, even one answering --version as this one',
    async (_where, pathEnv, command) => {
      const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-other-'));
      const marker = join(dir, 'ran');
      const version = (await runCli(['--version'], { env: {} })).stdout.trim();
      writeFileSync(join(dir, 'webapi-credential'), `#!/bin/sh\ntouch ${marker}\necho '${version}'\n`, { mode: 0o755 });
      const kubeconfig = join(dir, 'kubeconfig.yaml');
      writeFileSync(
        kubeconfig,
        (await generated('kubeconfig')).replace('command: webapi-credential', `command: ${command}`),
      );
      const result = await doctor(['--kubeconfig', kubeconfig], { API_KEY, ...pathEnv(dir) });
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: '' });
      expect(line(result, 'source')).toMatch(
        new RegExp(
          `^✗ source +kubeconfig \\S+, context doctor \\(user doctor\\): ${dir}/webapi-credential is not this program \\(\\S+\\); doctor runs no program a kubeconfig names: if it is webapi-credential, run its own doctor \\(${dir}/webapi-credential doctor --kubeconfig \\S+\\)$`,
        ),
      );
      expect(existsSync(marker)).toBe(false);
      expectClean(result);
    },
  );

  it('passes every stage for an Argo CD secret from `argocd-secret` once its placeholder holds the value', async () => {
    const secret = (await generated('argocd-secret')).replace('<API_KEY>', API_KEY);
    const result = await doctor(['--argocd-secret', writeTemp('secret.yaml', secret)], {});
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'source')).toMatch(
      /^✓ source +Argo CD secret \S+ \(cluster doctor\): runs \/custom-tools\/webapi-credential; apiVersion client.authentication.k8s.io\/v1beta1; args --config-inline; env API_KEY; .*note: \/custom-tools\/webapi-credential is a path in the Argo CD containers/,
    );
    expect(line(result, 'cluster')).toContain('user alice');
    expectClean(result);
  });

  it("runs an Argo CD secret from `argocd-secret --cache`: its cache dir is the containers' emptyDir, not here", async () => {
    const secret = (await generated('argocd-secret', ['--cache'])).replace('<API_KEY>', API_KEY);
    const home = mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-'));
    const result = await doctor(['--argocd-secret', writeTemp('secret.yaml', secret)], { HOME: home });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(line(result, 'source')).toMatch(
      /args --config-inline --cache --cache-dir; .*; note: --cache-dir \/webapi-credential-cache\/credentials is the Argo CD containers' emptyDir: doctor caches in its own directory here \(doctor --cache-dir chooses it\)/,
    );
    expect(line(result, 'cache')).toMatch(
      new RegExp(`^✓ cache +${home}/\\.kube/cache/webapi-credential: entry expires in \\d+ s`),
    );
    expectClean(result);
  });

  it('fails the source stage with exit 2 when the Argo CD secret still holds its placeholder', async () => {
    const result = await doctor(['--argocd-secret', writeTemp('secret.yaml', await generated('argocd-secret'))], {});
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: '' });
    expect(line(result, 'source')).toBe(
      '✗ source      env.API_KEY still holds the placeholder <API_KEY> that argocd-secret wrote; put the real value in the cluster secret',
    );
    expectClean(result);
  });
});

// At a terminal (util-linux `script` gives one), --login on an exec entry that says interactiveMode:
// Never is refused before any login: kubectl would never let the plugin prompt there.
describeWith(SCRIPT)('doctor --login at a terminal on a kubeconfig', () => {
  it('refuses an exec entry that says interactiveMode: Never, exit 2, naming the entry and what to do', async () => {
    const printed = await runCli(
      [
        'kubeconfig',
        '--server',
        apiserver.url,
        '--ca-file',
        apiserver.caFile,
        '--config',
        configFile(),
        '--name',
        'doctor',
      ],
      { env: {} },
    );
    expect(printed.code, printed.stderr).toBe(0);
    const kubeconfig = writeTemp('kubeconfig-never.yaml', printed.stdout);
    const { code: exit, output } = await atTerminal(
      [...cliCommand(), 'doctor', '--login', '--kubeconfig', kubeconfig],
      {
        PATH: `${INSTALLED}:${SYSTEM_PATH}`,
        HOME: mkdtempSync(join(tmpdir(), 'webapi-credential-doctor-home-')),
        TERM: 'dumb',
        API_KEY,
      },
    ).done;
    const lines = output.replace(/\r\n/g, '\n').trimEnd().split('\n');
    expect({ exit, source: lines[0] }).toEqual({
      exit: 2,
      source: `✗ source      doctor --login: kubeconfig ${kubeconfig}, context doctor (user doctor) says interactiveMode: Never, so kubectl never lets the plugin prompt; log in with webapi-credential login, or set interactiveMode: IfAvailable`,
    });
    // No login ran: every stage after the source is not run.
    expect(lines.slice(1).every((line) => line.endsWith('not run: source failed'))).toBe(true);
    expect(output).not.toContain(API_KEY);
  }, 30_000);
});
