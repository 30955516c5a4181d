// The fast path to a cached credential. A full run renders the request to find the entry's key,
// which needs YAML, Eta and JSONPath: tens of milliseconds for a plugin kubectl runs on every
// command. So each cached entry also gets a ref, found from the raw inputs alone (config text,
// --set vars, cluster info, the cache flag and our version), that names the entry and the
// environment variables and files its request was rendered from. When those still hash to the
// same digest, the rendered request would be the same, and the entry may be served as is.
import { join } from 'node:path';
import { sha256Hex } from '../sha256.js';
import { CACHE_FORMAT } from './key.js';
import { writeAtomic, type CacheFs } from './store.js';

export interface RefInputs {
  version: string;
  sourceKind: string;
  configText: string;
  vars: Record<string, string>;
  cluster: Record<string, unknown> | undefined;
  cacheFlag: boolean | undefined;
}

export interface Ref {
  /** Key of the entry (cacheKey of the rendered request). */
  key: string;
  env: string[];
  files: string[];
  digest: string;
  /** tls.insecureSkipVerify: the warning is due on every call, hits included. */
  insecure: boolean;
}

export function refKey(inputs: RefInputs): string {
  return sha256Hex(
    JSON.stringify([
      CACHE_FORMAT,
      'ref',
      inputs.version,
      inputs.sourceKind,
      inputs.configText,
      inputs.vars,
      inputs.cluster ?? null,
      inputs.cacheFlag ?? null,
    ]),
  );
}

/** Hash of the current values of what the request was rendered from; a file that is gone counts as null. */
export function dependencyDigest(env: Record<string, string | undefined>, names: string[], files: string[], readFile: (path: string) => string): string {
  const read = (path: string) => {
    try {
      return readFile(path);
    } catch {
      return null;
    }
  };
  return sha256Hex(JSON.stringify([names.map((name) => [name, env[name] ?? null]), files.map((path) => [path, read(path)])]));
}

export function readRef(fs: CacheFs, dir: string, key: string): Ref | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(join(dir, `${key}.ref`), 'utf8')) as Partial<Ref> & { apiVersion?: unknown; kind?: unknown };
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (
      parsed.apiVersion !== CACHE_FORMAT ||
      parsed.kind !== 'CacheRef' ||
      typeof parsed.key !== 'string' ||
      !/^[0-9a-f]{64}$/.test(parsed.key) ||
      typeof parsed.digest !== 'string' ||
      !strings(parsed.env) ||
      !strings(parsed.files)
    ) {
      return undefined;
    }
    return { key: parsed.key, env: parsed.env, files: parsed.files, digest: parsed.digest, insecure: parsed.insecure === true };
  } catch {
    return undefined;
  }
}

export function writeRef(fs: CacheFs, dir: string, key: string, ref: Ref, unique: string): void {
  writeAtomic(fs, dir, `${key}.ref`, { apiVersion: CACHE_FORMAT, kind: 'CacheRef', ...ref }, unique);
}
