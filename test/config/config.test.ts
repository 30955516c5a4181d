// Config: the pure validator (shape + cross-field rules + defaults), the shape checker and durations,
// the source precedence and the YAML/JSON parsing. The real JSONPath checker is used throughout.
import { describe, expect, it } from 'vitest';
import { parseConfigText, selectSource, type ConfigFlags, type ConfigSource } from '../../src/config/load.js';
import { DEFAULTS, type ProviderConfig } from '../../src/config/schema.js';
import { check, parseDuration, type Issue, type Shape } from '../../src/config/shape.js';
import { normalizePath, validateProviderDocument } from '../../src/config/validate.js';
import { UsageError } from '../../src/errors.js';
import { checkPath } from '../../src/credential/jsonpath.js';

const BASE = { method: 'POST', url: 'https://auth.example.com/token', tokenPath: '$.access_token' };

function validate(document: unknown) {
  return validateProviderDocument(document, checkPath);
}

/** Every issue of a provider config as `path: message`; [] when it is valid. */
function issuesOf(provider: Record<string, unknown>): string[] {
  const result = validate({ webAPIProviderConfig: provider });
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`);
}

function configOf(provider: Record<string, unknown>): ProviderConfig {
  const result = validate({ webAPIProviderConfig: provider });
  if (!result.ok) throw new Error(`unexpectedly invalid: ${JSON.stringify(result.issues)}`);
  return result.config;
}

function without<T extends Record<string, unknown>>(record: T, key: keyof T): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...record };
  delete copy[key as string];
  return copy;
}

const P = 'webAPIProviderConfig';
const PROVIDER_FIELDS =
  'let, steps, method, url, tokenPath, headers, query, body, form, json, expiryPath, expiresInPath, expiryFromJWT, expiresIn, clientCertificateDataPath, ' +
  'clientKeyDataPath, tls, allowInsecureHTTP, timeout, retry, maxResponseBytes, login, expiryMargin, cache';
const TLS_FIELDS = 'caFile, caData, certFile, certData, keyFile, keyData, serverName, insecureSkipVerify';
const DURATION = 'expected a duration such as 10s, 500ms or 1m30s';

describe('validateProviderDocument', () => {
  it('accepts the minimal config and applies every default', () => {
    expect(configOf(BASE)).toEqual({
      lets: [],
      steps: [],
      method: 'POST',
      url: 'https://auth.example.com/token',
      headers: {},
      query: {},
      body: { kind: 'none' },
      paths: { token: '$.access_token' },
      expiryFromJWT: true,
      tls: {},
      allowInsecureHTTP: false,
      timeoutMs: 10_000,
      retryLimit: 2,
      maxResponseBytes: 1_048_576,
      expiryMarginMs: 60_000,
      cacheEnabled: false,
      cacheFailureTtlMs: 10_000,
    } satisfies ProviderConfig);
  });

  it("lets a step's http:// URL through when the top level sets allowInsecureHTTP (SPEC: a step takes it from there)", () => {
    const step = { name: 'login', method: 'GET', url: 'http://127.0.0.1:8080/login' };
    expect(issuesOf({ ...BASE, url: 'http://127.0.0.1:8080/token', allowInsecureHTTP: true, steps: [step] })).toEqual(
      [],
    );
    expect(issuesOf({ ...BASE, allowInsecureHTTP: true, steps: [{ ...step, allowInsecureHTTP: false }] })).toEqual([
      'webAPIProviderConfig.steps[0].url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true',
    ]);
    expect(issuesOf({ ...BASE, steps: [step] })).toHaveLength(1);
  });

  it('documents the defaults as the SPEC states them', () => {
    expect(DEFAULTS).toEqual({
      timeoutMs: 10_000,
      retryLimit: 2,
      maxResponseBytes: 1024 * 1024,
      expiryMarginMs: 60_000,
      cacheFailureTtlMs: 10_000,
    });
  });

  it('resolves every field of a full config', () => {
    const config = configOf({
      method: 'PUT',
      url: 'https://auth.example.com/token?aud={{ vars.audience }}',
      tokenPath: '{.status.token}',
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      query: { scope: '{{ vars.scope }}', resource: ['a', 'b'] },
      form: { grant_type: 'client_credentials', audience: ['x', 'y'] },
      expiresInPath: '$.expires_in',
      expiryFromJWT: false,
      clientCertificateDataPath: '$.status.cert',
      clientKeyDataPath: '{.status.key}',
      tls: {
        caFile: '/ca.pem',
        certData: 'CERT',
        keyFile: '/key.pem',
        serverName: 'auth.internal',
        insecureSkipVerify: false,
      },
      allowInsecureHTTP: true,
      timeout: '1m30s',
      retry: { limit: 0 },
      maxResponseBytes: 4096,
      expiryMargin: '500ms',
      cache: { enabled: true, failureTTL: '0s' },
    });
    expect(config).toEqual({
      lets: [],
      steps: [],
      method: 'PUT',
      url: 'https://auth.example.com/token?aud={{ vars.audience }}',
      headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
      query: { scope: ['{{ vars.scope }}'], resource: ['a', 'b'] },
      body: { kind: 'form', fields: { grant_type: ['client_credentials'], audience: ['x', 'y'] } },
      paths: {
        token: '$.status.token',
        expiresIn: '$.expires_in',
        clientCertificateData: '$.status.cert',
        clientKeyData: '$.status.key',
      },
      expiryFromJWT: false,
      tls: {
        caFile: '/ca.pem',
        certData: 'CERT',
        keyFile: '/key.pem',
        serverName: 'auth.internal',
        insecureSkipVerify: false,
      },
      allowInsecureHTTP: true,
      timeoutMs: 90_000,
      retryLimit: 0,
      maxResponseBytes: 4096,
      expiryMarginMs: 500,
      cacheEnabled: true,
      cacheFailureTtlMs: 0,
    } satisfies ProviderConfig);
  });

  it.each<[string, Record<string, unknown>, ProviderConfig['body']]>([
    [
      'a raw body is kept as a template',
      { body: 'raw={{ urlencode(env.X) }}' },
      { kind: 'raw', template: 'raw={{ urlencode(env.X) }}' },
    ],
    ['a form body turns single values into lists', { form: { a: 'b' } }, { kind: 'form', fields: { a: ['b'] } }],
    [
      'a json body is kept as written',
      { json: { spec: { token: '{{ env.T }}' } } },
      { kind: 'json', value: { spec: { token: '{{ env.T }}' } } },
    ],
    ['a json body may be a list', { json: ['{{ env.T }}'] }, { kind: 'json', value: ['{{ env.T }}'] }],
  ])('resolves the body form: %s', (_name, patch, body) => {
    expect(configOf({ ...BASE, ...patch }).body).toEqual(body);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ['method is a number', { method: 5 }, [`${P}.method: expected a string, found number 5`]],
    [
      'method is lower case',
      { method: 'post' },
      [`${P}.method: expected one of GET, POST, PUT, PATCH, DELETE, found string "post"`],
    ],
    ['url is a list', { url: ['https://a'] }, [`${P}.url: expected a string, found a list`]],
    ['tokenPath is a number', { tokenPath: 5 }, [`${P}.tokenPath: expected a string, found number 5`]],
    ['tokenPath is empty', { tokenPath: '' }, [`${P}.tokenPath: expected a non-empty string, found string ""`]],
    [
      'headers is a string',
      { headers: 'Authorization: x' },
      [`${P}.headers: expected a mapping, found string "Authorization: x"`],
    ],
    [
      'a header value is a number',
      { headers: { 'X-Num': 5 } },
      [`${P}.headers.X-Num: expected a string, found number 5`],
    ],
    ['query is a list', { query: ['a'] }, [`${P}.query: expected a mapping, found a list`]],
    [
      'a query value is an object',
      { query: { scope: {} } },
      [`${P}.query.scope: expected a string or a non-empty list of strings, found an object`],
    ],
    [
      'a query value is an empty list',
      { query: { scope: [] } },
      [`${P}.query.scope: expected a string or a non-empty list of strings, found a list`],
    ],
    [
      'a query list holds a number',
      { query: { scope: ['a', 5] } },
      [`${P}.query.scope[1]: expected a string, found number 5`],
    ],
    [
      'body is an object',
      { body: { a: 1 } },
      [`${P}.body: expected a string, found a map; a JSON body is written under json:`],
    ],
    ['form is a string', { form: 'a=b' }, [`${P}.form: expected a mapping, found string "a=b"`]],
    [
      'a form value is a boolean',
      { form: { grant_type: true } },
      [`${P}.form.grant_type: expected a string or a non-empty list of strings, found boolean true`],
    ],
    [
      'a form list holds null',
      { form: { audience: [null] } },
      [`${P}.form.audience[0]: expected a string, found null`],
    ],
    ['json is a string', { json: '{"a":1}' }, [`${P}.json: expected a mapping or a list, found string "{\\"a\\":1}"`]],
    ['expiryPath is a number', { expiryPath: 1 }, [`${P}.expiryPath: expected a string, found number 1`]],
    ['expiresInPath is null', { expiresInPath: null }, [`${P}.expiresInPath: expected a string, found null`]],
    [
      'expiryFromJWT is the string yes',
      { expiryFromJWT: 'yes' },
      [`${P}.expiryFromJWT: expected true or false, found string "yes"`],
    ],
    [
      'clientCertificateDataPath is a number',
      { clientCertificateDataPath: 5, clientKeyDataPath: '$.key' },
      [`${P}.clientCertificateDataPath: expected a string, found number 5`],
    ],
    [
      'clientKeyDataPath is a boolean',
      { clientCertificateDataPath: '$.cert', clientKeyDataPath: false },
      [`${P}.clientKeyDataPath: expected a string, found boolean false`],
    ],
    ['tls is a boolean', { tls: true }, [`${P}.tls: expected a mapping, found boolean true`]],
    ['tls.caFile is a number', { tls: { caFile: 5 } }, [`${P}.tls.caFile: expected a string, found number 5`]],
    ['tls.caData is empty', { tls: { caData: '' } }, [`${P}.tls.caData: expected a non-empty string, found string ""`]],
    [
      'tls.certFile is a number',
      { tls: { certFile: 1, keyFile: '/k' } },
      [`${P}.tls.certFile: expected a string, found number 1`],
    ],
    [
      'tls.certData is a list',
      { tls: { certData: [], keyData: 'KEY' } },
      [`${P}.tls.certData: expected a string, found a list`],
    ],
    [
      'tls.keyFile is an object',
      { tls: { certFile: '/c', keyFile: {} } },
      [`${P}.tls.keyFile: expected a string, found a map: YAML reads an unquoted {…} as one; quote it`],
    ],
    [
      'tls.keyData is a number',
      { tls: { certData: 'CERT', keyData: 7 } },
      [`${P}.tls.keyData: expected a string, found number 7`],
    ],
    [
      'tls.serverName is a number',
      { tls: { serverName: 7 } },
      [`${P}.tls.serverName: expected a string, found number 7`],
    ],
    [
      'tls.insecureSkipVerify is a string',
      { tls: { insecureSkipVerify: 'false' } },
      [`${P}.tls.insecureSkipVerify: expected true or false, found string "false"`],
    ],
    [
      'allowInsecureHTTP is a number',
      { allowInsecureHTTP: 1 },
      [`${P}.allowInsecureHTTP: expected true or false, found number 1`],
    ],
    ['timeout is a bare number', { timeout: 10 }, [`${P}.timeout: ${DURATION}, found number 10`]],
    ['timeout is in words', { timeout: '10 seconds' }, [`${P}.timeout: ${DURATION}, found string "10 seconds"`]],
    ['retry is a number', { retry: 3 }, [`${P}.retry: expected a mapping, found number 3`]],
    [
      'retry.limit is a fraction',
      { retry: { limit: 1.5 } },
      [`${P}.retry.limit: expected an integer from 0 to 10, found number 1.5`],
    ],
    [
      'retry.limit is negative',
      { retry: { limit: -1 } },
      [`${P}.retry.limit: expected an integer from 0 to 10, found number -1`],
    ],
    [
      'retry.limit is above 10',
      { retry: { limit: 11 } },
      [`${P}.retry.limit: expected an integer from 0 to 10, found number 11`],
    ],
    [
      'retry.limit is a string',
      { retry: { limit: '2' } },
      [`${P}.retry.limit: expected an integer from 0 to 10, found string "2"`],
    ],
    [
      'maxResponseBytes is zero',
      { maxResponseBytes: 0 },
      [`${P}.maxResponseBytes: expected an integer from 1 to 67108864, found number 0`],
    ],
    [
      'maxResponseBytes is above 64 MiB',
      { maxResponseBytes: 64 * 1024 * 1024 + 1 },
      [`${P}.maxResponseBytes: expected an integer from 1 to 67108864, found number 67108865`],
    ],
    [
      'maxResponseBytes has a unit',
      { maxResponseBytes: '1MiB' },
      [`${P}.maxResponseBytes: expected an integer from 1 to 67108864, found string "1MiB"`],
    ],
    ['expiryMargin is in days', { expiryMargin: '1d' }, [`${P}.expiryMargin: ${DURATION}, found string "1d"`]],
    ['cache is a boolean', { cache: true }, [`${P}.cache: expected a mapping, found boolean true`]],
    [
      'cache.enabled is the string on',
      { cache: { enabled: 'on' } },
      [`${P}.cache.enabled: expected true or false, found string "on"`],
    ],
  ])('reports a wrong type with its field path when %s', (_name, patch, expected) => {
    expect(issuesOf({ ...BASE, ...patch })).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'an unquoted {.access_token} tokenPath',
      { tokenPath: { '.access_token': null } },
      `${P}.tokenPath: expected a string, found a map: YAML reads an unquoted {…} as one; quote it: "{.access_token}"`,
    ],
    [
      'an unquoted {{ env.X }} header',
      { headers: { A: { '[object Object]': null } } },
      `${P}.headers.A: expected a string, found a map: YAML reads an unquoted {…} as one; quote it`,
    ],
    [
      'a map whose key is no path, not echoed',
      { tokenPath: { 'secret value': null } },
      `${P}.tokenPath: expected a string, found a map: YAML reads an unquoted {…} as one; quote it`,
    ],
  ])('says to quote %s', (_name, fields, expected) => {
    expect(issuesOf({ ...BASE, ...fields })).toEqual([expected]);
  });

  it('shows a long wrong string as "a string", not its value', () => {
    expect(issuesOf({ ...BASE, method: 'x'.repeat(41) })).toEqual([
      `${P}.method: expected one of GET, POST, PUT, PATCH, DELETE, found a string`,
    ]);
  });

  it.each<[string, unknown, string[]]>([
    [
      'a top-level key beside webAPIProviderConfig',
      { webAPIProviderConfig: BASE, extra: 1 },
      ['extra: unknown field (known: webAPIProviderConfig)'],
    ],
    [
      'a misspelt provider field',
      { webAPIProviderConfig: { ...BASE, tokenpath: '$.x' } },
      [`${P}.tokenpath: unknown field; did you mean tokenPath?`],
    ],
    [
      'a misspelt tls field',
      { webAPIProviderConfig: { ...BASE, tls: { caFiles: '/ca' } } },
      [`${P}.tls.caFiles: unknown field; did you mean caFile?`],
    ],
    [
      'a tls field at the top',
      { webAPIProviderConfig: { ...BASE, caFile: '/ca' } },
      [`${P}.caFile: unknown field here; it belongs under tls (${P}.tls.caFile)`],
    ],
    [
      'tls at the top of the file',
      { webAPIProviderConfig: BASE, tls: { caFile: '/ca' } },
      [`tls: unknown field at the top of the file; it belongs under ${P} (${P}.tls)`],
    ],
    [
      'caFile at the top of the file',
      { webAPIProviderConfig: BASE, caFile: '/ca' },
      [`caFile: unknown field at the top of the file; it belongs under ${P} (${P}.tls.caFile)`],
    ],
    [
      'a misspelt field at the top of the file',
      { webAPIProviderConfig: BASE, tokenpath: '$.x' },
      ['tokenpath: unknown field (known: webAPIProviderConfig)'],
    ],
    [
      'a misspelt required field, without a follow-on "is required"',
      { webAPIProviderConfig: { method: 'POST', url: 'https://a/t', tokenpath: '$.x' } },
      [`${P}.tokenpath: unknown field; did you mean tokenPath?`],
    ],
    [
      'an unknown retry field',
      { webAPIProviderConfig: { ...BASE, retry: { max: 3 } } },
      [`${P}.retry.max: unknown field (known: limit)`],
    ],
    [
      'an unknown cache field',
      { webAPIProviderConfig: { ...BASE, cache: { dir: '/tmp' } } },
      [`${P}.cache.dir: unknown field (known: enabled, failureTTL)`],
    ],
    [
      'a __proto__ key from JSON',
      JSON.parse(`{"webAPIProviderConfig": ${JSON.stringify(BASE)}, "__proto__": {"x": 1}}`),
      ['__proto__: unknown field (known: webAPIProviderConfig)'],
    ],
    [
      'a provider field named like an Object.prototype member',
      { webAPIProviderConfig: { ...BASE, constructor: 1 } },
      [`${P}.constructor: unknown field (known: ${PROVIDER_FIELDS})`],
    ],
    [
      'a tls field named toString',
      { webAPIProviderConfig: { ...BASE, tls: { toString: 'x' } } },
      [`${P}.tls.toString: unknown field (known: ${TLS_FIELDS})`],
    ],
  ])('rejects %s as an unknown field', (_name, document, expected) => {
    const result = validate(document);
    expect(result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`)).toEqual(expected);
  });

  it.each<[string, unknown, string[]]>([
    ['the document is null', null, ['(document): expected a mapping, found null']],
    ['the document is a list', [BASE], ['(document): expected a mapping, found a list']],
    [
      'the document is a string',
      'webAPIProviderConfig',
      ['(document): expected a mapping, found string "webAPIProviderConfig"'],
    ],
    ['webAPIProviderConfig is missing', {}, [`${P}: is required`]],
    ['webAPIProviderConfig is null', { webAPIProviderConfig: null }, [`${P}: expected a mapping, found null`]],
    [
      'webAPIProviderConfig is empty',
      { webAPIProviderConfig: {} },
      [
        `${P}.method: is required`,
        `${P}.url: is required`,
        `${P}.tokenPath: is required (unless clientCertificateDataPath and clientKeyDataPath are both set)`,
      ],
    ],
    ['method is missing', { webAPIProviderConfig: without(BASE, 'method') }, [`${P}.method: is required`]],
    ['url is missing', { webAPIProviderConfig: without(BASE, 'url') }, [`${P}.url: is required`]],
    [
      'tokenPath is missing',
      { webAPIProviderConfig: without(BASE, 'tokenPath') },
      [`${P}.tokenPath: is required (unless clientCertificateDataPath and clientKeyDataPath are both set)`],
    ],
  ])('reports the missing or misplaced part when %s', (_name, document, expected) => {
    const result = validate(document);
    expect(result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.message}`)).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    [
      'body and json',
      { body: 'x', json: {} },
      [`${P}.json: only one of body, form, json may be set (found body, json)`],
    ],
    [
      'form and json',
      { form: { a: 'b' }, json: [] },
      [`${P}.json: only one of body, form, json may be set (found form, json)`],
    ],
    [
      'all three body forms',
      { body: 'x', form: { a: 'b' }, json: {} },
      [`${P}.form: only one of body, form, json may be set (found body, form, json)`],
    ],
    [
      'a body with GET',
      { method: 'GET', body: 'x' },
      [`${P}.body: a GET request cannot have a body; use query or method POST`],
    ],
    [
      'a form with DELETE',
      { method: 'DELETE', form: { a: 'b' } },
      [`${P}.form: a DELETE request cannot have a body; use query or method POST`],
    ],
    [
      'a json body with GET',
      { method: 'GET', json: {} },
      [`${P}.json: a GET request cannot have a body; use query or method POST`],
    ],
    [
      'a certificate path without a key path',
      { clientCertificateDataPath: '$.cert' },
      [`${P}.clientKeyDataPath: clientCertificateDataPath and clientKeyDataPath go together: set both or neither`],
    ],
    [
      'a key path without a certificate path',
      { clientKeyDataPath: '$.key' },
      [
        `${P}.clientCertificateDataPath: clientCertificateDataPath and clientKeyDataPath go together: set both or neither`,
      ],
    ],
    [
      'expiryPath and expiresInPath',
      { expiryPath: '$.exp', expiresInPath: '$.expires_in' },
      [`${P}.expiresInPath: set expiryPath or expiresInPath, not both`],
    ],
    [
      'tls.caFile and tls.caData',
      { tls: { caFile: '/ca.pem', caData: 'PEM' } },
      [`${P}.tls.caData: set tls.caFile or tls.caData, not both`],
    ],
    [
      'tls.certFile and tls.certData',
      { tls: { certFile: '/c', certData: 'C', keyFile: '/k' } },
      [`${P}.tls.certData: set tls.certFile or tls.certData, not both`],
    ],
    [
      'tls.keyFile and tls.keyData',
      { tls: { certFile: '/c', keyFile: '/k', keyData: 'K' } },
      [`${P}.tls.keyData: set tls.keyFile or tls.keyData, not both`],
    ],
    [
      'a client certificate without its key',
      { tls: { certFile: '/c' } },
      [`${P}.tls.keyFile: a client certificate needs its key: set both certFile/certData and keyFile/keyData`],
    ],
    [
      'a client key without its certificate',
      { tls: { keyData: 'K' } },
      [`${P}.tls.certFile: a client certificate needs its key: set both certFile/certData and keyFile/keyData`],
    ],
    [
      'an http:// URL',
      { url: 'http://auth.example.com/token' },
      [
        `${P}.url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true`,
      ],
    ],
    [
      'an upper-case HTTP:// URL',
      { url: 'HTTP://auth.example.com/token' },
      [
        `${P}.url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true`,
      ],
    ],
    [
      'an http:// URL with allowInsecureHTTP false',
      { url: 'http://a', allowInsecureHTTP: false },
      [
        `${P}.url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true`,
      ],
    ],
    [
      'an ftp:// URL',
      { url: 'ftp://auth.example.com/token' },
      [`${P}.url: expected an https:// URL, found "ftp://auth.example.com/token"`],
    ],
    [
      'a URL without a scheme',
      { url: 'auth.example.com/token' },
      [`${P}.url: expected an https:// URL, found "auth.example.com/token"`],
    ],
    ['an empty URL', { url: '' }, [`${P}.url: expected an https:// URL, found ""`]],
    [
      'a header name with a space',
      { headers: { 'Bad Name': 'x' } },
      [`${P}.headers.Bad Name: is not a valid HTTP header name`],
    ],
    [
      'a header name with a colon',
      { headers: { 'X-A:': 'x' } },
      [`${P}.headers.X-A:: is not a valid HTTP header name`],
    ],
    [
      'a header name with a non-ASCII letter',
      { headers: { 'X-Ü': 'x' } },
      [`${P}.headers.X-Ü: is not a valid HTTP header name`],
    ],
    ['an empty header name', { headers: { '': 'x' } }, [`${P}.headers.: is not a valid HTTP header name`]],
    ['a per-attempt timeout of 0s', { timeout: '0s' }, [`${P}.timeout: must be longer than 0s`]],
    [
      'a failure remembered longer than 5m',
      { cache: { failureTTL: '6m' } },
      [`${P}.cache.failureTTL: must be at most 5m (0s remembers no failure)`],
    ],
    [
      'a failureTTL that is no duration',
      { cache: { failureTTL: 'soon' } },
      [`${P}.cache.failureTTL: expected a duration such as 10s, 500ms or 1m30s, found string "soon"`],
    ],
  ])('rejects %s', (_name, patch, expected) => {
    expect(issuesOf({ ...BASE, ...patch })).toEqual(expected);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a GET with query parameters', { method: 'GET', query: { a: 'b' } }],
    ['an http:// URL with allowInsecureHTTP', { url: 'http://127.0.0.1:8080/token', allowInsecureHTTP: true }],
    ['a URL that is a template', { url: '{{ vars.tokenURL }}' }],
    ['a URL with leading spaces', { url: '  https://a.example/t' }],
    ['header names with every token character', { headers: { "X-Api_Key.v1~!#$%&'*+^`|": 'x', authorization: 'y' } }],
    [
      'both certificate paths and no tokenPath',
      { ...without(BASE, 'tokenPath'), clientCertificateDataPath: '$.cert', clientKeyDataPath: '$.key' },
    ],
    ['a client certificate and key given as data', { tls: { certData: 'C', keyData: 'K' } }],
    ['a client certificate file with an inline key', { tls: { certFile: '/c', keyData: 'K' } }],
    ['durations in every unit', { timeout: '1h', expiryMargin: '1m30s500ms' }],
  ])('accepts %s', (_name, patch) => {
    expect(issuesOf({ ...BASE, ...patch })).toEqual([]);
  });

  it.each([
    ['tokenPath', '$.a['],
    ['tokenPath', 'access_token'],
    ['tokenPath', '.access_token'],
    ['tokenPath', '$.a..'],
    ['expiryPath', '$[?@.a ==]'],
    ['expiresInPath', '{.a[}'],
    ['clientKeyDataPath', '$$'],
  ])('reports an invalid JSONPath in %s (%s) as an issue on that field', (field, path) => {
    const patch: Record<string, unknown> = { [field]: path };
    if (field === 'clientKeyDataPath') patch['clientCertificateDataPath'] = '$.cert';
    const issues = issuesOf({ ...BASE, ...patch });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatch(
      new RegExp(`^${P}\\.${field}: invalid JSONPath ${escapeRegExp(JSON.stringify(path))}: \\S`),
    );
  });

  it.each([
    ['tokenPath', '{.status.token}', 'token', '$.status.token'],
    ['tokenPath', '{ .items[0].token }', 'token', '$.items[0].token'],
    ['tokenPath', '{$.access_token}', 'token', '$.access_token'],
    ['expiryPath', '{.status.expirationTimestamp}', 'expiry', '$.status.expirationTimestamp'],
    ['expiresInPath', '{.expires_in}', 'expiresIn', '$.expires_in'],
    ['tokenPath', "$['access_token']", 'token', "$['access_token']"],
  ] as const)('accepts %s %s and stores it as RFC 9535', (field, path, key, normalized) => {
    expect(configOf({ ...BASE, [field]: path }).paths[key]).toBe(normalized);
  });

  it('reports every problem of a config at once, in field order', () => {
    expect(
      issuesOf({
        method: 'GET',
        url: 'http://auth.example.com',
        tokenPath: '$.a[',
        body: 'x',
        headers: { 'Bad Name': 'x', Good: 1 },
        tls: { caFile: '/ca', caData: 'PEM', certFile: '/c' },
        timeout: 'soon',
        retry: { limit: 99, max: 1 },
        surprise: true,
      }),
    ).toEqual([
      `${P}.headers.Good: expected a string, found number 1`,
      `${P}.timeout: ${DURATION}, found string "soon"`,
      `${P}.retry.limit: expected an integer from 0 to 10, found number 99`,
      `${P}.retry.max: unknown field (known: limit)`,
      `${P}.surprise: unknown field (known: ${PROVIDER_FIELDS})`,
      `${P}.body: a GET request cannot have a body; use query or method POST`,
      `${P}.headers.Bad Name: is not a valid HTTP header name`,
      `${P}.url: http:// sends the request and the credential in clear text; use https:// or set allowInsecureHTTP: true`,
      `${P}.tls.caData: set tls.caFile or tls.caData, not both`,
      `${P}.tls.keyFile: a client certificate needs its key: set both certFile/certData and keyFile/keyData`,
      expect.stringMatching(/^webAPIProviderConfig\.tokenPath: invalid JSONPath "\$\.a\[": /) as unknown as string,
    ]);
  });

  it('does not pile a cross-field issue onto a field whose type is already wrong', () => {
    expect(issuesOf({ ...BASE, url: 42, tokenPath: 42 })).toEqual([
      `${P}.url: expected a string, found number 42`,
      `${P}.tokenPath: expected a string, found number 42`,
    ]);
  });
});

describe('normalizePath', () => {
  it.each([
    ['$.a.b', '$.a.b'],
    ['{.a.b}', '$.a.b'],
    ['{ .a.b }', '$.a.b'],
    ['  {.a.b}  ', '$.a.b'],
    ['{.items[0].token}', '$.items[0].token'],
    ['{[0].token}', '$[0].token'],
    ['{..token}', '$..token'],
    ['{$.a}', '$.a'],
    // Not kubectl style: returned untouched, so that the JSONPath parser reports the problem.
    [' $.a', ' $.a'],
    ['{a.b}', '{a.b}'],
    ['{.a.b', '{.a.b'],
    ['{}', '{}'],
    ['a.b', 'a.b'],
  ])('turns %j into %j', (input, output) => {
    expect(normalizePath(input)).toBe(output);
  });
});

describe('check', () => {
  const run = (shape: Shape, value: unknown): Issue[] => {
    const issues: Issue[] = [];
    check(shape, value, 'x', issues);
    return issues;
  };

  it.each<[string, Shape, unknown, Issue[]]>([
    ['a string that matches its pattern', { kind: 'string', pattern: /^a+$/ }, 'aaa', []],
    [
      'a string that misses its pattern, with the hint',
      { kind: 'string', pattern: /^a+$/, patternHint: 'only a' },
      'b',
      [{ path: 'x', message: 'expected only a, found string "b"' }],
    ],
    [
      'a string that misses its pattern, without a hint',
      { kind: 'string', pattern: /^a+$/ },
      'b',
      [{ path: 'x', message: 'expected a string matching /^a+$/, found string "b"' }],
    ],
    ['an integer in range', { kind: 'integer', minimum: 1, maximum: 3 }, 3, []],
    [
      'an integer without bounds that is a float',
      { kind: 'integer' },
      0.5,
      [{ path: 'x', message: 'expected an integer, found number 0.5' }],
    ],
    [
      'NaN for an integer',
      { kind: 'integer' },
      Number.NaN,
      [{ path: 'x', message: 'expected an integer, found number NaN' }],
    ],
    [
      'undefined for a boolean',
      { kind: 'boolean' },
      undefined,
      [{ path: 'x', message: 'expected true or false, found undefined' }],
    ],
    ['a list for json', { kind: 'json' }, [1], []],
    [
      'a number for json',
      { kind: 'json' },
      1,
      [{ path: 'x', message: 'expected a mapping or a list, found number 1' }],
    ],
    ['a duration with fractions', { kind: 'duration' }, '1.5s', []],
    [
      'a negative duration',
      { kind: 'duration' },
      '-1s',
      [{ path: 'x', message: 'expected a duration such as 10s, 500ms or 1m30s, found string "-1s"' }],
    ],
    [
      'an empty duration',
      { kind: 'duration' },
      '',
      [{ path: 'x', message: 'expected a duration such as 10s, 500ms or 1m30s, found string ""' }],
    ],
    ['a list of strings', { kind: 'stringOrList' }, ['a', 'b'], []],
    [
      'a map with two wrong items',
      { kind: 'map', of: { kind: 'boolean' } },
      { a: 1, b: true, c: 'no' },
      [
        { path: 'x.a', message: 'expected true or false, found number 1' },
        { path: 'x.c', message: 'expected true or false, found string "no"' },
      ],
    ],
    [
      'an object missing a required property and with an unknown one',
      { kind: 'object', required: ['a'], properties: { a: { kind: 'boolean' } } },
      { b: 1 },
      [
        { path: 'x.a', message: 'is required' },
        { path: 'x.b', message: 'unknown field (known: a)', unknown: { key: 'b', known: ['a'] } },
      ],
    ],
  ])('checks %s', (_name, shape, value, expected) => {
    expect(run(shape, value)).toEqual(expected);
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1m30s', 90_000],
    ['1h2m3s4ms', 3_723_004],
    ['1.5s', 1500],
    ['0.5m', 30_000],
    ['0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
});

describe('selectSource', () => {
  const CLUSTER = { server: 'https://k8s', config: { webAPIProviderConfig: BASE, otherTool: { secret: 1 } } };
  const ENV = { WEBAPI_CREDENTIAL_CONFIG_INLINE: 'env: inline', WEBAPI_CREDENTIAL_CONFIG: '/env/config.yaml' };

  it.each<[string, ConfigFlags, Record<string, string | undefined>, Record<string, unknown> | undefined, ConfigSource]>(
    [
      [
        '--config-inline wins over everything',
        { configInline: 'flag: inline', config: '/flag.yaml' },
        ENV,
        CLUSTER,
        { kind: 'text', text: 'flag: inline', origin: '--config-inline' },
      ],
      [
        '--config comes next',
        { config: '/flag.yaml' },
        ENV,
        CLUSTER,
        { kind: 'file', path: '/flag.yaml', origin: '--config /flag.yaml' },
      ],
      [
        'WEBAPI_CREDENTIAL_CONFIG_INLINE comes next',
        {},
        ENV,
        CLUSTER,
        { kind: 'text', text: 'env: inline', origin: 'WEBAPI_CREDENTIAL_CONFIG_INLINE' },
      ],
      [
        'WEBAPI_CREDENTIAL_CONFIG comes next',
        {},
        { WEBAPI_CREDENTIAL_CONFIG: '/env/config.yaml' },
        CLUSTER,
        { kind: 'file', path: '/env/config.yaml', origin: 'WEBAPI_CREDENTIAL_CONFIG=/env/config.yaml' },
      ],
      [
        'an empty environment value counts as unset',
        {},
        { WEBAPI_CREDENTIAL_CONFIG_INLINE: '', WEBAPI_CREDENTIAL_CONFIG: '/env/config.yaml' },
        undefined,
        { kind: 'file', path: '/env/config.yaml', origin: 'WEBAPI_CREDENTIAL_CONFIG=/env/config.yaml' },
      ],
      [
        'an empty --config-inline is still chosen (and reported empty later)',
        { configInline: '' },
        ENV,
        CLUSTER,
        { kind: 'text', text: '', origin: '--config-inline' },
      ],
      [
        'the cluster extension comes last, with --config-from-cluster, and keeps only webAPIProviderConfig',
        { configFromCluster: true },
        {},
        CLUSTER,
        {
          kind: 'document',
          document: { webAPIProviderConfig: BASE },
          origin: 'KUBERNETES_EXEC_INFO spec.cluster.config',
        },
      ],
    ],
  )('picks the source: %s', (_name, flags, env, cluster, expected) => {
    expect(selectSource(flags, env, cluster)).toEqual(expected);
  });

  const ELSEWHERE =
    'pass --config <file> or --config-inline <yaml>, or set WEBAPI_CREDENTIAL_CONFIG or WEBAPI_CREDENTIAL_CONFIG_INLINE';
  const FROM_CLUSTER =
    'take it from the kubeconfig cluster extension client.authentication.k8s.io/exec with provideClusterInfo: true and --config-from-cluster in the exec entry';
  it.each<[string, ConfigFlags, Record<string, unknown> | undefined, string]>([
    ['there is no cluster', {}, undefined, `no config: ${ELSEWHERE}, or ${FROM_CLUSTER}`],
    [
      'the cluster has no config',
      {},
      { server: 'https://k8s' },
      `no config: ${ELSEWHERE}, or ${FROM_CLUSTER} (client-go sent the cluster, without that extension)`,
    ],
    [
      'the cluster config belongs to another tool',
      {},
      { config: { otherTool: {} } },
      `no config: ${ELSEWHERE}; the cluster extension client.authentication.k8s.io/exec that client-go sent holds no webAPIProviderConfig`,
    ],
    [
      'the cluster config is a string',
      {},
      { config: 'webAPIProviderConfig' },
      `no config: ${ELSEWHERE}; the cluster extension client.authentication.k8s.io/exec that client-go sent holds no webAPIProviderConfig`,
    ],
    [
      'the cluster carries a config but the flag is missing',
      {},
      CLUSTER,
      `no config: the kubeconfig cluster entry carries a webAPIProviderConfig, but it is used only with --config-from-cluster in the exec entry's args (the cluster entry may come from another file or party than the user entry); add the flag, or ${ELSEWHERE}`,
    ],
    [
      'the flag is given but there is no cluster',
      { configFromCluster: true },
      undefined,
      'no config: --config-from-cluster, but KUBERNETES_EXEC_INFO has no spec.cluster: set provideClusterInfo: true in the kubeconfig exec entry (Argo CD >= 3.5 sets it for execProviderConfig.config)',
    ],
    [
      'the flag is given but the cluster has no config',
      { configFromCluster: true },
      { server: 'https://k8s' },
      'no config: --config-from-cluster, but the cluster entry has no webAPIProviderConfig in its extension client.authentication.k8s.io/exec (client-go sent the cluster without it)',
    ],
  ])('is a usage error NO_CONFIG when nothing is given and %s', (_name, flags, cluster, message) => {
    let caught: unknown;
    try {
      selectSource(flags, { WEBAPI_CREDENTIAL_CONFIG: '' }, cluster);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(UsageError);
    expect(caught).toMatchObject({ code: 'NO_CONFIG', message });
  });
});

describe('parseConfigText', () => {
  const YAML_TEXT =
    'webAPIProviderConfig:\n  method: POST\n  url: https://auth.example.com/token\n  tokenPath: $.access_token\n';

  it.each<[string, string, unknown]>([
    ['YAML', YAML_TEXT, { webAPIProviderConfig: BASE }],
    ['JSON', JSON.stringify({ webAPIProviderConfig: BASE }), { webAPIProviderConfig: BASE }],
    ['YAML after a byte order mark', `\ufeff${YAML_TEXT}`, { webAPIProviderConfig: BASE }],
    [
      'JSON after a byte order mark',
      `\ufeff${JSON.stringify({ webAPIProviderConfig: BASE })}`,
      { webAPIProviderConfig: BASE },
    ],
    ['YAML 1.2, where yes and on stay strings', 'a: yes\nb: on\nc: true\n', { a: 'yes', b: 'on', c: true }],
    ['a YAML list (left for the validator to reject)', '- a\n', ['a']],
    [
      'a __proto__ key as a plain key, not a prototype',
      '__proto__: {method: POST}\n',
      JSON.parse('{"__proto__": {"method": "POST"}}'),
    ],
    [
      '900 kB of YAML in a few tokens (a CA bundle in a block scalar)',
      `caData: |\n${'  MIIBszCCAVmgAwIBAgIUQ\n'.repeat(36_000)}`,
      { caData: 'MIIBszCCAVmgAwIBAgIUQ\n'.repeat(36_000) },
    ],
  ])('parses %s', async (_name, text, expected) => {
    const parsed = await parseConfigText(text, 'test');
    expect(parsed).toEqual(expected);
    expect(Object.getPrototypeOf(parsed)).toBe(Array.isArray(expected) ? Array.prototype : Object.prototype);
  });

  it.each<[string, string, string, string]>([
    ['an empty text', '', 'CONFIG_EMPTY', 'config from test is empty'],
    ['only white space', ' \n\t\n', 'CONFIG_EMPTY', 'config from test is empty'],
    ['only a byte order mark', '\ufeff', 'CONFIG_EMPTY', 'config from test is empty'],
    ['NUL bytes', 'a: 1\u0000', 'CONFIG_PARSE', 'config from test is not YAML or JSON text (it contains NUL bytes)'],
    [
      'duplicate YAML keys',
      'a: 1\na: 2\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Map keys must be unique at line 2, column 1',
    ],
    [
      'duplicate JSON keys',
      '{"a": 1, "a": 2}',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Map keys must be unique at line 1, column 10',
    ],
    [
      'two YAML documents',
      'a: 1\n---\nb: 2\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Source contains multiple documents; please use YAML.parseAllDocuments() at line 2, column 1',
    ],
    [
      'an unclosed flow sequence',
      'a: [\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]: it opens at line 1, column 4 and is never closed',
    ],
    [
      'an unclosed quote, named where it opens',
      'a:\n  b: "x\n  c: d\n\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Missing closing "quote: it opens at line 2, column 6 and is never closed',
    ],
    [
      'an escaped quote does not close',
      'a: "x\\"\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Missing closing "quote: it opens at line 1, column 4 and is never closed',
    ],
    [
      'a closed quote before an unclosed list',
      'a: "x"\nb: [1,\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Flow sequence in block collection must be sufficiently indented and end with a ]: it opens at line 2, column 4 and is never closed',
    ],
    [
      'a line indented deeper than the one before',
      'w:\n  method: POST\n   url: x\n',
      'CONFIG_PARSE',
      'config from test is not valid YAML or JSON: Nested mappings are not allowed in compact mappings at line 2, column 11: line 3 is indented deeper than line 2',
    ],
    // The parser's time grows faster than the text: refused before it starts, in a few milliseconds.
    ...[
      ['3 000 keys in one mapping', Array.from({ length: 3_000 }, (_, i) => `k${i}: 1\n`).join('')],
      ['nested flow collections', `a: ${'['.repeat(6_000)}${']'.repeat(6_000)}\n`],
    ].map(([name, text]): [string, string, string, string] => [
      `more YAML tokens than a config has: ${name}`,
      text!,
      'CONFIG_TOO_LARGE',
      'config from test is too large to read as YAML: more than 10000 YAML tokens (a config has a few hundred); write it as JSON, or keep large values in files',
    ]),
  ])('rejects %s', async (_name, text, code, message) => {
    const error = await parseConfigText(text, 'test').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ code, message });
  });

  it('rejects a YAML that validates wrong types after parsing (yes is not a boolean)', async () => {
    const document = await parseConfigText(`${YAML_TEXT}  expiryFromJWT: yes\n`, 'test');
    const result = validate(document);
    expect(result.ok ? [] : result.issues).toEqual([
      { path: `${P}.expiryFromJWT`, message: 'expected true or false, found string "yes"' },
    ]);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
