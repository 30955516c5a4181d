// The cache's keys are keyed hashes of the inputs: everything that can change which credential
// comes back changes the key, nothing that changes from one render to the next is in it, and
// without the cache's own random key nobody can compute (or test a guessed secret against) them.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CACHE_FORMAT, entryKey, inputsKey, refKey, type RefInputs } from '../../src/cache/key.js';
import { dependencyDigest } from '../../src/cache/ref.js';

const secret = Buffer.alloc(32, 7);
const inputs: RefInputs = {
  version: '1.2.3',
  sourceKind: 'file',
  configText: 'webAPIProviderConfig: {}',
  vars: { org: 'acme' },
  cluster: { server: 'https://k8s' },
  cacheFlag: true,
};
const base = refKey(secret, inputs);

describe('refKey', () => {
  it('is the HMAC-SHA256 of the inputs under the cache key, in hex', () => {
    const expected = createHmac('sha256', secret)
      .update(
        JSON.stringify([
          CACHE_FORMAT,
          'ref',
          '1.2.3',
          'file',
          'webAPIProviderConfig: {}',
          { org: 'acme' },
          { server: 'https://k8s' },
          true,
        ]),
      )
      .digest('hex');
    expect(base).toBe(expected);
    expect(refKey(secret, structuredClone(inputs))).toBe(base);
  });

  it.each<[string, Partial<RefInputs>]>([
    ['another version', { version: '1.2.4' }],
    ['another source kind', { sourceKind: 'text' }],
    ['another config text', { configText: 'webAPIProviderConfig: { }' }],
    ['another var', { vars: { org: 'other' } }],
    ['another cluster', { cluster: { server: 'https://k8s-2' } }],
    ['no cluster', { cluster: undefined }],
    ['another cache flag', { cacheFlag: undefined }],
  ])('changes with %s', (_name, change) => {
    expect(refKey(secret, { ...inputs, ...change })).not.toBe(base);
  });

  it('changes with the cache key: another cache directory computes other names', () => {
    expect(refKey(Buffer.alloc(32, 8), inputs)).not.toBe(base);
  });
});

describe('entryKey', () => {
  const env = { SECRET: 'rotated-1', OTHER: 'x' };
  const files: Record<string, string> = { '/token': 'file-1' };
  const readFile = (path: string) => {
    const content = files[path];
    if (content === undefined) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    return content;
  };
  const digest = (e: Record<string, string | undefined>) =>
    dependencyDigest(e, ['SECRET', 'UNSET'], ['/token', '/gone'], readFile);
  const key = entryKey(secret, base, digest(env));

  it('is the same for the same inputs and values, whatever else is in the environment', () => {
    expect(entryKey(secret, base, digest({ ...env, OTHER: 'changed' }))).toBe(key);
  });

  it('changes when a value a template reads changes, appears or goes', () => {
    expect(entryKey(secret, base, digest({ ...env, SECRET: 'rotated-2' }))).not.toBe(key);
    expect(entryKey(secret, base, digest({ ...env, UNSET: 'now set' }))).not.toBe(key);
    expect(entryKey(secret, base, digest({ OTHER: 'x' }))).not.toBe(key);
  });

  it('treats an empty value as unset, as templates do', () => {
    expect(entryKey(secret, base, digest({ ...env, UNSET: '' }))).toBe(key);
  });

  it('changes when a file a template reads changes', () => {
    files['/token'] = 'file-2';
    expect(entryKey(secret, base, digest(env))).not.toBe(key);
    files['/token'] = 'file-1';
  });

  it('holds no plain hash of a secret: without the cache key it cannot be computed', () => {
    expect(entryKey(Buffer.alloc(32, 9), base, digest(env))).not.toBe(key);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('is the HMAC of the format, its own label, the inputs and the values: never a ref name or an inputs key', () => {
    const expected = createHmac('sha256', secret)
      .update(JSON.stringify([CACHE_FORMAT, 'entry', base, digest(env)]))
      .digest('hex');
    expect(key).toBe(expected);
  });
});

describe('inputsKey', () => {
  const parsed = {
    version: '1.2.3',
    document: { webAPIProviderConfig: { url: 'https://api' } },
    vars: { org: 'acme' },
    cluster: { server: 'https://k8s' },
  };
  const key = inputsKey(secret, parsed);

  it('is the HMAC of the format, its label and the config as parsed: a reformatted file finds the same entry', () => {
    const expected = createHmac('sha256', secret)
      .update(
        JSON.stringify([
          CACHE_FORMAT,
          'inputs',
          '1.2.3',
          { webAPIProviderConfig: { url: 'https://api' } },
          { org: 'acme' },
          { server: 'https://k8s' },
        ]),
      )
      .digest('hex');
    expect(key).toBe(expected);
    expect(inputsKey(secret, structuredClone(parsed))).toBe(key);
  });

  it.each<[string, Partial<typeof parsed> | { cluster: undefined }]>([
    ['another version', { version: '1.2.4' }],
    ['another config', { document: { webAPIProviderConfig: { url: 'https://api-2' } } }],
    ['another var', { vars: { org: 'other' } }],
    ['another cluster', { cluster: { server: 'https://k8s-2' } }],
    ['no cluster', { cluster: undefined }],
  ])('changes with %s', (_name, change) => {
    expect(inputsKey(secret, { ...parsed, ...change })).not.toBe(key);
  });

  it('reads no cluster as null, so that it differs from an empty one', () => {
    const none = inputsKey(secret, { ...parsed, cluster: undefined });
    expect(none).toBe(
      createHmac('sha256', secret)
        .update(JSON.stringify([CACHE_FORMAT, 'inputs', '1.2.3', parsed.document, parsed.vars, null]))
        .digest('hex'),
    );
    expect(inputsKey(secret, { ...parsed, cluster: {} })).not.toBe(none);
  });
});

describe('CACHE_FORMAT', () => {
  it('names this program and a format version, so that another format (or program) in the directory misses', () => {
    expect(CACHE_FORMAT).toMatch(/^webapi-credential\.cache\/v[0-9]+$/);
  });
});
