// What a call asks for before its config is parsed, read one way for the fast path and prepare.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { V1, V1BETA1 } from '../../src/credential/exec-credential.js';
import { cacheDirOf, callInputs, rawInputs } from '../../src/use-case/call-inputs.js';
import { caught } from '../helpers/caught.js';

const CONFIG = 'webAPIProviderConfig: {method: GET, url: "https://api.example/t", tokenPath: $.t}';
const cluster = {
  server: 'https://k8s:6443',
  config: { webAPIProviderConfig: { method: 'GET', url: 'https://api.example/c', tokenPath: '$.t' } },
};
const execInfo = (spec: object) => JSON.stringify({ apiVersion: V1, kind: 'ExecCredential', spec });

function deps(env: Record<string, string | undefined> = {}, files: Record<string, string> = {}) {
  const read: string[] = [];
  const readFile = (path: string) => {
    read.push(path);
    if (files[path] === undefined)
      throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    return files[path];
  };
  return { env, readFile, read, version: '1.2.3', cache: { homedir: '/home/u' } as never };
}

describe('callInputs', () => {
  it('reads a config file once, its text the ref', () => {
    const d = deps({}, { '/c.yaml': CONFIG });
    const got = callInputs({ config: '/c.yaml', set: ['a=1'] }, d);
    expect(got.apiVersion).toBe(V1BETA1);
    expect(got.source).toEqual({ kind: 'file', path: '/c.yaml', origin: '--config /c.yaml' });
    expect(got.ref).toEqual({
      sourceKind: 'file',
      configText: CONFIG,
      vars: { a: '1' },
      cluster: undefined,
      base: JSON.stringify(['/', process.cwd()]),
    });
    expect(d.read).toEqual(['/c.yaml']);
  });

  it('takes an inline config as written, and the cluster info and apiVersion client-go sent', () => {
    const got = callInputs(
      { configInline: CONFIG },
      deps({ KUBERNETES_EXEC_INFO: execInfo({ cluster: { server: 'https://k8s:6443' } }) }),
    );
    expect(got.apiVersion).toBe(V1);
    expect(got.ref).toEqual({
      sourceKind: 'text',
      configText: CONFIG,
      vars: {},
      cluster: { server: 'https://k8s:6443' },
      base: JSON.stringify([null, process.cwd()]),
    });
  });

  it('writes a config from the cluster entry as JSON: the text the cache keys', () => {
    const got = callInputs({ configFromCluster: true }, deps({ KUBERNETES_EXEC_INFO: execInfo({ cluster }) }));
    expect(got.ref.sourceKind).toBe('document');
    expect(JSON.parse(got.ref.configText)).toEqual({ webAPIProviderConfig: cluster.config.webAPIProviderConfig });
  });

  it('names a config file it cannot read (exit 2)', () => {
    const error = caught(UsageError, () => callInputs({ config: '/gone.yaml' }, deps()));
    expect([error.code, error.message]).toEqual(['CONFIG_UNREADABLE', 'cannot read config /gone.yaml: no such file']);
  });

  it('checks the exec info before the flags and the source, as prepare always did', () => {
    const d = deps({ KUBERNETES_EXEC_INFO: '{' }, { '/c.yaml': CONFIG });
    expect(caught(UsageError, () => callInputs({ config: '/c.yaml', apiVersion: 'v9', set: ['nokey'] }, d)).code).toBe(
      'EXEC_INFO_INVALID',
    );
    expect(caught(UsageError, () => callInputs({ config: '/c.yaml', apiVersion: 'v9' }, deps())).code).toBe(
      'API_VERSION',
    );
    expect(d.read).toEqual([]);
  });
});

describe('rawInputs', () => {
  it('adds the cache directory, this version, --cache as given and what the key reads', () => {
    const d = deps({ XDG_CACHE_HOME: '/xdg' });
    const ref = { sourceKind: 'text', configText: CONFIG, vars: {}, cluster: undefined, base: '[null,"/"]' };
    expect(rawInputs({ cache: true }, ref, d)).toEqual({
      ...ref,
      dir: '/xdg/webapi-credential',
      version: '1.2.3',
      cacheFlag: true,
      env: d.env,
      readFile: d.readFile,
    });
    expect(rawInputs({ cacheDir: '/mine' }, ref, d)).toMatchObject({ dir: '/mine', cacheFlag: undefined });
  });

  it('takes the default directory the way cache clear does', () => {
    expect(cacheDirOf({}, deps())).toBe('/home/u/.kube/cache/webapi-credential');
    expect(cacheDirOf({}, deps({ XDG_CACHE_HOME: 'relative' }))).toBe('/home/u/.kube/cache/webapi-credential');
    expect(cacheDirOf({ cacheDir: '/d' }, deps())).toBe('/d');
  });
});
