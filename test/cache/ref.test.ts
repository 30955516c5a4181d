// The pure parts of the fast path: the digest of what a request was rendered from, the
// ref file (real fs in a temp dir), and the argv subset the fast path accepts (anything else goes to
// the full parser).
import fs, { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CACHE_FORMAT } from '../../src/cache/key.js';
import { dependencyDigest, readRef, writeRef, type Ref } from '../../src/cache/ref.js';
import { parseFastArgs, type FastFlags } from '../../src/cli/fast-path.js';
import { modeOf } from './support.js';

describe('dependencyDigest', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-ref-'));
  const file = join(dir, 'secret');
  writeFileSync(file, 'one');
  const read = (path: string) => readFileSync(path, 'utf8');
  const digest = (env: Record<string, string | undefined>, files = [file]) =>
    dependencyDigest(env, ['A', 'B'], files, read);
  const same = digest({ A: 'a', B: 'b' });

  it('is the same for the same values, whatever else is in the environment', () => {
    expect(same).toMatch(/^[0-9a-f]{64}$/);
    expect(digest({ A: 'a', B: 'b', UNRELATED: 'x' })).toBe(same);
  });

  it.each<[string, Record<string, string | undefined>]>([
    ['a rotated value', { A: 'a2', B: 'b' }],
    ['a name that is now unset', { A: 'a' }],
    ['values swapped between names', { A: 'b', B: 'a' }],
  ])('changes with %s', (_name, env) => {
    expect(digest(env)).not.toBe(same);
  });

  it('reads an empty value as unset, as templates do', () => {
    expect(dependencyDigest({}, ['A'], [], read)).toBe(dependencyDigest({ A: '' }, ['A'], [], read));
  });

  it('changes when a file is rotated or removed, and not when it is rewritten with the same content', () => {
    writeFileSync(file, 'one');
    expect(digest({ A: 'a', B: 'b' })).toBe(same);
    writeFileSync(file, 'two');
    expect(digest({ A: 'a', B: 'b' })).not.toBe(same);
    fs.rmSync(file);
    const gone = digest({ A: 'a', B: 'b' });
    expect(gone).not.toBe(same);
    writeFileSync(file, '');
    expect(digest({ A: 'a', B: 'b' })).not.toBe(gone);
    writeFileSync(file, 'one');
  });
});

describe('writeRef and readRef', () => {
  const REF_KEY = 'e'.repeat(64);
  const ref: Ref = { inputs: 'f'.repeat(64), env: ['API_KEY'], files: ['/etc/ca.pem'], insecure: false };
  const uid = process.getuid?.();
  const tempDir = () => mkdtempSync(join(tmpdir(), 'webapi-credential-ref-'));

  it('write a 0600 file named after the ref key that reads back the same, leaving no temp file', () => {
    const dir = tempDir();
    writeRef(fs, dir, REF_KEY, ref, 'u1');
    expect(readdirSync(dir)).toEqual([`${REF_KEY}.ref`]);
    expect(modeOf(join(dir, `${REF_KEY}.ref`))).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dir, `${REF_KEY}.ref`), 'utf8'))).toEqual({
      apiVersion: CACHE_FORMAT,
      kind: 'CacheRef',
      ...ref,
    });
    expect(readRef(fs, dir, REF_KEY, uid)).toEqual(ref);
  });

  const valid = { apiVersion: CACHE_FORMAT, kind: 'CacheRef', ...ref };
  const plant = (dir: string, text: string) => writeFileSync(join(dir, `${REF_KEY}.ref`), text, { mode: 0o600 });
  it.each<[string, string]>([
    ['garbage', '{"apiVersion'],
    ['an empty file', ''],
    ['null', 'null'],
    ['another format version', JSON.stringify({ ...valid, apiVersion: 'webapi-credential.cache/v0' })],
    ['another kind', JSON.stringify({ ...valid, kind: 'CachedCredential' })],
    ['env names that are not strings', JSON.stringify({ ...valid, env: [1] })],
    ['files that are not a list', JSON.stringify({ ...valid, files: '/etc/ca.pem' })],
  ])('read a ref holding %s as no ref', (_name, text) => {
    const dir = tempDir();
    plant(dir, text);
    expect(readRef(fs, dir, REF_KEY, uid)).toBeUndefined();
  });

  it('read a missing ref as no ref', () => {
    expect(readRef(fs, tempDir(), REF_KEY, uid)).toBeUndefined();
  });

  it('read anything but insecure: true as a secure ref', () => {
    const dir = tempDir();
    plant(dir, JSON.stringify({ ...valid, insecure: 'yes' }));
    expect(readRef(fs, dir, REF_KEY, uid)).toEqual({ ...ref, insecure: false });
  });
});

describe('parseFastArgs', () => {
  const defaults: FastFlags = { set: [], output: 'exec-credential', verbose: false };

  it.each<[string[], Partial<FastFlags>]>([
    [[], {}],
    [['get-token'], {}],
    [['--cache'], { cache: true }],
    [['--cache', '--no-cache'], { cache: false }],
    [['--no-cache', '--cache'], { cache: true }],
    [['-v'], { verbose: true }],
    [['--verbose'], { verbose: true }],
    [['-c', 'cfg.yaml'], { config: 'cfg.yaml' }],
    [['--config=cfg.yaml'], { config: 'cfg.yaml' }],
    [['--config-inline', '{"a":1}'], { configInline: '{"a":1}' }],
    [['--set', 'a=1', '--set=b=2=3'], { set: ['a=1', 'b=2=3'] }],
    [['-o', 'token'], { output: 'token' }],
    [['--output=exec-credential'], { output: 'exec-credential' }],
    [['--api-version', 'client.authentication.k8s.io/v1'], { apiVersion: 'client.authentication.k8s.io/v1' }],
    [['--cache-dir', '/tmp/c'], { cacheDir: '/tmp/c' }],
    [['--timeout', '10s'], { timeout: '10s' }],
    [['--timeout=1m30s'], { timeout: '1m30s' }],
    [['get-token', '--cache', '-c', 'x'], { cache: true, config: 'x' }],
  ])('accepts %j', (argv, flags) => {
    expect(parseFastArgs(argv)).toEqual({ ...defaults, ...flags });
  });

  it.each<[string[]]>([
    [['validate']],
    [['render']],
    [['cache', 'clear']],
    [['--help']],
    [['-h']],
    [['--version']],
    [['--bogus']],
    [['-vc', 'x']],
    [['--cache', 'get-token']],
    [['-c']],
    [['--set']],
    [['--output', 'yaml']],
    [['--timeout', '0s']],
    [['--timeout', 'soon']],
    [['--timeout']],
  ])('hands %j to the full parser', (argv) => {
    expect(parseFastArgs(argv)).toBeUndefined();
  });
});
