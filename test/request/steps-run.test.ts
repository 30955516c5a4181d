// steps: requests that run in order before the main one, against a real local HTTPS API that
// checks each request as a Vault would (a login that gives a client token, then a secrets engine
// that wants it). Every answer of a step is a secret; the step is named in every error.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, type Handler } from '../helpers/token-api.js';
import {
  SECRET,
  allSecrets,
  execCredential,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
const tls = { caFile: pki.ca.certFile };

const SA_TOKEN = 'sa-jwt-7Qm2Zr8Lk4Pw';
const CLIENT_TOKEN = 'hvs.client-token-3Xn8Vb2Kq9';
const env = { SA_TOKEN };
const secrets = allSecrets([SA_TOKEN, CLIENT_TOKEN]);

/** Vault in miniature: the login checks the service account token, the creds endpoint the client token. */
function vault(overrides: { login?: Handler } = {}): Handler {
  return (request, response) => {
    if (request.path === '/v1/auth/kubernetes/login') {
      if (overrides.login) return overrides.login(request, response);
      const body = JSON.parse(request.body) as { role?: string; jwt?: string };
      if (body.role !== 'argocd' || body.jwt !== SA_TOKEN)
        return json(response, 403, { errors: ['permission denied'] });
      return json(response, 200, {
        auth: { client_token: CLIENT_TOKEN, lease_duration: 3600, policies: ['deployer'] },
      });
    }
    if (request.path === '/v1/kubernetes/creds/deployer') {
      if (request.headers['x-vault-token'] !== CLIENT_TOKEN)
        return json(response, 403, { errors: ['permission denied'] });
      return json(response, 200, { lease_duration: 600, data: { service_account_token: SECRET.token } });
    }
    json(response, 404, { errors: [] });
  };
}

const config = (url: string, extra: Record<string, unknown> = {}) => ({
  steps: [
    {
      name: 'login',
      method: 'POST',
      url: `${url}/v1/auth/kubernetes/login`,
      json: { role: 'argocd', jwt: '{{ env.SA_TOKEN }}' },
    },
  ],
  method: 'POST',
  url: `${url}/v1/kubernetes/creds/deployer`,
  headers: { 'X-Vault-Token': '{{ steps.login.auth.client_token }}' },
  json: { kubernetes_namespace: 'apps' },
  tokenPath: '$.data.service_account_token',
  expiresInPath: '$.lease_duration',
  tls,
  ...extra,
});

const run = (args: string[], text: string, extraEnv: Record<string, string> = env) =>
  runInProcess([...args, '--config-inline', text], { env: extraEnv });

describe('steps', () => {
  it('runs the login step, then the main request with its answer, and prints the credential', async () => {
    const api = await startApi(vault());
    const result = await run([], provider(config(api.url)));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/auth/kubernetes/login', '/v1/kubernetes/creds/deployer']);
    expect(api.requests[1]!.headers['x-vault-token']).toBe(CLIENT_TOKEN);
  });

  it('takes tls from the top level for a step that sets none, and its own when it sets one', async () => {
    const api = await startApi(vault());
    const broken = { ...config(api.url), tls: { caFile: pki.ca.certFile } };
    broken.steps = [{ ...broken.steps[0]!, tls: { insecureSkipVerify: false } } as never];
    // The step's own tls (no CA) does not trust the test CA: the step fails, named.
    const own = await run([], provider(broken));
    expectFailure(own, 3, /^steps\.login: /, secrets);
    expect(api.requests).toHaveLength(0);
  });

  it('traces each step under --verbose with every answer redacted', async () => {
    const api = await startApi(vault());
    const result = await run(['--verbose'], provider(config(api.url)));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('webapi-credential: steps.login\n');
    expect(result.stderr).toContain(`POST ${api.url}/v1/auth/kubernetes/login`);
    expect(result.stderr).toContain('X-Vault-Token: [REDACTED]');
    for (const secret of secrets) expect(result.stderr).not.toContain(secret);
  });

  it('renders every request in order with placeholders for what a step gives, sending nothing', async () => {
    const api = await startApi(vault());
    const result = await run(['render'], provider(config(api.url)));
    expectSuccess(
      result,
      [
        '# steps.login',
        `POST ${api.url}/v1/auth/kubernetes/login`,
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/json',
        '',
        '{"role":"argocd","jwt":"[REDACTED]"}',
        '',
        '# webAPIProviderConfig',
        `POST ${api.url}/v1/kubernetes/creds/deployer`,
        'accept: application/json',
        'user-agent: webapi-credential/0.1.0',
        'content-type: application/json',
        'X-Vault-Token: [steps.login.auth.client_token]',
        '',
        '{"kubernetes_namespace":"apps"}',
        '',
      ].join('\n'),
      '',
      secrets,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('renders, validates and runs a header that passes what a step gives through a helper', async () => {
    const api = await startApi(vault());
    const text = provider(
      config(api.url, { headers: { 'X-Vault-Token': '{{ trim(steps.login.auth.client_token) }}' } }),
    );
    const rendered = await run(['render'], text);
    expect({ code: rendered.code, stderr: rendered.stderr }).toEqual({ code: 0, stderr: '' });
    expect(rendered.stdout).toContain('\nX-Vault-Token: [trim(...)]\n');
    expect((await run(['validate'], text)).code).toBe(0);
    const result = await run([], text);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout).status.token).toBe(SECRET.token);
  });

  it('validates without network and names the steps', async () => {
    const api = await startApi(vault());
    const result = await run(['validate'], provider(config(api.url)));
    expectSuccess(
      result,
      `config from --config-inline is valid: steps.login POST ${api.url}/v1/auth/kubernetes/login, then POST ${api.url}/v1/kubernetes/creds/deployer\n`,
      '',
      secrets,
    );
    expect(api.requests).toHaveLength(0);
  });

  it.each([
    [
      'an unknown step',
      '{{ steps.logon.auth.client_token }}',
      'steps.logon is not a step; the steps before it are login',
    ],
    ['a step read as a whole', '{{ json(steps) }}', 'name the step: steps.<name> (the steps before it are login)'],
  ])('refuses %s in the main request before any request', async (_name, template, problem) => {
    const api = await startApi(vault());
    const result = await run([], provider(config(api.url, { headers: { 'X-Vault-Token': template } })));
    expectFailure(
      result,
      2,
      `config from --config-inline is invalid: webAPIProviderConfig.headers.X-Vault-Token: ${template}: ${problem}`,
      secrets,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('refuses a step that reads a later step, and a let that reads a step', async () => {
    const api = await startApi(vault());
    const text = provider({
      ...config(api.url),
      let: { token: 'steps.login.auth.client_token' },
      steps: [
        {
          name: 'login',
          method: 'POST',
          url: `${api.url}/v1/auth/kubernetes/login`,
          headers: { 'X-Next': '{{ steps.exchange.token }}' },
        },
        { name: 'exchange', method: 'POST', url: `${api.url}/x` },
      ],
    });
    const result = await run(['validate'], text);
    expectFailure(
      result,
      2,
      'config from --config-inline is invalid: webAPIProviderConfig.let.token: {{ steps.login.auth.client_token }}: a let cannot read steps (it is evaluated before any step runs); write the expression where it is used; ' +
        'webAPIProviderConfig.steps.login.headers.X-Next: {{ steps.exchange.token }}: steps.exchange runs later than this request; no step runs before it',
      secrets,
    );
  });

  it('refuses two steps of one name', async () => {
    const api = await startApi(vault());
    const step = { name: 'login', method: 'POST', url: `${api.url}/a` };
    const result = await run(['validate'], provider({ ...config(api.url), steps: [step, step] }));
    expectFailure(
      result,
      2,
      'config from --config-inline is invalid: webAPIProviderConfig.steps[1].name: login is the name of an earlier step; step names are unique',
      secrets,
    );
  });

  it('reports the missing values of every step and of the main request in one run', async () => {
    const api = await startApi(vault());
    const result = await run([], provider(config(api.url, { query: { org: '{{ vars.org }}' } })), {});
    expectFailure(
      result,
      2,
      'webAPIProviderConfig.steps.login.json.jwt: {{ env.SA_TOKEN }}: env.SA_TOKEN is not set (set it in the environment or the kubeconfig exec env); ' +
        'webAPIProviderConfig.query.org: {{ vars.org }}: vars.org is not set (pass --set org=…, or give a default: vars.org ?? "…")',
      secrets,
    );
    expect(api.requests).toHaveLength(0);
  });

  it('fails with exit 3 naming the step when the step is refused, and sends no main request', async () => {
    const api = await startApi(vault());
    const result = await run([], provider(config(api.url)), { SA_TOKEN: 'wrong-service-account-token' });
    expectFailure(
      result,
      3,
      `steps.login: the token API answered 403 Forbidden: {"errors":["permission denied"]}; check env.SA_TOKEN`,
      [...secrets, 'wrong-service-account-token'],
    );
    expect(api.requests.map((r) => r.path)).toEqual(['/v1/auth/kubernetes/login']);
  });

  it('fails with exit 4 naming the step when its answer is not JSON, without showing it', async () => {
    const api = await startApi(
      vault({
        login: (_request, response) =>
          void response.writeHead(200, { 'content-type': 'text/plain' }).end(`token=${CLIENT_TOKEN}`),
      }),
    );
    const result = await run([], provider(config(api.url)));
    expectFailure(result, 4, /^steps\.login: the token API answered with something that is not JSON/, secrets);
    expect(api.requests).toHaveLength(1);
  });

  it('fails with exit 4, not a crash, when a template walks a step answer nested 400 000 deep', async () => {
    const deep = `{"auth":{"client_token":"${CLIENT_TOKEN}"},"data":${'['.repeat(400_000)}${']'.repeat(400_000)}}`;
    const api = await startApi(
      vault({
        login: (_request, response) => void response.writeHead(200, { 'content-type': 'application/json' }).end(deep),
      }),
    );
    const result = await run([], provider(config(api.url, { json: { login: '{{ json(steps.login) }}' } })));
    expectFailure(
      result,
      4,
      "the templates of webAPIProviderConfig read a step's answer nested too deeply to walk; check the API and those templates",
      secrets,
    );
    expect(api.requests).toHaveLength(1);
  });

  it('ends within --timeout when a step answers 90 000 strings, each of them a secret to hide', async () => {
    // Every string of a step's answer is a secret: a dozen forms each made it take 15-18 s here.
    const many = JSON.stringify({
      auth: { client_token: CLIENT_TOKEN },
      items: Array.from({ length: 90_000 }, (_, i) => `s${i.toString(36).padStart(6, '0')}`),
    });
    const api = await startApi((request, response) => {
      if (request.path === '/v1/auth/kubernetes/login')
        return void response.writeHead(200, { 'content-type': 'application/json' }).end(many);
      json(response, 400, {
        error: 'invalid_request',
        error_description: `no such role; got ${request.headers['x-vault-token']}`,
      });
    });
    const result = await run(['--timeout', '10s'], provider(config(api.url, { retry: { limit: 0 } })));
    // On a machine too busy to make their forms by the deadline, the echo is not shown unchecked, nor is
    // a message the deadline cut short. (That the forms' work stops at the deadline: test/redact/bounded.test.ts,
    // counted in looks at a deadline the test moves.)
    expectFailure(
      result,
      3,
      /^(the token API answered 400 Bad Request: (\{"error":"invalid_request","error_description":"no such role; got \[REDACTED\]"\}|\[not shown: it could not be checked for secrets in time\])|the request failed \((HTTP_STATUS|DEADLINE)\); its message is not shown: it could not be checked for secrets in time)$/,
      secrets,
    );
  });

  // The two that wait out a deadline do it at once (their servers are their own).
  it.concurrent('keeps the whole call, steps included, within --timeout', async ({ expect }) => {
    const api = await startApi(vault({ login: () => undefined }));
    const result = await run(['--timeout', '2s'], provider(config(api.url)));
    // A login that never answers ends the call (the test's timeout would end it otherwise), by the deadline.
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^webapi-credential: steps\.login: no answer from \S+ within --timeout 2s\n$/);
  });

  it.concurrent(
    'gives the steps and the main request one deadline: what a slow step used is gone for the main request',
    async ({ expect }) => {
      // Each request alone fits in --timeout 4s, with room for a busy machine; both together do not.
      const slow = vault();
      const api = await startApi((request, response) => void setTimeout(() => void slow(request, response), 2_500));
      const result = await run(['--timeout', '4s'], provider(config(api.url)));
      // The main request failed, not the step (the role's name shows redacted: the login answered it as a policy name),
      // by the whole-call deadline, not the 10 s per-attempt timeout (which says so instead).
      expectFailure(
        result,
        3,
        new RegExp(`^no answer from ${api.url}/v1/kubernetes/creds/\\S+ within --timeout 4s$`),
        secrets,
      );
      expect(api.requests.map((r) => r.path)).toEqual(['/v1/auth/kubernetes/login', '/v1/kubernetes/creds/deployer']);
    },
  );

  it('caches the credential of a config with steps and serves it without running them again', async () => {
    const api = await startApi(vault());
    const { mkdtempSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = join(mkdtempSync(join(tmpdir(), 'webapi-credential-steps-')), 'cache');
    const text = provider(config(api.url));
    const first = await run(['--cache', '--cache-dir', dir], text);
    const second = await run(['--cache', '--cache-dir', dir], text);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(second.stdout).toBe(first.stdout);
    expect(api.requests).toHaveLength(2);
    expect(JSON.parse(second.stdout).status.token).toBe(SECRET.token);
    expect(execCredential).toBeTypeOf('function');
  });
});
