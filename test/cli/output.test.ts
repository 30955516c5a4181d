// What the CLI prints on success: the ExecCredential byte for byte (apiVersion, expiry, token and
// certificate fields), --output token, and where the config and the template values come from.
// In process (the CLI's run() with main.ts's real deps) against real token APIs; --version and --help
// of the built CLI are test/integration/version-help.test.ts.
import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CliResult } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { fakeJwt, json, type Handler } from '../helpers/token-api.js';
import {
  SECRET,
  SECRET_ENV,
  V1,
  V1BETA1,
  basic,
  execCredential,
  execInfo,
  expectSuccess,
  provider,
  rfc3339,
  tokenApis,
  writeTemp,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };
const issue =
  (body: Record<string, unknown>): Handler =>
  (_req, res) =>
    json(res, 200, body);
const TOKEN_ONLY = { token: SECRET.token };

/** Runs with the config and returns the result and the clock around the run. */
async function timedRun(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ result: CliResult; before: number; after: number }> {
  const before = Date.now();
  const result = await runInProcess(args, { env: { ...SECRET_ENV, ...env } });
  return { result, before, after: Date.now() };
}

/** The expirationTimestamp the CLI printed, asserted to lie between the two instants it could have computed. */
function expectExpiryBetween(result: CliResult, earliest: number, latest: number): void {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  const printed = (JSON.parse(result.stdout) as { status: { expirationTimestamp: string } }).status.expirationTimestamp;
  expect(printed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  expect(Date.parse(printed)).toBeGreaterThanOrEqual(Date.parse(rfc3339(earliest)));
  expect(Date.parse(printed)).toBeLessThanOrEqual(Date.parse(rfc3339(latest)));
}

describe.concurrent('the apiVersion of the ExecCredential', () => {
  it.each([
    { when: 'KUBERNETES_EXEC_INFO is absent', env: {}, args: [], want: V1BETA1 },
    { when: 'KUBERNETES_EXEC_INFO asks for v1', env: { KUBERNETES_EXEC_INFO: execInfo(V1) }, args: [], want: V1 },
    {
      when: 'KUBERNETES_EXEC_INFO asks for v1beta1',
      env: { KUBERNETES_EXEC_INFO: execInfo(V1BETA1) },
      args: [],
      want: V1BETA1,
    },
    { when: '--api-version asks for v1', env: {}, args: ['--api-version', V1], want: V1 },
    {
      when: '--api-version agrees with KUBERNETES_EXEC_INFO',
      env: { KUBERNETES_EXEC_INFO: execInfo(V1) },
      args: ['--api-version', V1],
      want: V1,
    },
  ])('is $want when $when', async ({ env, args, want }) => {
    const api = await startApi(issue({ access_token: SECRET.token }));
    const { result } = await timedRun(['--config-inline', provider(basic(`${api.url}/token`, { tls })), ...args], env);
    expectSuccess(result, execCredential(TOKEN_ONLY, want));
  });
});

describe.concurrent('the expirationTimestamp', () => {
  const exact = [
    {
      from: 'an RFC 3339 expiryPath',
      body: { expires_at: '2030-01-02T03:04:05Z' },
      config: { expiryPath: '$.expires_at' },
      want: '2030-01-02T03:03:05Z',
    },
    {
      from: 'an RFC 3339 expiryPath with an offset and fractions',
      body: { expires_at: '2030-01-02T05:04:05.999+02:00' },
      config: { expiryPath: '$.expires_at' },
      want: '2030-01-02T03:03:05Z',
    },
    {
      from: 'an expiryPath in unix seconds',
      body: { exp: 1893553445 },
      config: { expiryPath: '$.exp' },
      want: '2030-01-02T03:03:05Z',
    },
    {
      from: 'an expiryPath in unix milliseconds',
      body: { exp: 1893553445000 },
      config: { expiryPath: '$.exp' },
      want: '2030-01-02T03:03:05Z',
    },
    {
      from: 'an expiryPath in unix seconds as a string',
      body: { exp: '1893553445' },
      config: { expiryPath: '{.exp}' },
      want: '2030-01-02T03:03:05Z',
    },
    {
      from: 'an expiryPath with an expiryMargin of 5m',
      body: { expires_at: '2030-01-02T03:04:05Z' },
      config: { expiryPath: '$.expires_at', expiryMargin: '5m' },
      want: '2030-01-02T02:59:05Z',
    },
  ];
  it.each(exact)('comes from $from, the margin before the real expiry', async ({ body, config, want }) => {
    const api = await startApi(issue({ access_token: SECRET.token, ...body }));
    const { result } = await timedRun(['--config-inline', provider(basic(`${api.url}/token`, { tls, ...config }))]);
    expectSuccess(result, execCredential({ token: SECRET.token, expirationTimestamp: want }));
  });

  it('comes from a JWT exp claim, the margin before it', async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600;
    const jwt = fakeJwt(exp, { aud: 'kubernetes' });
    const api = await startApi(issue({ access_token: jwt }));
    const { result } = await timedRun(['--config-inline', provider(basic(`${api.url}/token`, { tls }))]);
    expectSuccess(result, execCredential({ token: jwt, expirationTimestamp: rfc3339((exp - 60) * 1000) }));
  });

  it('prefers expiresInPath over the JWT exp claim', async () => {
    const jwt = fakeJwt(Math.floor(Date.now() / 1000) + 86_400);
    const api = await startApi(issue({ access_token: jwt, expires_in: 600 }));
    const { result, before, after } = await timedRun([
      '--config-inline',
      provider(basic(`${api.url}/token`, { tls, expiresInPath: '$.expires_in' })),
    ]);
    expectExpiryBetween(result, before + 540_000, after + 540_000);
  });

  it('is left out for a JWT when expiryFromJWT is false', async () => {
    const jwt = fakeJwt(Math.floor(Date.now() / 1000) + 3600);
    const api = await startApi(issue({ access_token: jwt }));
    const { result } = await timedRun([
      '--config-inline',
      provider(basic(`${api.url}/token`, { tls, expiryFromJWT: false })),
    ]);
    expectSuccess(result, execCredential({ token: jwt }));
  });

  it.each([
    { form: 'a number', expiresIn: 3600 },
    { form: 'a numeric string', expiresIn: '3600' },
  ])('comes from expires_in given as $form, counted from the call', async ({ expiresIn }) => {
    const api = await startApi(issue({ access_token: SECRET.token, expires_in: expiresIn }));
    const { result, before, after } = await timedRun([
      '--config-inline',
      provider(basic(`${api.url}/token`, { tls, expiresInPath: '$.expires_in' })),
    ]);
    expectExpiryBetween(result, before + 3_540_000, after + 3_540_000);
  });

  it('is half the lifetime early when that is shorter than the margin', async () => {
    const api = await startApi(issue({ access_token: SECRET.token, expires_in: 60 }));
    const { result, before, after } = await timedRun([
      '--config-inline',
      provider(basic(`${api.url}/token`, { tls, expiresInPath: '$.expires_in' })),
    ]);
    expectExpiryBetween(result, before + 30_000, after + 30_000);
  });
});

describe.concurrent('the credential', () => {
  const cert = pki.client.cert;
  const key = pki.client.key;
  const certExpiry = rfc3339(Date.parse(new X509Certificate(cert).validTo) - 60_000);
  const paths = {
    clientCertificateDataPath: '$.status.credential.clientCertificateData',
    clientKeyDataPath: '$.status.credential.clientKeyData',
  };
  const response = { status: { credential: { clientCertificateData: cert, clientKeyData: key } } };

  it('prints the bare token and a newline with --output token', async () => {
    const api = await startApi(issue({ access_token: SECRET.token, expires_in: 3600 }));
    const { result } = await timedRun([
      '--config-inline',
      provider(basic(`${api.url}/token`, { tls, expiresInPath: '$.expires_in' })),
      '-o',
      'token',
    ]);
    expectSuccess(result, `${SECRET.token}\n`);
  });

  it('is a client certificate and key, expiring with the certificate, when only the certificate paths are set', async () => {
    const api = await startApi(issue(response));
    const config = { method: 'POST', url: `${api.url}/token`, tls, ...paths };
    const { result } = await timedRun(['--config-inline', provider(config)]);
    expectSuccess(
      result,
      execCredential({ clientCertificateData: cert, clientKeyData: key, expirationTimestamp: certExpiry }),
    );
  });

  it('is a token and a client certificate when both kinds of path are set', async () => {
    const api = await startApi(issue({ ...response, access_token: SECRET.token, expires_at: '2030-01-02T03:04:05Z' }));
    const config = basic(`${api.url}/token`, { tls, expiryPath: '$.expires_at', ...paths });
    const { result } = await timedRun(['--config-inline', provider(config)]);
    expectSuccess(
      result,
      execCredential({
        token: SECRET.token,
        clientCertificateData: cert,
        clientKeyData: key,
        expirationTimestamp: '2030-01-02T03:03:05Z',
      }),
    );
  });
});

describe.concurrent('where the config and the template values come from', () => {
  const cluster = (url: string) => ({
    server: 'https://apiserver.example:6443',
    'certificate-authority-data': Buffer.from(pki.ca.cert).toString('base64'),
    config: {
      otherTool: { ignored: true },
      webAPIProviderConfig: basic(`${url}/exec-info`, { tls, query: { audience: '{{ cluster.server }}' } }),
    },
  });

  it('reads webAPIProviderConfig from the cluster extension in KUBERNETES_EXEC_INFO, with cluster.server in templates', async () => {
    const api = await startApi(issue({ access_token: SECRET.token }));
    const { result } = await timedRun(['--config-from-cluster'], {
      KUBERNETES_EXEC_INFO: execInfo(V1, cluster(api.url)),
    });
    expectSuccess(result, execCredential(TOKEN_ONLY, V1));
    expect(api.requests.map((r) => r.url)).toEqual(['/exec-info?audience=https%3A%2F%2Fapiserver.example%3A6443']);
  });

  const sources = [
    '--config-inline',
    '--config',
    'WEBAPI_CREDENTIAL_CONFIG_INLINE',
    'WEBAPI_CREDENTIAL_CONFIG',
    'KUBERNETES_EXEC_INFO',
  ];
  it.each(sources.map((winner, i) => ({ winner, present: sources.slice(i) })))(
    'takes the config from $winner over the sources after it',
    async ({ winner, present }) => {
      const api = await startApi(issue({ access_token: SECRET.token }));
      const at = (path: string) => provider(basic(`${api.url}/${path}`, { tls }));
      const args: string[] = ['--config-from-cluster'];
      const env: Record<string, string> = {};
      if (present.includes('--config-inline')) args.push('--config-inline', at('--config-inline'));
      if (present.includes('--config')) args.push('--config', writeTemp('config.json', at('--config')));
      if (present.includes('WEBAPI_CREDENTIAL_CONFIG_INLINE'))
        env['WEBAPI_CREDENTIAL_CONFIG_INLINE'] = at('WEBAPI_CREDENTIAL_CONFIG_INLINE');
      if (present.includes('WEBAPI_CREDENTIAL_CONFIG'))
        env['WEBAPI_CREDENTIAL_CONFIG'] = writeTemp('env.json', at('WEBAPI_CREDENTIAL_CONFIG'));
      const exec = {
        ...cluster(api.url),
        config: { webAPIProviderConfig: basic(`${api.url}/KUBERNETES_EXEC_INFO`, { tls }) },
      };
      env['KUBERNETES_EXEC_INFO'] = execInfo(V1, exec);
      const { result } = await timedRun(args, env);
      expectSuccess(result, execCredential(TOKEN_ONLY, V1));
      expect(api.requests.map((r) => r.path)).toEqual([`/${winner}`]);
    },
  );

  it('reads a YAML config file written as in the proposal, comments and all', async () => {
    const api = await startApi(issue({ access_token: SECRET.token }));
    const yaml = [
      '# the Argo CD webAPIProviderConfig block',
      'webAPIProviderConfig:',
      '  method: POST',
      `  url: ${api.url}/token?aud={{ vars.audience }}`,
      '  tokenPath: $.access_token',
      '  headers:',
      '    Authorization: "Bearer {{ env.API_KEY }}"',
      '  form:',
      '    grant_type: client_credentials',
      '    audience: [ "upbound:spaces:api", "upbound:spaces:controlplanes" ]',
      '  tls:',
      `    caFile: ${pki.ca.certFile}`,
      '  timeout: 5s',
      '',
    ].join('\n');
    const { result } = await timedRun(['-c', writeTemp('config.yaml', yaml), '--set', 'audience=spaces']);
    expectSuccess(result, execCredential(TOKEN_ONLY));
    const [request] = api.requests;
    expect(request!.url).toBe('/token?aud=spaces');
    expect(request!.headers['authorization']).toBe(`Bearer ${SECRET.apiKey}`);
    expect(request!.body).toBe(
      'grant_type=client_credentials&audience=upbound%3Aspaces%3Aapi&audience=upbound%3Aspaces%3Acontrolplanes',
    );
  });

  it('passes --set values to templates, keeping every = after the first and the last of a repeated key', async () => {
    const api = await startApi(issue({ access_token: SECRET.token }));
    const config = basic(`${api.url}/token`, {
      tls,
      method: 'GET',
      query: { scope: '{{ vars.scope }}', org: '{{ vars.org }}', d: '{{ vars.missing ?? "default" }}' },
    });
    const { result } = await timedRun([
      '--config-inline',
      provider(config),
      '--set',
      'scope=a=b',
      '--set',
      'org=first',
      '--set',
      'org=second',
    ]);
    expectSuccess(result, execCredential(TOKEN_ONLY));
    expect(api.requests[0]!.url).toBe('/token?scope=a%3Db&org=second&d=default');
  });
});
