// Exit 2: bad flags, no or broken config, template errors, a bad KUBERNETES_EXEC_INFO. Each case
// fails before the first byte goes out: the token API behind every config must see no request.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';
import { makePki } from '../helpers/pki.js';
import { json, type TokenApi } from '../helpers/token-api.js';
import {
  SECRET,
  SECRET_ENV,
  V1,
  V1BETA1,
  allSecrets,
  basic,
  execInfo,
  expectFailure,
  expectSuccess,
  provider,
  tokenApis,
  writeTemp,
} from '../helpers/integration.js';

const pki = makePki();
const startApi = tokenApis();
let api: TokenApi;
/** A valid config whose templates read every secret of the suite. */
let good: string;

beforeAll(async () => {
  api = await startApi((_req, res) => json(res, 200, { access_token: SECRET.token }));
  good = provider(
    basic(`${api.url}/token`, {
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      form: { secret: '{{ env.FORM_SECRET }}', other: '{{ env.JSON_SECRET }}' },
      tls: { caFile: pki.ca.certFile },
    }),
  );
});

afterAll(() => {
  expect(api.requests).toEqual([]);
});

const NO_CONFIG =
  'no config: pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE, ' +
  'or take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry';

interface Case {
  name: string;
  /** Arguments; `good` stands for --config-inline with the valid config. */
  args: (good: string) => string[];
  env?: Record<string, string>;
  message: string;
}

const withGood =
  (...args: string[]) =>
  (g: string) => ['--config-inline', g, ...args];
const inline =
  (config: Record<string, unknown>, ...args: string[]) =>
  () => ['--config-inline', provider(config), ...args];
const url = 'https://token.example/token';
const emptyDir = mkdtempSync(join(tmpdir(), 'webapi-credential-dir-'));
const badYaml = writeTemp('bad.yaml', 'webAPIProviderConfig:\n  method: POST\n  url: [unclosed\n');
const duplicateKeys = writeTemp('dup.yaml', 'webAPIProviderConfig:\n  method: POST\n  method: GET\n');
const emptyFile = writeTemp('empty.yaml', '\n');
const secretFile = writeTemp('secret', `${SECRET.file}\n`);

const cases: Case[] = [
  { name: 'an unknown flag', args: withGood('--bogus'), message: "unknown option '--bogus' (see --help)" },
  {
    name: 'a mistyped command, named as such rather than as an argument of get-token',
    args: (g: string) => ['valdiate', '--config-inline', g],
    message: 'unknown command "valdiate"; did you mean validate? (see --help)',
  },
  {
    name: 'a command close to none, listing the commands',
    args: (g: string) => ['signin', '--config-inline', g],
    message:
      'unknown command "signin"; the commands are get-token, login, logout, validate, render, cache, kubeconfig, argocd-secret, init, doctor, cluster-auth, completion (see --help)',
  },
  {
    name: 'a command written after its options (webapi-credential --config c.yaml login), said as such rather than as an argument too many',
    args: (g: string) => ['--config-inline', g, 'login'],
    message:
      '"login" is a command: write it first and its options after it (webapi-credential login --config …) (see --help)',
  },
  {
    name: 'a misspelt flag, with the suggestion on the same line',
    args: withGood('--verbos'),
    message: "unknown option '--verbos' (Did you mean --verbose?) (see --help)",
  },
  {
    name: 'an unknown --output format',
    args: withGood('--output', 'yaml'),
    message:
      "option '-o, --output <format>' argument 'yaml' is invalid. Allowed choices are exec-credential, token. (see --help)",
  },
  {
    name: 'a --timeout without a unit',
    args: withGood('--timeout', '10'),
    message: '--timeout "10": expected a positive duration such as 10s, 500ms or 1m30s',
  },
  {
    name: 'a zero --timeout',
    args: withGood('--timeout', '0s'),
    message: '--timeout "0s": expected a positive duration such as 10s, 500ms or 1m30s',
  },
  {
    name: 'a --set without =',
    args: withGood('--set', 'audience'),
    message: '--set "audience": expected key=value with a key of letters, digits, _ or -',
  },
  {
    name: 'a --set without a key',
    args: withGood('--set', '=x'),
    message: '--set "=x": expected key=value with a key of letters, digits, _ or -',
  },
  { name: 'no config anywhere', args: () => [], message: NO_CONFIG },
  {
    name: 'an empty WEBAPI_CREDENTIAL_CONFIG_INLINE, which counts as unset',
    args: () => [],
    env: { WEBAPI_CREDENTIAL_CONFIG_INLINE: '' },
    message: NO_CONFIG,
  },
  {
    name: 'a --config file that does not exist',
    args: () => ['--config', '/nonexistent/config.yaml'],
    message: 'cannot read config /nonexistent/config.yaml: no such file',
  },
  {
    name: 'a --config that is a directory',
    args: () => ['-c', emptyDir],
    message: `cannot read config ${emptyDir}: not a regular file`,
  },
  {
    name: 'a WEBAPI_CREDENTIAL_CONFIG file that does not exist',
    args: () => [],
    env: { WEBAPI_CREDENTIAL_CONFIG: '/nonexistent/env.yaml' },
    message: 'cannot read config /nonexistent/env.yaml: no such file',
  },
  {
    name: 'a YAML config with tls: at the top of the file',
    args: () => [
      '--config-inline',
      'webAPIProviderConfig:\n  method: POST\n  url: https://a.example/token\n  tokenPath: $.access_token\ntls:\n  caFile: /etc/ca.pem\n',
    ],
    message:
      'config from --config-inline is invalid: tls: unknown field at the top of the file; it belongs under webAPIProviderConfig (webAPIProviderConfig.tls)',
  },
  {
    name: "a YAML config with the proposal's tokenPath unquoted",
    args: () => [
      '--config-inline',
      'webAPIProviderConfig:\n  method: POST\n  url: https://a.example/token\n  tokenPath: {.access_token}\n',
    ],
    message:
      'config from --config-inline is invalid: webAPIProviderConfig.tokenPath: expected a string, found a map: YAML reads an unquoted {…} as one; quote it: "{.access_token}"',
  },
  {
    name: 'a YAML config with a header template unquoted',
    args: () => [
      '--config-inline',
      'webAPIProviderConfig:\n  method: POST\n  url: https://a.example/token\n  tokenPath: $.access_token\n  headers:\n    Authorization: {{ env.API_KEY }}\n',
    ],
    message:
      'config from --config-inline is invalid: webAPIProviderConfig.headers.Authorization: expected a string, found a map: YAML reads an unquoted {…} as one; quote it',
  },
  {
    name: 'a YAML config with a quote never closed',
    args: () => [
      '--config-inline',
      'webAPIProviderConfig:\n  method: POST\n  url: "https://a.example/token\n  tokenPath: $.access_token\n',
    ],
    message:
      'config from --config-inline is not valid YAML or JSON: Missing closing "quote: it opens at line 3, column 8 and is never closed',
  },
  {
    name: 'a config file that is not valid YAML',
    args: () => ['--config', badYaml],
    message: `config from --config ${badYaml} is not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]: it opens at line 3, column 8 and is never closed`,
  },
  {
    name: 'a config file with a duplicate key',
    args: () => ['--config', duplicateKeys],
    message: `config from --config ${duplicateKeys} is not valid YAML or JSON: Map keys must be unique at line 3, column 3`,
  },
  {
    name: 'an empty config file',
    args: () => ['--config', emptyFile],
    message: `config from --config ${emptyFile} is empty`,
  },
  {
    name: 'a config with several problems, all reported in one line with their field paths',
    args: inline({
      method: 'FETCH',
      url,
      tokenPath: '$.t',
      tls: { caFile: 5, verify: true },
      timeout: '10',
      body: 'x',
      form: { a: 'b' },
    }),
    message:
      'config from --config-inline is invalid: ' +
      'webAPIProviderConfig.method: expected one of GET, POST, PUT, PATCH, DELETE, found string "FETCH"; ' +
      'webAPIProviderConfig.tls.caFile: expected a string, found number 5; ' +
      'webAPIProviderConfig.tls.verify: unknown field (known: caFile, caData, certFile, certData, keyFile, keyData, serverName, insecureSkipVerify); ' +
      'webAPIProviderConfig.timeout: expected a duration such as 10s, 500ms or 1m30s, found string "10"; ' +
      'webAPIProviderConfig.form: only one of body, form, json may be set (found body, form)',
  },
  {
    name: 'a config without the webAPIProviderConfig key',
    args: () => ['--config-inline', JSON.stringify({ method: 'POST' })],
    message:
      'config from --config-inline is invalid: webAPIProviderConfig: is required; method: unknown field at the top of the file; it belongs under webAPIProviderConfig (webAPIProviderConfig.method)',
  },
  {
    name: 'a config without tokenPath or certificate paths',
    args: inline({ method: 'POST', url }),
    message:
      'config from --config-inline is invalid: webAPIProviderConfig.tokenPath: is required (unless clientCertificateDataPath and clientKeyDataPath are both set)',
  },
  {
    name: 'an invalid JSONPath',
    args: inline({ method: 'POST', url, tokenPath: '$[token' }),
    message: `config from --config-inline is invalid: webAPIProviderConfig.tokenPath: invalid JSONPath "$[token": unexpected token 't' in bracketed selection ('$[token':2)`,
  },
  {
    name: 'an http:// url without allowInsecureHTTP',
    args: inline({ method: 'POST', url: 'http://token.example/token', tokenPath: '$.t' }),
    message:
      'config from --config-inline is invalid: webAPIProviderConfig.url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true',
  },
  {
    name: 'a url template that renders to http:// without allowInsecureHTTP',
    args: inline(
      { method: 'POST', url: '{{ vars.url }}', tokenPath: '$.t' },
      '--set',
      'url=http://token.example/token',
    ),
    message: 'webAPIProviderConfig.url: rendered to an http:// URL; use https:// or set allowInsecureHTTP: true',
  },
  {
    name: 'a template that reads an unset env var',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      headers: { Authorization: 'Bearer {{ env.API_KEY }}', 'X-Org': '{{ env.ORG_NAME }}' },
    }),
    message:
      'webAPIProviderConfig.headers.X-Org: {{ env.ORG_NAME }}: env.ORG_NAME is not set (set it in the environment or the kubeconfig exec env)',
  },
  {
    // JavaScript would send "<key>:undefined": the set secret beside the missing one stays hidden.
    name: 'a secret concatenated with an unset env var',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      headers: { Authorization: 'Basic {{ base64(env.API_KEY + ":" + env.NO_SUCH_SECRET) }}' },
    }),
    message:
      'webAPIProviderConfig.headers.Authorization: {{ base64(env.API_KEY + ":" + env.NO_SUCH_SECRET) }}: env.NO_SUCH_SECRET is not set (set it in the environment or the kubeconfig exec env)',
  },
  {
    name: 'two expressions of one field, each missing a value: both named in one run',
    args: inline({ method: 'POST', url: `${url}/{{ env.NO_TENANT }}/{{ vars.region }}`, tokenPath: '$.t' }),
    message:
      'webAPIProviderConfig.url: {{ env.NO_TENANT }}: env.NO_TENANT is not set (set it in the environment or the kubeconfig exec env); ' +
      'webAPIProviderConfig.url: {{ vars.region }}: vars.region is not set (pass --set region=…, or give a default: vars.region ?? "…")',
  },
  {
    name: 'a helper given two unset values: both named, "them"',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      headers: { Authorization: '{{ basicAuth(env.NO_ID + "", env.NO_SECRET) }}' },
    }),
    message:
      'webAPIProviderConfig.headers.Authorization: {{ basicAuth(env.NO_ID + "", env.NO_SECRET) }}: env.NO_ID, env.NO_SECRET are not set (set them in the environment or the kubeconfig exec env)',
  },
  {
    name: 'an unset var and an unset env value in one expression: each hint names its own',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      query: { aud: '{{ vars.audience + "/" + vars.tenant + env.NO_SUFFIX }}' },
    }),
    message:
      'webAPIProviderConfig.query.aud: {{ vars.audience + "/" + vars.tenant + env.NO_SUFFIX }}: vars.audience, vars.tenant, env.NO_SUFFIX are not set ' +
      '(pass --set audience=… --set tenant=…, or give a default: vars.audience ?? "…"; set env.NO_SUFFIX in the environment or the kubeconfig exec env)',
  },
  {
    name: 'a template that reads an unset var',
    args: inline({ method: 'POST', url, tokenPath: '$.t', query: { aud: '{{ vars.audience }}' } }),
    message:
      'webAPIProviderConfig.query.aud: {{ vars.audience }}: vars.audience is not set (pass --set audience=…, or give a default: vars.audience ?? "…")',
  },
  {
    name: 'a template with a syntax error',
    args: inline({ method: 'POST', url, tokenPath: '$.t', body: 'key={{ env.API_KEY' }),
    message:
      'config from --config-inline is invalid: webAPIProviderConfig.body: {{ at character 5 is never closed with }}',
  },
  {
    name: 'a template whose error quotes a secret',
    args: inline({ method: 'POST', url, tokenPath: '$.t', json: { key: '{{ fromJson(env.API_KEY) }}' } }),
    message: `webAPIProviderConfig.json.key: {{ fromJson(env.API_KEY) }}: fromJson() was given text that is not JSON`,
  },
  {
    name: 'a file() that cannot be read',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      headers: { 'X-Secret': '{{ file("/nonexistent/secret") }}' },
    }),
    message:
      'webAPIProviderConfig.headers.X-Secret: {{ file("/nonexistent/secret") }}: file("/nonexistent/secret") cannot be read: no such file',
  },
  {
    name: 'a template using cluster when KUBERNETES_EXEC_INFO has no cluster',
    args: inline({
      method: 'POST',
      url,
      tokenPath: '$.t',
      headers: { 'X-Secret': `{{ file(${JSON.stringify(secretFile)}) }}`, 'X-Cluster': '{{ cluster.server }}' },
    }),
    message:
      'webAPIProviderConfig.headers.X-Cluster: {{ cluster.server }}: cluster is not set (KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)',
  },
  {
    name: 'a KUBERNETES_EXEC_INFO that is not JSON',
    args: withGood(),
    env: { KUBERNETES_EXEC_INFO: '{"apiVersion": ' },
    message: 'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
  },
  {
    name: 'a KUBERNETES_EXEC_INFO with an unsupported apiVersion',
    args: withGood(),
    env: { KUBERNETES_EXEC_INFO: execInfo('client.authentication.k8s.io/v1alpha1') },
    message: `KUBERNETES_EXEC_INFO has apiVersion "client.authentication.k8s.io/v1alpha1"; supported: ${V1}, ${V1BETA1}`,
  },
  {
    name: 'an unsupported --api-version',
    args: withGood('--api-version', 'v1'),
    message: `--api-version "v1" is not supported; use ${V1} or ${V1BETA1}`,
  },
  {
    name: 'an --api-version that conflicts with KUBERNETES_EXEC_INFO',
    args: withGood('--api-version', V1BETA1),
    env: { KUBERNETES_EXEC_INFO: execInfo(V1) },
    message: `--api-version ${V1BETA1} conflicts with ${V1} asked for by KUBERNETES_EXEC_INFO`,
  },
  {
    name: '--output token for a config that yields only a client certificate',
    args: inline(
      { method: 'POST', url, clientCertificateDataPath: '$.cert', clientKeyDataPath: '$.key' },
      '--output',
      'token',
    ),
    message: '--output token needs a tokenPath; this config yields a client certificate',
  },
];

describe.concurrent('usage and config errors exit 2 before any request', () => {
  it.each(cases)('fails on $name', async ({ args, env, message }) => {
    const result = await runInProcess(args(good), { env: { ...SECRET_ENV, ...env } });
    expectFailure(result, 2, message, allSecrets([SECRET.file]));
  });

  it('names every unset env variable, under get-token, validate and render alike, and never suggests a default for a secret', async () => {
    const config = provider(
      basic(url, { headers: { Authorization: 'Bearer {{ env.API_KEY }}', 'X-Other': '{{ env.OTHER_KEY }}' } }),
    );
    const results = await Promise.all([
      runInProcess(['validate', '--config-inline', config]),
      runInProcess(['render', '--config-inline', config]),
      runInProcess(['--config-inline', config]),
    ]);
    for (const result of results) {
      expectFailure(
        result,
        2,
        'webAPIProviderConfig.headers.Authorization: {{ env.API_KEY }}: env.API_KEY is not set (set it in the environment or the kubeconfig exec env); ' +
          'webAPIProviderConfig.headers.X-Other: {{ env.OTHER_KEY }}: env.OTHER_KEY is not set (set it in the environment or the kubeconfig exec env)',
      );
    }
  });

  it('checks the rest with a stand-in for each unset env variable under validate --allow-unset-env, and says so', async () => {
    const config = provider(
      basic(url, { headers: { Authorization: 'Bearer {{ env.API_KEY }}', 'X-Other': '{{ env.OTHER_KEY }}' } }),
    );
    const result = await runInProcess(['validate', '--allow-unset-env', '--config-inline', config]);
    expectSuccess(
      result,
      `config from --config-inline is valid: POST ${url}\n`,
      'webapi-credential: warning: env API_KEY, OTHER_KEY are not set: checked with a stand-in (--allow-unset-env); the plugin needs them where it runs\n',
    );
  });

  it('names a missing --set value in the URL and the unset env values in one run, under validate, render and get-token', async () => {
    const config = provider(
      basic('https://{{ vars.host }}/token', {
        headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
        form: { client_secret: '{{ env.CLIENT_SECRET }}' },
      }),
    );
    const results = await Promise.all(
      ['validate', 'render', 'get-token'].map((command) => runInProcess([command, '--config-inline', config])),
    );
    for (const result of results) {
      expectFailure(
        result,
        2,
        'webAPIProviderConfig.url: {{ vars.host }}: vars.host is not set (pass --set host=…, or give a default: vars.host ?? "…"); ' +
          'webAPIProviderConfig.form.client_secret: {{ env.CLIENT_SECRET }}: env.CLIENT_SECRET is not set (set it in the environment or the kubeconfig exec env); ' +
          'webAPIProviderConfig.headers.Authorization: {{ env.API_KEY }}: env.API_KEY is not set (set it in the environment or the kubeconfig exec env)',
      );
    }
  });

  it('still refuses under validate --allow-unset-env what is wrong besides the env, naming every missing input', async () => {
    const config = provider(
      basic('https://{{ vars.host }}/token', { headers: { Authorization: 'Bearer {{ env.API_KEY }}' } }),
    );
    const result = await runInProcess(['validate', '--allow-unset-env', '--config-inline', config]);
    expectFailure(
      result,
      2,
      'webAPIProviderConfig.url: {{ vars.host }}: vars.host is not set (pass --set host=…, or give a default: vars.host ?? "…")',
    );
  });
});
