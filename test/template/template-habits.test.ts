// Placeholders and habits from other tools: the Argo CD proposal's ${.name} and {.name}, a shell's
// ${X} and $X, Go templates' {{ .Env.X }} and {{ .X }}, a bare environment variable name. Each gets a
// message that shows the form to write here. Each is a config error under every command, before any
// request: get-token would send it as written, so validate, render and the generators refuse it too.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { SECRET_ENV, expectFailure, expectSuccess, provider } from '../helpers/integration.js';

const config = (fields: Record<string, unknown>) =>
  provider({ method: 'POST', url: 'https://127.0.0.1:9/token', tokenPath: '$.access_token', ...fields });
const withHeaders = (headers: Record<string, string>) => config({ headers });
const INVALID = 'config from --config-inline is invalid: ';

describe('template habits from other tools', () => {
  it.each([['validate'], ['render'], ['get-token']])(
    'refuses $X under %s before any request, and says how to write it',
    async (command) => {
      const result = await runInProcess([command, '--config-inline', withHeaders({ 'X-Org': '$ORG' })], {
        env: SECRET_ENV,
      });
      expectFailure(
        result,
        2,
        `${INVALID}webAPIProviderConfig.headers.X-Org: $ORG is a shell variable, which a template does not read; here it is {{ env.ORG }} (a literal $ is {{ "$" }})`,
      );
    },
  );

  it('sends a literal $ written as {{ "$" }}', async () => {
    const result = await runInProcess(['render', '--config-inline', withHeaders({ 'X-Org': '{{ "$" }}ORG' })], {
      env: SECRET_ENV,
    });
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    expect(result.stdout).toContain('X-Org: $ORG\n');
  });

  it.each([
    ['{{ .Env.API_TOKEN }}', '{{ .Env.API_TOKEN }} is Go template syntax; here it is {{ env.API_TOKEN }}'],
    ['{{ .API_TOKEN }}', '{{ .API_TOKEN }} is Go template syntax; here it is {{ env.API_TOKEN }}'],
    [
      '{{ .audience }}',
      '{{ .audience }} is Go template syntax; here it is {{ vars.audience }} with --set audience=… (or {{ env.AUDIENCE }} for a secret)',
    ],
    ['{{ API_TOKEN }}', '{{ API_TOKEN }}: unknown name API_TOKEN; an environment variable is read as env.API_TOKEN'],
    [
      '{{ sha256(env.API_TOKEN) }}',
      '{{ sha256(env.API_TOKEN) }}: sha256() is not a helper; the helpers are urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid',
    ],
  ])('names %s and the form to write', async (template, message) => {
    const result = await runInProcess(['validate', '--config-inline', withHeaders({ Authorization: template })], {
      env: SECRET_ENV,
    });
    expectFailure(result, 2, `${INVALID}webAPIProviderConfig.headers.Authorization: ${message}`);
  });
});

// The Argo CD proposal's Upbound block, as it is written there.
const PROPOSAL_BODY =
  'audience=upbound%3Aspaces%3Aapi&audience=upbound%3Aspaces%3Acontrolplanes&grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&scope=upbound%3Aorg%3A${.orgName}&subject_token={.token}&subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token';
const ORG =
  "webAPIProviderConfig.body: ${.orgName} is another tool's placeholder, sent as written; here it is {{ vars.orgName }} with --set orgName=… (or {{ env.ORG_NAME }} for a secret)";
const TOKEN =
  "webAPIProviderConfig.body: {.token} is another tool's placeholder, sent as written; here it is {{ env.TOKEN }} for a secret (or {{ vars.token }} with --set token=…)";

describe('placeholders of other tools are config errors', () => {
  const upbound = config({ body: PROPOSAL_BODY, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });

  it.each([['validate'], ['render'], ['get-token']])(
    "%s refuses the proposal's Upbound block, naming both placeholders",
    async (command) => {
      const result = await runInProcess([command, '--config-inline', upbound], { env: SECRET_ENV });
      expectFailure(result, 2, `${INVALID}${ORG}; ${TOKEN}`);
    },
  );

  it.each([
    [
      '${API_TOKEN}',
      'Authorization',
      '${API_TOKEN} is a shell variable, sent as written; here it is {{ env.API_TOKEN }}',
    ],
    [
      'Bearer ${apiKey}',
      'Authorization',
      '${apiKey} is a shell variable, sent as written; here it is {{ env.API_KEY }} for a secret (or {{ vars.apiKey }} with --set apiKey=…)',
    ],
    [
      '{.tenant}',
      'X-Tenant',
      "{.tenant} is another tool's placeholder, sent as written; here it is {{ vars.tenant }} with --set tenant=… (or {{ env.TENANT }} for a secret)",
    ],
  ])('%s in a header is an error under render', async (value, header, message) => {
    const result = await runInProcess(['render', '--config-inline', withHeaders({ [header]: value })], {
      env: SECRET_ENV,
    });
    expectFailure(result, 2, `${INVALID}webAPIProviderConfig.headers.${header}: ${message}`);
  });

  it('finds them in the url and in json leaves too', async () => {
    const result = await runInProcess(
      [
        'validate',
        '--config-inline',
        config({ url: 'https://127.0.0.1:9/${.org}/token', json: { a: { b: '{.token}' } } }),
      ],
      { env: SECRET_ENV },
    );
    expectFailure(
      result,
      2,
      `${INVALID}webAPIProviderConfig.url: \${.org} is another tool's placeholder, sent as written; here it is {{ vars.org }} with --set org=… (or {{ env.ORG }} for a secret); ` +
        "webAPIProviderConfig.json.a.b: {.token} is another tool's placeholder, sent as written; here it is {{ env.TOKEN }} for a secret (or {{ vars.token }} with --set token=…)",
    );
  });

  it('leaves JSON text, lone braces and dollars alone', async () => {
    const body =
      '{"a":1,"b":{"c":[{}]},"d":"{x}","e":"$","f":"$.access_token","g":"{ .x }","h":"${ x }","i":"{{ env.API_KEY }}"}';
    const url = 'https://127.0.0.1:9/token?$filter=name%20eq%20%27a%27&$top=1&x={y}';
    const result = await runInProcess(['validate', '--config-inline', config({ url, body })], { env: SECRET_ENV });
    expectSuccess(result, `config from --config-inline is valid: POST ${url}\n`);
  });
});
