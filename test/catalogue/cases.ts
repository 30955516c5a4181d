// The catalogue of bad inputs: config text and fields, flags, environment, KUBERNETES_EXEC_INFO,
// templates and token API answers, each broken in one way (malformed, truncated, wrong type, huge,
// binary, unicode, empty, duplicated keys, BOM, CRLF, NUL…). Every row names the exit code and the
// exact one-line message; catalogue.test.ts runs them all in process, cli-parity.process.test.ts runs a
// sample through the built CLI.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePki } from '../helpers/pki.js';
import { startTokenApi, type TokenApi } from '../helpers/token-api.js';

const pki = makePki();

export type Area = 'config' | 'flags' | 'env' | 'exec-info' | 'templates' | 'responses';
export type Fault =
  | 'malformed'
  | 'truncated'
  | 'wrong type'
  | 'huge'
  | 'binary'
  | 'unicode'
  | 'empty'
  | 'duplicated keys'
  | 'BOM'
  | 'CRLF'
  | 'NUL'
  | 'unknown'
  | 'missing'
  | 'out of range'
  | 'conflict'
  | 'unsupported';

export interface Case {
  area: Area;
  fault: Fault;
  name: string;
  /** The arguments, given the URL of this case's token API endpoint. */
  args: (url: string) => string[];
  env?: Record<string, string>;
  /** What the token API answers; without it the case must fail before any request. */
  answer?: { status?: number; headers?: Record<string, string>; body: string | Buffer };
  code: 2 | 3 | 4;
  message: string | RegExp | ((url: string) => string);
}

/** Read by the header template of every config: must never be printed. */
const SECRET = {
  apiKey: 'cat-apikey-Wm5Tq8Zr',
  newline: 'cat-line-one\ncat-line-two',
  unicode: 'cat-key-\u{1F511}-Fp3Lx',
  long: 'cat-long-secret-value-Hq2Lm9Xr4Zt7',
} as const;
export const SECRET_ENV = {
  API_KEY: SECRET.apiKey,
  MULTILINE: SECRET.newline,
  EMOJI: SECRET.unicode,
  LONG_SECRET: SECRET.long,
};
/** Issued in answers: as secret as the env values. */
const ISSUED = 'cat-issued-token-Rb7Yk2Vd';
export const SECRETS = [
  SECRET.apiKey,
  SECRET.newline,
  'cat-line-one',
  'cat-line-two',
  SECRET.unicode,
  SECRET.long,
  SECRET.long.slice(0, 10),
  ISSUED,
];

const V1 = 'client.authentication.k8s.io/v1';
const scratch = mkdtempSync(join(tmpdir(), 'webapi-credential-catalogue-'));
function file(name: string, content: string | Buffer): string {
  const path = join(scratch, name);
  writeFileSync(path, content);
  return path;
}
const aDirectory = join(scratch, 'a-directory');
mkdirSync(aDirectory);

/** A valid config for `url` whose header template reads the secret; `extra` overrides or adds fields. */
function good(url: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    method: 'POST',
    url,
    tokenPath: '$.access_token',
    headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
    tls: { caFile: pki.ca.certFile },
    ...extra,
  };
}
const doc = (config: unknown) => JSON.stringify({ webAPIProviderConfig: config });
const inline = (text: string, ...rest: string[]) => ['--config-inline', text, ...rest];
const withConfig =
  (extra: Record<string, unknown>, ...rest: string[]) =>
  (url: string) =>
    inline(doc(good(url, extra)), ...rest);
const INVALID = 'config from --config-inline is invalid: ';
const P = 'webAPIProviderConfig';
const KNOWN =
  'known: let, steps, method, url, tokenPath, headers, query, body, form, json, expiryPath, expiresInPath, expiryFromJWT, expiresIn, clientCertificateDataPath, clientKeyDataPath, tls, allowInsecureHTTP, timeout, retry, maxResponseBytes, login, expiryMargin, cache';
const execInfo = (spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', spec: { interactive: false, ...spec }, ...extra });
const yamlConfig = (url: string, lines: string[], eol = '\n') =>
  ['webAPIProviderConfig:', '  method: POST', `  url: ${url}`, '  tokenPath: $.access_token', ...lines].join(eol) + eol;
const json = (body: unknown, status = 200) => ({ status, body: JSON.stringify(body) });

const binaryBytes = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0x7b, 0x22,
]);

export const cases: Case[] = [
  // ── config: the text ──────────────────────────────────────────────────────────────────────
  {
    area: 'config',
    fault: 'truncated',
    name: 'a JSON config cut off in the middle',
    args: (url) => inline(doc(good(url)).slice(0, 60)),
    code: 2,
    message:
      /^config from --config-inline is not valid YAML or JSON: Missing closing "quote: it opens at line 1, column \d+ and is never closed$/,
  },
  {
    area: 'config',
    fault: 'truncated',
    name: 'a YAML config cut off inside a quoted string',
    args: () => inline('webAPIProviderConfig:\n  method: POST\n  url: "https://token.example/tok'),
    code: 2,
    message:
      'config from --config-inline is not valid YAML or JSON: Missing closing "quote: it opens at line 3, column 8 and is never closed',
  },
  {
    area: 'config',
    fault: 'malformed',
    name: 'a YAML config indented with a tab',
    args: () => inline('webAPIProviderConfig:\n\tmethod: POST\n'),
    code: 2,
    message:
      'config from --config-inline is not valid YAML or JSON: Tabs are not allowed as indentation at line 2, column 1',
  },
  {
    area: 'config',
    fault: 'malformed',
    name: 'an alias bomb (billion laughs)',
    args: () =>
      inline(
        'a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n',
      ),
    code: 2,
    message:
      'config from --config-inline is not valid YAML or JSON: Excessive alias count indicates a resource exhaustion attack',
  },
  {
    area: 'config',
    fault: 'duplicated keys',
    name: 'a JSON config with url twice',
    args: (url) =>
      inline(`{"webAPIProviderConfig": {"method": "POST", "url": "${url}", "url": "${url}", "tokenPath": "$.t"}}`),
    code: 2,
    message: /^config from --config-inline is not valid YAML or JSON: Map keys must be unique at line 1, column \d+$/,
  },
  {
    area: 'config',
    fault: 'duplicated keys',
    name: 'a YAML config with tls.caFile twice',
    args: (url) => inline(yamlConfig(url, ['  tls:', '    caFile: /a.pem', '    caFile: /b.pem'])),
    code: 2,
    message: 'config from --config-inline is not valid YAML or JSON: Map keys must be unique at line 7, column 5',
  },
  {
    area: 'config',
    fault: 'BOM',
    name: 'a config file with a byte-order mark and a missing url',
    args: () => ['--config', file('bom.yaml', '\ufeffwebAPIProviderConfig:\n  method: POST\n  tokenPath: $.t\n')],
    code: 2,
    message: `config from --config ${join(scratch, 'bom.yaml')} is invalid: ${P}.url: is required`,
  },
  {
    area: 'config',
    fault: 'CRLF',
    name: 'a config file with CRLF line ends and a misspelt key',
    args: (url) => ['--config', file('crlf.yaml', yamlConfig(url, ['  retries: 3'], '\r\n'))],
    code: 2,
    message: `config from --config ${join(scratch, 'crlf.yaml')} is invalid: ${P}.retries: unknown field (${KNOWN})`,
  },
  {
    area: 'config',
    fault: 'NUL',
    name: 'a config text with a NUL byte',
    args: (url) => inline(doc(good(url)).replace('POST', 'PO\u0000ST')),
    code: 2,
    message: 'config from --config-inline is not YAML or JSON text (it contains NUL bytes)',
  },
  {
    area: 'config',
    fault: 'binary',
    name: 'a config file that is a PNG image',
    args: () => ['--config', file('image.png', binaryBytes)],
    code: 2,
    message: `config from --config ${join(scratch, 'image.png')} is not YAML or JSON text (it contains NUL bytes)`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'an empty --config-inline',
    args: () => inline(''),
    code: 2,
    message: 'config from --config-inline is empty',
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'a config of comments only',
    args: () => inline('# webAPIProviderConfig: to be written\n'),
    code: 2,
    message: `${INVALID}(document): expected a mapping, found null`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a config that is a list',
    args: (url) => inline(JSON.stringify([good(url)])),
    code: 2,
    message: `${INVALID}(document): expected a mapping, found a list`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a config that is a single string',
    args: () => inline('"webAPIProviderConfig"'),
    code: 2,
    message: `${INVALID}(document): expected a mapping, found string "webAPIProviderConfig"`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'a webAPIProviderConfig that is null',
    args: () => inline('webAPIProviderConfig:\n'),
    code: 2,
    message: `${INVALID}${P}: expected a mapping, found null`,
  },
  {
    area: 'config',
    fault: 'huge',
    name: 'a config nested twenty thousand levels deep',
    args: () => inline(`webAPIProviderConfig: ${'['.repeat(20_000)}${']'.repeat(20_000)}`),
    code: 2,
    message:
      'config from --config-inline is too large to read as YAML: more than 10000 YAML tokens (a config has a few hundred); write it as JSON, or keep large values in files',
  },
  {
    area: 'config',
    fault: 'unknown',
    name: 'an unknown key next to webAPIProviderConfig',
    args: (url) => inline(JSON.stringify({ webAPIProviderConfig: good(url), execProviderConfig: {} })),
    code: 2,
    message: `${INVALID}execProviderConfig: unknown field; did you mean webAPIProviderConfig?`,
  },
  {
    area: 'config',
    fault: 'unknown',
    name: 'a key that would reach Object.prototype',
    args: (url) =>
      inline(
        `{"webAPIProviderConfig": {"__proto__": {"polluted": true}, "method": "POST", "url": "${url}", "tokenPath": "$.t"}}`,
      ),
    code: 2,
    message: `${INVALID}${P}.__proto__: unknown field (${KNOWN})`,
  },
  {
    area: 'config',
    fault: 'CRLF',
    name: 'a query name with a line break in it',
    args: withConfig({ query: { 'aud\r\nX-Injected': ['a', 3] } }),
    code: 2,
    message: `${INVALID}${P}.query.aud\\r\\nX-Injected[1]: expected a string, found number 3`,
  },
  {
    area: 'config',
    fault: 'unknown',
    name: 'an unknown YAML tag',
    args: () => inline('webAPIProviderConfig: !!js/function "function () {}"'),
    code: 2,
    message: `${INVALID}${P}: expected a mapping, found string "function () {}"`,
  },
  // ── config: the fields ────────────────────────────────────────────────────────────────────
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a lower-case method',
    args: withConfig({ method: 'post' }),
    code: 2,
    message: `${INVALID}${P}.method: expected one of GET, POST, PUT, PATCH, DELETE, found string "post"`,
  },
  {
    area: 'config',
    fault: 'unicode',
    name: 'a method spelt with a Greek capital omicron',
    args: withConfig({ method: 'P\u039fST' }),
    code: 2,
    message: `${INVALID}${P}.method: expected one of GET, POST, PUT, PATCH, DELETE, found string "P\u039fST"`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a url that is a list',
    args: (url) => inline(doc(good(url, { url: [url] }))),
    code: 2,
    message: `${INVALID}${P}.url: expected a string, found a list`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'an empty url',
    args: withConfig({ url: '' }),
    code: 2,
    message: `${INVALID}${P}.url: expected an https:// URL, found ""`,
  },
  {
    area: 'config',
    fault: 'unsupported',
    name: 'an ftp:// url',
    args: withConfig({ url: 'ftp://token.example/token' }),
    code: 2,
    message: `${INVALID}${P}.url: expected an https:// URL, found "ftp://token.example/token"`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'headers given as a list',
    args: withConfig({ headers: ['Authorization: Bearer x'] }),
    code: 2,
    message: `${INVALID}${P}.headers: expected a mapping, found a list`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a header value that is a number',
    args: (url) => inline(yamlConfig(url, ['  headers:', '    X-Tenant-Id: 42'])),
    code: 2,
    message: `${INVALID}${P}.headers.X-Tenant-Id: expected a string, found number 42`,
  },
  {
    area: 'config',
    fault: 'malformed',
    name: 'a header name with a space',
    args: withConfig({ headers: { 'X Api Key': '{{ env.API_KEY }}' } }),
    code: 2,
    message: `${INVALID}${P}.headers.X Api Key: is not a valid HTTP header name`,
  },
  {
    area: 'config',
    fault: 'unicode',
    name: 'a header name with an umlaut',
    args: withConfig({ headers: { 'X-Schl\u00fcssel': 'x' } }),
    code: 2,
    message: `${INVALID}${P}.headers.X-Schl\u00fcssel: is not a valid HTTP header name`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a query value that is a mapping',
    args: withConfig({ query: { scope: { read: true } } }),
    code: 2,
    message: `${INVALID}${P}.query.scope: expected a string or a non-empty list of strings, found an object`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'a form value that is an empty list',
    args: withConfig({ form: { audience: [] } }),
    code: 2,
    message: `${INVALID}${P}.form.audience: expected a string or a non-empty list of strings, found a list`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a form list with a number in it',
    args: withConfig({ form: { audience: ['a', 2] } }),
    code: 2,
    message: `${INVALID}${P}.form.audience[1]: expected a string, found number 2`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a json body that is a string',
    args: withConfig({ json: '{"a": 1}' }),
    code: 2,
    message: `${INVALID}${P}.json: expected a mapping or a list, found string "{\\"a\\": 1}"`,
  },
  {
    area: 'config',
    fault: 'conflict',
    name: 'a GET with a json body',
    args: withConfig({ method: 'GET', json: { a: 1 } }),
    code: 2,
    message: `${INVALID}${P}.json: a GET request cannot have a body; use query or method POST`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a retry.limit written as a string',
    args: withConfig({ retry: { limit: '3' } }),
    code: 2,
    message: `${INVALID}${P}.retry.limit: expected an integer from 0 to 10, found string "3"`,
  },
  {
    area: 'config',
    fault: 'out of range',
    name: 'a retry.limit of 11',
    args: withConfig({ retry: { limit: 11 } }),
    code: 2,
    message: `${INVALID}${P}.retry.limit: expected an integer from 0 to 10, found number 11`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'a fractional retry.limit',
    args: withConfig({ retry: { limit: 1.5 } }),
    code: 2,
    message: `${INVALID}${P}.retry.limit: expected an integer from 0 to 10, found number 1.5`,
  },
  {
    area: 'config',
    fault: 'out of range',
    name: 'a maxResponseBytes of 0',
    args: withConfig({ maxResponseBytes: 0 }),
    code: 2,
    message: `${INVALID}${P}.maxResponseBytes: expected an integer from 1 to 67108864, found number 0`,
  },
  {
    area: 'config',
    fault: 'huge',
    name: 'a maxResponseBytes of a terabyte',
    args: withConfig({ maxResponseBytes: 1e12 }),
    code: 2,
    message: `${INVALID}${P}.maxResponseBytes: expected an integer from 1 to 67108864, found number 1000000000000`,
  },
  {
    area: 'config',
    fault: 'malformed',
    name: 'a timeout in words',
    args: withConfig({ timeout: 'ten seconds' }),
    code: 2,
    message: `${INVALID}${P}.timeout: expected a duration such as 10s, 500ms or 1m30s, found string "ten seconds"`,
  },
  {
    area: 'config',
    fault: 'out of range',
    name: 'a negative expiryMargin',
    args: withConfig({ expiryMargin: '-1s' }),
    code: 2,
    message: `${INVALID}${P}.expiryMargin: expected a duration such as 10s, 500ms or 1m30s, found string "-1s"`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'an expiryFromJWT of "yes"',
    args: withConfig({ expiryFromJWT: 'yes' }),
    code: 2,
    message: `${INVALID}${P}.expiryFromJWT: expected true or false, found string "yes"`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'an allowInsecureHTTP of "false", a string',
    args: withConfig({ allowInsecureHTTP: 'false' }),
    code: 2,
    message: `${INVALID}${P}.allowInsecureHTTP: expected true or false, found string "false"`,
  },
  {
    area: 'config',
    fault: 'wrong type',
    name: 'tls given as a path',
    args: withConfig({ tls: '/etc/ssl/ca.pem' }),
    code: 2,
    message: `${INVALID}${P}.tls: expected a mapping, found string "/etc/ssl/ca.pem"`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'an empty tls.caFile',
    args: withConfig({ tls: { caFile: '' } }),
    code: 2,
    message: `${INVALID}${P}.tls.caFile: expected a non-empty string, found string ""`,
  },
  {
    area: 'config',
    fault: 'conflict',
    name: 'tls.caFile and tls.caData both',
    args: withConfig({ tls: { caFile: pki.ca.certFile, caData: pki.ca.cert } }),
    code: 2,
    message: `${INVALID}${P}.tls.caData: set tls.caFile or tls.caData, not both`,
  },
  {
    area: 'config',
    fault: 'missing',
    name: 'a client certificate without its key',
    args: withConfig({ tls: { certFile: pki.client.certFile } }),
    code: 2,
    message: `${INVALID}${P}.tls.keyFile: a client certificate needs its key: set both certFile/certData and keyFile/keyData`,
  },
  {
    area: 'config',
    fault: 'conflict',
    name: 'expiryPath and expiresInPath both',
    args: withConfig({ expiryPath: '$.expires_at', expiresInPath: '$.expires_in' }),
    code: 2,
    message: `${INVALID}${P}.expiresInPath: set expiryPath or expiresInPath, not both`,
  },
  {
    area: 'config',
    fault: 'empty',
    name: 'an empty tokenPath',
    args: withConfig({ tokenPath: '' }),
    code: 2,
    message: `${INVALID}${P}.tokenPath: expected a non-empty string, found string ""`,
  },
  {
    area: 'config',
    fault: 'malformed',
    name: 'a tokenPath without $',
    args: withConfig({ tokenPath: 'access_token' }),
    code: 2,
    message: `${INVALID}${P}.tokenPath: invalid JSONPath "access_token": expected '$', found 'a' ('access_to':0)`,
  },
  {
    area: 'config',
    fault: 'truncated',
    name: 'a kubectl-style tokenPath cut off',
    args: withConfig({ tokenPath: '{.status.token' }),
    code: 2,
    message: `${INVALID}${P}.tokenPath: invalid JSONPath "{.status.token": expected '$', found '{' ('{.status.':0)`,
  },
  // ── flags ─────────────────────────────────────────────────────────────────────────────────
  {
    area: 'flags',
    fault: 'malformed',
    name: 'a --timeout in words',
    args: withConfig({}, '--timeout', 'abc'),
    code: 2,
    message: '--timeout "abc": expected a positive duration such as 10s, 500ms or 1m30s',
  },
  {
    area: 'flags',
    fault: 'malformed',
    name: 'a --timeout in exponent notation',
    args: withConfig({}, '--timeout', '1e3s'),
    code: 2,
    message: '--timeout "1e3s": expected a positive duration such as 10s, 500ms or 1m30s',
  },
  {
    area: 'flags',
    fault: 'missing',
    name: 'a --timeout without its value',
    args: withConfig({}, '--timeout'),
    code: 2,
    message: "option '--timeout <duration>' argument missing (see --help)",
  },
  {
    area: 'flags',
    fault: 'empty',
    name: 'an empty --set',
    args: withConfig({}, '--set', ''),
    code: 2,
    message: '--set "": expected key=value with a key of letters, digits, _ or -',
  },
  {
    area: 'flags',
    fault: 'unicode',
    name: 'a --set key in Cyrillic',
    args: withConfig({}, '--set', '\u043a\u043b\u044e\u0447=1'),
    code: 2,
    message: '--set "\u043a\u043b\u044e\u0447=1": expected key=value with a key of letters, digits, _ or -',
  },
  {
    area: 'flags',
    fault: 'wrong type',
    name: 'an --output in capitals',
    args: withConfig({}, '--output', 'TOKEN'),
    code: 2,
    message:
      "option '-o, --output <format>' argument 'TOKEN' is invalid. Allowed choices are exec-credential, token. (see --help)",
  },
  {
    area: 'flags',
    fault: 'empty',
    name: 'an empty --api-version',
    args: withConfig({}, '--api-version', ''),
    code: 2,
    message: `--api-version "" is not supported; use ${V1} or client.authentication.k8s.io/v1beta1`,
  },
  {
    area: 'flags',
    fault: 'unknown',
    name: 'a stray argument',
    args: withConfig({}, 'token'),
    code: 2,
    message: "too many arguments for 'get-token'. Expected 0 arguments but got 1. (see --help)",
  },
  {
    area: 'flags',
    fault: 'unknown',
    name: 'an unknown short flag',
    args: withConfig({}, '-x'),
    code: 2,
    message: "unknown option '-x' (see --help)",
  },
  {
    area: 'flags',
    fault: 'empty',
    name: 'an empty --config',
    args: () => ['--config', ''],
    code: 2,
    message: '--config "" names no file; pass the path of a YAML or JSON config',
  },
  {
    area: 'flags',
    fault: 'missing',
    name: 'a --config-inline without its value',
    args: () => ['--config-inline'],
    code: 2,
    message: "option '--config-inline <text>' argument missing (see --help)",
  },
  // ── environment ───────────────────────────────────────────────────────────────────────────
  {
    area: 'env',
    fault: 'malformed',
    name: 'a WEBAPI_CREDENTIAL_CONFIG_INLINE that is not YAML',
    args: () => [],
    env: { WEBAPI_CREDENTIAL_CONFIG_INLINE: 'webAPIProviderConfig: {method: POST' },
    code: 2,
    message:
      'config from WEBAPI_CREDENTIAL_CONFIG_INLINE is not valid YAML or JSON: Flow map in block collection must be sufficiently indented and end with a }: it opens at line 1, column 23 and is never closed',
  },
  {
    area: 'env',
    fault: 'BOM',
    name: 'a WEBAPI_CREDENTIAL_CONFIG_INLINE with a byte-order mark and no tokenPath',
    args: () => [],
    env: {
      WEBAPI_CREDENTIAL_CONFIG_INLINE:
        '\ufeff{"webAPIProviderConfig": {"method": "POST", "url": "https://token.example/t"}}',
    },
    code: 2,
    message: `config from WEBAPI_CREDENTIAL_CONFIG_INLINE is invalid: ${P}.tokenPath: is required (unless clientCertificateDataPath and clientKeyDataPath are both set)`,
  },
  {
    area: 'env',
    fault: 'wrong type',
    name: 'a WEBAPI_CREDENTIAL_CONFIG that is /dev/null',
    args: () => [],
    env: { WEBAPI_CREDENTIAL_CONFIG: '/dev/null' },
    // A device, not a regular file: /dev/zero would never end, /dev/null is refused alike.
    code: 2,
    message: 'cannot read config /dev/null: not a regular file',
  },
  {
    area: 'env',
    fault: 'wrong type',
    name: 'a WEBAPI_CREDENTIAL_CONFIG that is a directory',
    args: () => [],
    env: { WEBAPI_CREDENTIAL_CONFIG: aDirectory },
    code: 2,
    message: `cannot read config ${aDirectory}: not a regular file`,
  },
  {
    area: 'env',
    fault: 'unsupported',
    name: 'an all_proxy that is a SOCKS proxy',
    args: withConfig({}),
    env: { all_proxy: 'socks4://proxy.corp:1080' },
    code: 2,
    message: 'all_proxy names a socks4:// proxy; only http:// and https:// proxies (CONNECT) are supported',
  },
  {
    area: 'env',
    fault: 'malformed',
    name: 'an HTTPS_PROXY with an unclosed IPv6 bracket and a password',
    args: withConfig({}),
    env: { HTTPS_PROXY: 'http://user:cat-proxy-pw-99@[fe80::1' },
    code: 2,
    message: 'HTTPS_PROXY is not a proxy URL; expected http://[user:password@]host:port',
  },
  {
    area: 'env',
    fault: 'CRLF',
    name: 'an env value with a line break sent in a header',
    args: withConfig({ headers: { 'X-Secret': '{{ env.MULTILINE }}' } }),
    code: 2,
    message: `${P}.headers.X-Secret: rendered value contains a line break or NUL`,
  },
  {
    area: 'env',
    fault: 'unicode',
    name: 'an env value with an emoji sent in a header',
    args: withConfig({ headers: { 'X-Secret': '{{ env.EMOJI }}' } }),
    code: 2,
    message: `${P}.headers.X-Secret: rendered value contains U+1F511, which an HTTP header cannot carry; encode it with urlencode() or base64()`,
  },
  // ── KUBERNETES_EXEC_INFO ──────────────────────────────────────────────────────────────────
  {
    area: 'exec-info',
    fault: 'truncated',
    name: 'a KUBERNETES_EXEC_INFO cut off',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: execInfo().slice(0, 40) },
    code: 2,
    message: 'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
  },
  {
    area: 'exec-info',
    fault: 'BOM',
    name: 'a KUBERNETES_EXEC_INFO with a byte-order mark',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: `\ufeff${execInfo()}` },
    code: 2,
    message: 'KUBERNETES_EXEC_INFO is not valid JSON; it is set by client-go, unset it to run by hand',
  },
  {
    area: 'exec-info',
    fault: 'wrong type',
    name: 'a KUBERNETES_EXEC_INFO that is a list',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: `[${execInfo()}]` },
    code: 2,
    message: 'KUBERNETES_EXEC_INFO is not a JSON object',
  },
  {
    area: 'exec-info',
    fault: 'empty',
    name: 'a KUBERNETES_EXEC_INFO that is null',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: 'null' },
    code: 2,
    message: 'KUBERNETES_EXEC_INFO is not a JSON object',
  },
  {
    area: 'exec-info',
    fault: 'wrong type',
    name: 'a KUBERNETES_EXEC_INFO of another kind',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: execInfo({}, { kind: 'Pod' }) },
    code: 2,
    message: 'KUBERNETES_EXEC_INFO has kind "Pod", expected "ExecCredential"',
  },
  {
    area: 'exec-info',
    fault: 'wrong type',
    name: 'a KUBERNETES_EXEC_INFO whose apiVersion is a number',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: execInfo({}, { apiVersion: 1 }) },
    code: 2,
    message: `KUBERNETES_EXEC_INFO has apiVersion 1; supported: ${V1}, client.authentication.k8s.io/v1beta1`,
  },
  {
    area: 'exec-info',
    fault: 'missing',
    name: 'a KUBERNETES_EXEC_INFO without apiVersion',
    args: withConfig({}),
    env: { KUBERNETES_EXEC_INFO: JSON.stringify({ kind: 'ExecCredential', spec: {} }) },
    code: 2,
    message: `KUBERNETES_EXEC_INFO has apiVersion null; supported: ${V1}, client.authentication.k8s.io/v1beta1`,
  },
  {
    area: 'exec-info',
    fault: 'missing',
    name: 'a cluster extension config without a url',
    args: () => ['--config-from-cluster'],
    env: {
      KUBERNETES_EXEC_INFO: execInfo({
        cluster: { server: 'https://k8s', config: { webAPIProviderConfig: { method: 'POST', tokenPath: '$.t' } } },
      }),
    },
    code: 2,
    message: `config from KUBERNETES_EXEC_INFO spec.cluster.config is invalid: ${P}.url: is required`,
  },
  {
    area: 'exec-info',
    fault: 'wrong type',
    name: 'a spec.cluster that is a string, read by a template',
    args: withConfig({ headers: { 'X-Cluster': '{{ cluster.server }}' } }),
    env: { KUBERNETES_EXEC_INFO: execInfo({ cluster: 'https://k8s' }) },
    code: 2,
    message: `${P}.headers.X-Cluster: {{ cluster.server }}: cluster is not set (KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry)`,
  },
  {
    area: 'exec-info',
    fault: 'huge',
    name: 'a megabyte KUBERNETES_EXEC_INFO with an unsupported apiVersion',
    args: withConfig({}),
    env: {
      KUBERNETES_EXEC_INFO: execInfo(
        { cluster: { server: 'https://k8s', 'certificate-authority-data': 'A'.repeat(1 << 20) } },
        { apiVersion: 'client.authentication.k8s.io/v2' },
      ),
    },
    code: 2,
    message: `KUBERNETES_EXEC_INFO has apiVersion "client.authentication.k8s.io/v2"; supported: ${V1}, client.authentication.k8s.io/v1beta1`,
  },
  // ── templates ─────────────────────────────────────────────────────────────────────────────
  {
    area: 'templates',
    fault: 'truncated',
    name: 'a template closed with one brace',
    args: withConfig({ query: { aud: '{{ vars.aud }' } }),
    code: 2,
    message: `${INVALID}${P}.query.aud: {{ at character 1 is never closed with }}`,
  },
  {
    area: 'templates',
    fault: 'malformed',
    name: 'a template expression that is not JavaScript',
    args: withConfig({ query: { aud: '{{ env.( }}' } }),
    code: 2,
    message: `${INVALID}${P}.query.aud: {{ env.( }}: Unexpected ( at character 4`,
  },
  {
    area: 'templates',
    fault: 'empty',
    name: 'an empty template expression',
    args: withConfig({ query: { aud: 'x-{{ }}' } }),
    code: 2,
    message: `${INVALID}${P}.query.aud: {{ }} holds no expression`,
  },
  {
    area: 'templates',
    fault: 'wrong type',
    name: 'a template that yields an object',
    args: withConfig({ headers: { 'X-Cluster': '{{ cluster }}' } }),
    env: { KUBERNETES_EXEC_INFO: execInfo({ cluster: { server: 'https://k8s' } }) },
    code: 2,
    message: `${P}.headers.X-Cluster: {{ cluster }}: yields an object; wrap it in json(…)`,
  },
  {
    area: 'templates',
    fault: 'empty',
    name: 'a template that yields null',
    args: withConfig({ form: { a: '{{ null }}' } }),
    code: 2,
    message: `${P}.form.a: {{ null }}: yields null`,
  },
  {
    area: 'templates',
    fault: 'missing',
    name: 'a helper given an unset env value',
    args: withConfig({ form: { a: '{{ base64decode(env.NOT_SET) }}' } }),
    code: 2,
    message: `${P}.form.a: {{ base64decode(env.NOT_SET) }}: env.NOT_SET is not set (set it in the environment or the kubeconfig exec env)`,
  },
  {
    area: 'templates',
    fault: 'empty',
    name: 'file() of an empty path',
    args: withConfig({ form: { a: '{{ file("") }}' } }),
    code: 2,
    message: `${P}.form.a: {{ file("") }}: file("") cannot be read: no such file`,
  },
  {
    area: 'templates',
    fault: 'wrong type',
    name: 'file() of a directory',
    args: withConfig({ form: { a: `{{ file(${JSON.stringify(aDirectory)}) }}` } }),
    code: 2,
    message: `${P}.form.a: {{ file(${JSON.stringify(aDirectory)}) }}: file(${JSON.stringify(aDirectory)}) cannot be read: not a regular file`,
  },
  {
    area: 'templates',
    fault: 'huge',
    name: 'a template that would build a gigabyte string with a method',
    args: withConfig({ json: { a: '{{ "a".repeat(2 ** 30) }}' } }),
    code: 2,
    message: `${INVALID}${P}.json.a: {{ "a".repeat(2 ** 30) }}: calling a method (repeat) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid`,
  },
  {
    area: 'templates',
    fault: 'unsupported',
    name: 'a template that calls require()',
    args: withConfig({ json: { a: '{{ require("fs").readFileSync("/etc/passwd") }}' } }),
    code: 2,
    message: `${INVALID}${P}.json.a: {{ require("fs").readFileSync("/etc/passwd") }}: calling a method (readFileSync) is not allowed; only the helpers can be called: urlencode, base64, base64url, base64decode, lower, upper, trim, json, fromJson, file, basicAuth, jwt, now, uuid`,
  },
  {
    area: 'templates',
    fault: 'unicode',
    name: 'a template reading a var named in Cyrillic',
    args: withConfig({ query: { aud: '{{ vars["\u043a\u043b\u044e\u0447"] }}' } }),
    code: 2,
    message: `${P}.query.aud: {{ vars["\u043a\u043b\u044e\u0447"] }}: vars["\u043a\u043b\u044e\u0447"] is not set`,
  },
  {
    area: 'templates',
    fault: 'malformed',
    name: 'a template that parses a long secret as JSON',
    args: withConfig({ json: { a: '{{ fromJson(env.LONG_SECRET).id }}' } }),
    code: 2,
    message: `${P}.json.a: {{ fromJson(env.LONG_SECRET).id }}: fromJson() was given text that is not JSON`,
  },
  {
    area: 'templates',
    fault: 'malformed',
    name: 'a url template that renders to something that is not a URL',
    args: withConfig({ url: '{{ vars.base }}/token' }, '--set', 'base=token-service'),
    code: 2,
    message: `${P}.url: rendered to something that is not a URL`,
  },
  {
    area: 'templates',
    fault: 'unsupported',
    name: 'a url template that renders to ftp://',
    args: withConfig({ url: '{{ vars.base }}/token' }, '--set', 'base=ftp://token.example'),
    code: 2,
    message: `${P}.url: expected an https:// URL, found ftp://`,
  },
  {
    area: 'templates',
    fault: 'NUL',
    name: 'a --set value with a NUL-like control character sent in a header',
    args: withConfig({ headers: { 'X-Org': '{{ vars.org }}' } }, '--set', 'org=acme\u0007'),
    code: 2,
    message: `${P}.headers.X-Org: rendered value contains U+0007, which an HTTP header cannot carry; encode it with urlencode() or base64()`,
  },
  // ── responses ─────────────────────────────────────────────────────────────────────────────
  {
    area: 'responses',
    fault: 'truncated',
    name: 'a JSON answer cut off inside the token',
    args: withConfig({}),
    answer: { body: `{"access_token": "${ISSUED.slice(0, 8)}` },
    code: 4,
    message: 'the token API answered with something that is not JSON (application/json, 26 bytes)',
  },
  {
    area: 'responses',
    fault: 'binary',
    name: 'an answer of binary bytes',
    args: withConfig({}),
    answer: { headers: { 'content-type': 'application/octet-stream' }, body: binaryBytes },
    code: 4,
    message: 'the token API answered with something that is not JSON (application/octet-stream, 16 bytes)',
  },
  {
    area: 'responses',
    fault: 'NUL',
    name: 'a JSON answer with a raw NUL inside the token',
    args: withConfig({}),
    answer: { body: `{"access_token": "${ISSUED}\u0000"}` },
    code: 4,
    message: 'the token API answered with something that is not JSON (application/json, 46 bytes)',
  },
  {
    area: 'responses',
    fault: 'BOM',
    name: 'a JSON answer with a byte-order mark and no access_token',
    args: withConfig({}),
    answer: { body: `\ufeff{"token": "${ISSUED}"}` },
    code: 4,
    message: 'tokenPath $.access_token matched nothing in the response; $ has keys "token"',
  },
  {
    area: 'responses',
    fault: 'CRLF',
    name: 'a pretty-printed answer with CRLF line ends and the token one level down',
    args: withConfig({}),
    answer: { body: JSON.stringify({ data: { access_token: ISSUED } }, null, 2).replace(/\n/g, '\r\n') },
    code: 4,
    message: 'tokenPath $.access_token matched nothing in the response; $ has keys "data"',
  },
  {
    area: 'responses',
    fault: 'duplicated keys',
    name: 'an answer with access_token twice, the last a number',
    args: withConfig({}),
    answer: { body: `{"access_token": "${ISSUED}", "access_token": 42}` },
    code: 4,
    message: 'tokenPath $.access_token matched a number, expected a non-empty string',
  },
  {
    area: 'responses',
    fault: 'empty',
    name: 'an empty JSON object',
    args: withConfig({}),
    answer: json({}),
    code: 4,
    message: 'tokenPath $.access_token matched nothing in the response; $ is an empty object',
  },
  {
    area: 'responses',
    fault: 'wrong type',
    name: 'a token that is true',
    args: withConfig({}),
    answer: json({ access_token: true }),
    code: 4,
    message: 'tokenPath $.access_token matched a boolean, expected a non-empty string',
  },
  {
    area: 'responses',
    fault: 'wrong type',
    name: 'a token that is null',
    args: withConfig({}),
    answer: json({ access_token: null }),
    code: 4,
    message: 'tokenPath $.access_token matched null, expected a non-empty string',
  },
  {
    area: 'responses',
    fault: 'wrong type',
    name: 'a token that is a list',
    args: withConfig({}),
    answer: json({ access_token: [ISSUED] }),
    code: 4,
    message: 'tokenPath $.access_token matched a list, expected a non-empty string',
  },
  {
    area: 'responses',
    fault: 'unicode',
    name: 'a token of Unicode spaces only',
    args: withConfig({}),
    answer: json({ access_token: '\u00a0\u2003\u3000' }),
    code: 4,
    message: 'tokenPath $.access_token matched an empty string',
  },
  {
    area: 'responses',
    fault: 'CRLF',
    name: 'a token with a line break in it',
    args: withConfig({}),
    answer: json({ access_token: `${ISSUED}\r\nX-Injected: 1` }),
    code: 4,
    message:
      'tokenPath $.access_token matched a string with control characters (a line break?), which cannot be sent as a bearer token',
  },
  {
    area: 'responses',
    fault: 'wrong type',
    name: 'an answer that is the number 42',
    args: withConfig({}),
    answer: json(42),
    code: 4,
    message: 'the token API answered JSON number, expected an object',
  },
  {
    area: 'responses',
    fault: 'out of range',
    name: 'a negative expires_in',
    args: withConfig({ expiresInPath: '$.expires_in' }),
    answer: json({ access_token: ISSUED, expires_in: -3600 }),
    code: 4,
    message: 'expiresInPath $.expires_in matched the number -3600, expected a positive number of seconds',
  },
  {
    area: 'responses',
    fault: 'huge',
    name: 'an expires_in of 1e308 seconds',
    args: withConfig({ expiresInPath: '$.expires_in' }),
    answer: json({ access_token: ISSUED, expires_in: 1e308 }),
    code: 4,
    message: 'expiresInPath $.expires_in matched an expiry past the year 9999, which no timestamp can carry',
  },
  {
    area: 'responses',
    fault: 'malformed',
    name: 'an expiry with month 13',
    args: withConfig({ expiryPath: '$.expires_at' }),
    answer: json({ access_token: ISSUED, expires_at: '2030-13-45T99:99:99Z' }),
    code: 4,
    message: 'expiryPath $.expires_at matched a time that does not exist (month 13)',
  },
  {
    area: 'responses',
    fault: 'huge',
    name: 'an answer with five hundred keys but not the token',
    args: withConfig({}),
    answer: json(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, ISSUED]))),
    code: 4,
    message: `tokenPath $.access_token matched nothing in the response; $ has keys ${Array.from({ length: 20 }, (_, i) => `"k${i}"`).join(', ')} and 480 more`,
  },
  {
    area: 'responses',
    fault: 'huge',
    name: 'a two-megabyte answer under the default limit of one',
    args: withConfig({}),
    answer: { body: JSON.stringify({ access_token: ISSUED, padding: 'p'.repeat(2 << 20) }) },
    code: 4,
    message: 'the token API answered with more than maxResponseBytes (1048576 bytes)',
  },
  {
    area: 'responses',
    fault: 'binary',
    name: 'an error answer of binary bytes',
    args: withConfig({}),
    answer: { status: 401, headers: { 'content-type': 'image/png' }, body: binaryBytes },
    code: 3,
    message:
      'the token API answered 401 Unauthorized: image/png, 16 bytes (--verbose shows an excerpt); check env.API_KEY',
  },
  {
    area: 'responses',
    fault: 'empty',
    name: 'an error answer without a body',
    args: withConfig({}),
    answer: { status: 403, body: '' },
    code: 3,
    message: 'the token API answered 403 Forbidden; check env.API_KEY',
  },
  {
    area: 'responses',
    fault: 'unsupported',
    name: 'a 304 to a request that asked for nothing cached',
    args: withConfig({}),
    answer: { status: 304, body: '' },
    code: 3,
    message: 'the token API answered 304 Not Modified',
  },
  {
    area: 'responses',
    fault: 'missing',
    name: 'a 302 without a Location, echoing the API key',
    args: withConfig({}),
    answer: { status: 302, headers: { 'content-type': 'text/plain' }, body: `moved; you sent Bearer ${SECRET.apiKey}` },
    code: 3,
    message: 'the token API answered 302 Found: text/plain, 42 bytes (--verbose shows an excerpt)',
  },
];

/** One token API for the catalogue: row `i` is answered on /case/i; a row without an answer gets a token. */
export function startCatalogueApi(): Promise<TokenApi> {
  return startTokenApi((req, res) => {
    const row = cases[Number(/^\/case\/(\d+)$/.exec(req.path)?.[1] ?? -1)];
    const answer = row?.answer ?? { status: 200, body: JSON.stringify({ access_token: ISSUED }) };
    res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
}
