// validate and render (no network, secrets shown as [REDACTED]) and the --verbose trace.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json } from '../helpers/token-api.js';
import {
  PREFIX,
  SECRET,
  SECRET_ENV,
  V1,
  allSecrets,
  basic,
  execCredential,
  execInfo,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
  writeTemp,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const secretFile = writeTemp('mounted-secret', `${SECRET.file}\n`);
const ANSWER = { access_token: SECRET.token, expires_at: '2030-01-02T03:04:05Z' };
const issueToken = () => startApi((_req, res) => json(res, 200, ANSWER));

/** A config that puts every secret somewhere: url query, headers (one derived), form body. */
const everywhere = (url: string, extra: Record<string, unknown> = {}) =>
  basic(`${url}/token`, {
    tls: { caFile: pki.ca.certFile },
    expiryPath: '$.expires_at',
    query: { key: '{{ env.FORM_SECRET }}', aud: '{{ vars.aud }}' },
    headers: {
      Authorization: 'Basic {{ base64(env.API_KEY + ":" + env.FORM_SECRET) }}',
      'X-File': `{{ file(${JSON.stringify(secretFile)}) }}`,
    },
    form: { client_secret: '{{ env.FORM_SECRET }}', note: '{{ env.JSON_SECRET }}', grant_type: 'client_credentials' },
    ...extra,
  });

const basicAuth = Buffer.from(`${SECRET.apiKey}:${SECRET.form}`).toString('base64');
const run = (args: string[], env: Record<string, string> = {}) =>
  runInProcess(args, { env: { ...SECRET_ENV, ...env } });

describe.concurrent('validate', () => {
  it('says the config is valid and names the request, without calling the API', async () => {
    const api = await issueToken();
    const result = await run(['validate', '--config-inline', provider(everywhere(api.url)), '--set', 'aud=spaces']);
    expectSuccess(
      result,
      `config from --config-inline is valid: POST ${api.url}/token?key=[REDACTED]&aud=spaces\n`,
      '',
      allSecrets([basicAuth]),
    );
    expect(api.requests).toHaveLength(0);
  });

  it('validates the config from KUBERNETES_EXEC_INFO', async () => {
    const api = await issueToken();
    const cluster = {
      server: 'https://apiserver.example:6443',
      config: { webAPIProviderConfig: basic(`${api.url}/token`) },
    };
    const result = await run(['validate', '--config-from-cluster'], { KUBERNETES_EXEC_INFO: execInfo(V1, cluster) });
    expectSuccess(result, `config from KUBERNETES_EXEC_INFO spec.cluster.config is valid: POST ${api.url}/token\n`);
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 2 on an invalid config, without calling the API', async () => {
    const api = await issueToken();
    const result = await run([
      'validate',
      '--config-inline',
      provider(basic(`${api.url}/token`, { retry: { limit: 11 } })),
    ]);
    expectFailure(
      result,
      2,
      'config from --config-inline is invalid: webAPIProviderConfig.retry.limit: expected an integer from 0 to 10, found number 11',
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe.concurrent('render', () => {
  it('prints the request it would send with every secret as [REDACTED], without calling the API', async () => {
    const api = await issueToken();
    const result = await run(['render', '--config-inline', provider(everywhere(api.url)), '--set', 'aud=spaces']);
    expectSuccess(
      result,
      [
        `POST ${api.url}/token?key=[REDACTED]&aud=spaces`,
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/x-www-form-urlencoded',
        'Authorization: Basic [REDACTED]',
        'X-File: [REDACTED]',
        '',
        'client_secret=[REDACTED]&note=[REDACTED]&grant_type=client_credentials',
        '',
      ].join('\n'),
      '',
      allSecrets([basicAuth]),
    );
    expect(api.requests).toHaveLength(0);
  });

  it('prints a JSON body with its secret leaves redacted and --set values shown', async () => {
    const api = await issueToken();
    const config = basic(`${api.url}/token`, {
      json: { spec: { secret: '{{ env.JSON_SECRET }}', audience: '{{ vars.aud }}' } },
    });
    const result = await run(['render', '--config-inline', provider(config), '--set', 'aud=spaces']);
    expectSuccess(
      result,
      [
        `POST ${api.url}/token`,
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/json',
        '',
        '{"spec":{"secret":"[REDACTED]","audience":"spaces"}}',
        '',
      ].join('\n'),
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 2 when a template reads an unset env var', async () => {
    const api = await issueToken();
    const result = await runInProcess(
      ['render', '--config-inline', provider(everywhere(api.url)), '--set', 'aud=spaces'],
      { env: { API_KEY: SECRET.apiKey } },
    );
    expectFailure(
      result,
      2,
      // Every missing value at once, each once.
      'webAPIProviderConfig.query.key: {{ env.FORM_SECRET }}: env.FORM_SECRET is not set (set it in the environment or the kubeconfig exec env); ' +
        'webAPIProviderConfig.form.note: {{ env.JSON_SECRET }}: env.JSON_SECRET is not set (set it in the environment or the kubeconfig exec env)',
    );
    expect(api.requests).toHaveLength(0);
  });
});

describe.concurrent('--verbose', () => {
  it('traces the redacted request and the answer on stderr while stdout stays one ExecCredential', async () => {
    const api = await issueToken();
    const result = await run(['--verbose', '--config-inline', provider(everywhere(api.url)), '--set', 'aud=spaces']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(execCredential({ token: SECRET.token, expirationTimestamp: '2030-01-02T03:03:05Z' }));
    const lines = result.stderr.split('\n');
    expect(lines.slice(0, 10)).toEqual([
      `${PREFIX}config from --config-inline`,
      `${PREFIX}request:`,
      `  POST ${api.url}/token?key=[REDACTED]&aud=spaces`,
      '  accept: application/json',
      '  user-agent: webapi-credential/0.1.0',
      '  content-type: application/x-www-form-urlencoded',
      '  Authorization: Basic [REDACTED]',
      '  X-File: [REDACTED]',
      '  ',
      '  client_secret=[REDACTED]&note=[REDACTED]&grant_type=client_credentials',
    ]);
    expect(lines[10]).toMatch(
      new RegExp(`^${PREFIX}answer 200 after \\d+ ms, ${JSON.stringify(ANSWER).length} bytes$`),
    );
    expect(lines.slice(11)).toEqual([`${PREFIX}credential extracted, reported to expire at 2030-01-02T03:03:05Z`, '']);
    expect(result.stderr).not.toContain(SECRET.token);
    expect(api.requests).toHaveLength(1);
  });

  it('traces each retry under --verbose, and adds no stack trace to an ordinary failure', async () => {
    const api = await startApi((req, res) => json(res, 503, `unavailable for ${req.headers['authorization']}`));
    const config = provider(everywhere(api.url, { retry: { limit: 1 } }));
    const [verbose, quiet] = await Promise.all([
      run(['-v', '--config-inline', config, '--set', 'aud=spaces']),
      run(['--config-inline', config, '--set', 'aud=spaces']),
    ]);
    const message =
      'the token API answered 503 Service Unavailable after 2 attempts: application/json, 86 bytes (--verbose shows an excerpt)';
    expectFailure(quiet, 3, message, allSecrets([basicAuth]));

    expect({ code: verbose.code, stdout: verbose.stdout }).toEqual({ code: 3, stdout: '' });
    expect(verbose.stderr).toContain(`\n${PREFIX}attempt 1 failed (HTTP 503); retrying\n`);
    expect(verbose.stderr.endsWith(`\n${PREFIX}${message}\n`)).toBe(true);
    expect(verbose.stderr).not.toMatch(/RequestError|\n {6}at /);
    for (const line of verbose.stderr.trimEnd().split('\n')) expect(line).toMatch(/^(webapi-credential: | {2})/);
    expect([...verbose.stderr.matchAll(/webapi-credential: the token API answered/g)]).toHaveLength(1);
    expect(api.requests).toHaveLength(4);
    expect(
      verbose.stderr.includes(SECRET.apiKey) ||
        verbose.stderr.includes(basicAuth) ||
        verbose.stderr.includes(SECRET.file),
    ).toBe(false);
  });

  it('adds no stack trace to a usage error under --verbose, and shows no secret', async () => {
    const config = provider(
      basic('https://token.example/token', { headers: { A: '{{ env.API_KEY }}', B: '{{ fromJson(env.API_KEY) }}' } }),
    );
    const result = await run(['--verbose', '--config-inline', config]);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 2, stdout: '' });
    const message = `webAPIProviderConfig.headers.B: {{ fromJson(env.API_KEY) }}: fromJson() was given text that is not JSON`;
    expect(result.stderr.endsWith(`${PREFIX}${message}\n`)).toBe(true);
    expect(result.stderr).not.toMatch(/UsageError|\n {6}at |caused by/);
    expect(result.stderr).not.toContain(SECRET.apiKey);
  });
});
