// The JSON Schema that ships for editors (schema/webapi-credential.schema.json) is generated from the
// same shape table as the validator. This test keeps the committed file equal to the generated one.
//
// To regenerate the file after changing src/config/schema.ts:
//   UPDATE_SCHEMA=1 node_modules/.bin/node node_modules/.bin/vitest run test/config/schema.test.ts
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fileShape } from '../../src/config/schema.js';
import { toJsonSchema } from '../../src/config/shape.js';
import { validateProviderDocument } from '../../src/config/validate.js';
import { checkPath } from '../../src/credential/jsonpath.js';
import { schemaErrors, type Schema } from '../helpers/json-schema.js';

const SCHEMA_FILE = new URL('../../schema/webapi-credential.schema.json', import.meta.url);

function generatedSchema(): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://unpkg.com/webapi-credential/schema/webapi-credential.schema.json',
    title: 'webapi-credential config',
    ...toJsonSchema(fileShape),
  };
}

const generatedText = JSON.stringify(generatedSchema(), null, 2) + '\n';

describe('the committed JSON Schema', () => {
  it('equals the schema generated from the shape table', () => {
    if (process.env['UPDATE_SCHEMA'] === '1') writeFileSync(SCHEMA_FILE, generatedText);
    expect(existsSync(SCHEMA_FILE), 'schema/webapi-credential.schema.json is missing; run with UPDATE_SCHEMA=1').toBe(
      true,
    );
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(generatedText);
  });

  it('declares draft 2020-12 and describes the one top-level key', () => {
    const schema = JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    expect(schema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      required: ['webAPIProviderConfig'],
      additionalProperties: false,
    });
    expect(Object.keys(schema['properties'] as object)).toEqual(['webAPIProviderConfig']);
  });
});

describe('the tiny JSON Schema checker used below', () => {
  it.each<[string, Schema, unknown, string[]]>([
    ['a matching type', { type: 'string' }, 'x', []],
    ['a type list', { type: ['object', 'array'] }, 3, ['$: type']],
    ['an integer that is a float', { type: 'integer' }, 1.5, ['$: type']],
    ['an object that is a list', { type: 'object' }, [], ['$: type']],
    ['enum', { enum: ['A'] }, 'B', ['$: enum']],
    ['minLength in code points', { type: 'string', minLength: 2 }, '😀', ['$: minLength']],
    ['pattern', { type: 'string', pattern: '^a+$' }, 'ab', ['$: pattern']],
    ['minimum and maximum', { type: 'integer', minimum: 1, maximum: 2 }, 3, ['$: maximum']],
    [
      'items and minItems',
      { type: 'array', items: { type: 'string' }, minItems: 3 },
      ['a', 1],
      ['$: minItems', '$[1]: type'],
    ],
    [
      'required and additionalProperties false',
      { type: 'object', properties: { a: {} }, required: ['a'], additionalProperties: false },
      { b: 1 },
      ['$: required a', '$: additionalProperties b'],
    ],
    [
      'additionalProperties as a schema',
      { type: 'object', additionalProperties: { type: 'string' } },
      { a: 'x', b: 2 },
      ['$.b: type'],
    ],
    ['oneOf with no passing branch', { oneOf: [{ type: 'string' }, { type: 'boolean' }] }, 1, ['$: oneOf']],
    ['oneOf with two passing branches', { oneOf: [{ type: 'integer' }, { minimum: 0 }] }, 1, ['$: oneOf']],
  ])('checks %s', (_name, schema, value, expected) => {
    expect(schemaErrors(schema, value)).toEqual(expected);
  });

  it('refuses a keyword it does not implement', () => {
    expect(() => schemaErrors({ propertyNames: { pattern: 'x' } }, {})).toThrow(
      'unsupported keyword propertyNames at $',
    );
  });
});

describe('the JSON Schema and the validator', () => {
  const schema = generatedSchema();
  const BASE = { method: 'POST', url: 'https://auth.example.com/token', tokenPath: '$.access_token' };
  const provider = (patch: Record<string, unknown>) => ({ webAPIProviderConfig: { ...BASE, ...patch } });
  const validatorAccepts = (document: unknown) => validateProviderDocument(document, checkPath).ok;

  it.each<[string, unknown]>([
    ['the minimal config', provider({})],
    ['a kubectl-style path', provider({ tokenPath: '{.status.token}' })],
    [
      'a config with only certificate paths',
      {
        webAPIProviderConfig: {
          method: 'POST',
          url: 'https://a.example',
          clientCertificateDataPath: '$.c',
          clientKeyDataPath: '$.k',
        },
      },
    ],
    ['a form body with a repeated key', provider({ form: { grant_type: 'client_credentials', audience: ['a', 'b'] } })],
    ['a json body that is a list', provider({ json: [{ token: '{{ env.T }}' }] })],
    [
      'the full example of the SPEC',
      provider({
        url: 'https://auth.example.com/token?aud={{ vars.audience }}',
        headers: { Authorization: 'Bearer {{ env.API_KEY }}' },
        query: { scope: '{{ vars.scope }}' },
        form: { grant_type: 'client_credentials', audience: ['upbound:spaces:api', 'upbound:spaces:controlplanes'] },
        expiryPath: '$.expires_at',
        expiryFromJWT: true,
        clientCertificateDataPath: '$.status.credential.clientCertificateData',
        clientKeyDataPath: '$.status.credential.clientKeyData',
        tls: {
          caFile: '/etc/ssl/my-ca.pem',
          certFile: '/c.pem',
          keyFile: '/k.pem',
          serverName: 'auth.internal',
          insecureSkipVerify: false,
        },
        allowInsecureHTTP: false,
        timeout: '10s',
        retry: { limit: 2 },
        maxResponseBytes: 1048576,
        expiryMargin: '60s',
        cache: { enabled: false },
      }),
    ],
  ])('both accept %s', (_name, document) => {
    expect(schemaErrors(schema, document)).toEqual([]);
    expect(validatorAccepts(document)).toBe(true);
  });

  it.each<[string, unknown, string[]]>([
    ['a document that is a list', [], ['$: type']],
    ['a missing webAPIProviderConfig', {}, ['$: required webAPIProviderConfig']],
    ['an unknown top-level key', { ...provider({}), extra: 1 }, ['$: additionalProperties extra']],
    [
      'a missing url',
      { webAPIProviderConfig: { method: 'POST', tokenPath: '$.a' } },
      ['$.webAPIProviderConfig: required url'],
    ],
    ['a lower-case method', provider({ method: 'post' }), ['$.webAPIProviderConfig.method: enum']],
    [
      'an unknown provider key',
      provider({ tokenpath: '$.a' }),
      ['$.webAPIProviderConfig: additionalProperties tokenpath'],
    ],
    ['an empty tokenPath', provider({ tokenPath: '' }), ['$.webAPIProviderConfig.tokenPath: minLength']],
    ['a number as a header value', provider({ headers: { 'X-A': 1 } }), ['$.webAPIProviderConfig.headers.X-A: type']],
    ['an empty query list', provider({ query: { a: [] } }), ['$.webAPIProviderConfig.query.a: oneOf']],
    ['a form list holding a number', provider({ form: { a: ['x', 1] } }), ['$.webAPIProviderConfig.form.a: oneOf']],
    ['a json body that is a string', provider({ json: 'x' }), ['$.webAPIProviderConfig.json: type']],
    ['a bare number as a timeout', provider({ timeout: 10 }), ['$.webAPIProviderConfig.timeout: type']],
    ['a duration in days', provider({ expiryMargin: '1d' }), ['$.webAPIProviderConfig.expiryMargin: pattern']],
    ['retry.limit above 10', provider({ retry: { limit: 11 } }), ['$.webAPIProviderConfig.retry.limit: maximum']],
    [
      'a fractional maxResponseBytes',
      provider({ maxResponseBytes: 1.5 }),
      ['$.webAPIProviderConfig.maxResponseBytes: type'],
    ],
    ['an unknown tls key', provider({ tls: { ca: '/ca' } }), ['$.webAPIProviderConfig.tls: additionalProperties ca']],
    [
      'a string as cache.enabled',
      provider({ cache: { enabled: 'true' } }),
      ['$.webAPIProviderConfig.cache.enabled: type'],
    ],
    [
      'a provider key named constructor',
      provider({ constructor: 'x' }),
      ['$.webAPIProviderConfig: additionalProperties constructor'],
    ],
  ])('both reject %s', (_name, document, schemaVerdict) => {
    expect(schemaErrors(schema, document)).toEqual(schemaVerdict);
    expect(validatorAccepts(document)).toBe(false);
  });

  // The schema holds the per-field shape only. These rules span several fields (or need a JSONPath
  // parser) and are the validator's alone; an editor accepts such a config, the plugin does not.
  it.each<[string, unknown]>([
    ['two body forms', provider({ body: 'x', json: {} })],
    ['a body with GET', provider({ method: 'GET', body: 'x' })],
    [
      'a missing tokenPath without certificate paths',
      { webAPIProviderConfig: { method: 'POST', url: 'https://a.example' } },
    ],
    ['a certificate path without a key path', provider({ clientCertificateDataPath: '$.c' })],
    ['an http:// URL', provider({ url: 'http://a.example' })],
    ['tls.caFile with tls.caData', provider({ tls: { caFile: '/ca', caData: 'PEM' } })],
    ['a client certificate without its key', provider({ tls: { certFile: '/c' } })],
    ['a header name with a space', provider({ headers: { 'Bad Name': 'x' } })],
    ['an invalid JSONPath', provider({ tokenPath: '$.a[' })],
  ])('leaves %s to the validator', (_name, document) => {
    expect(schemaErrors(schema, document)).toEqual([]);
    expect(validatorAccepts(document)).toBe(false);
  });
});
