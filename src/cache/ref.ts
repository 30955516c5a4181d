// The fast path to a cached credential. A full run renders every template to learn which env
// variables and files the credential depends on, which needs YAML, the expression parser and
// JSONPath: tens of milliseconds for a plugin kubectl runs on every command. So each entry also gets
// a ref, found from the raw inputs alone, that lists those names. With their current values the
// fast path computes the entry's key (cache/key.ts) as the full run would: a rotated secret, a
// changed file or var, another config simply names another entry.
import { join } from 'node:path';
import { sha256Hex } from './sha256.js';
import { CACHE_FORMAT } from './key.js';
import { readPrivateFile, type CacheFs } from './store.js';
import { writeAtomic } from './files.js';

export interface Ref {
  /** inputsKey() of the config, vars and cluster info the ref was found by. */
  inputs: string;
  env: string[];
  files: string[];
  /** tls.insecureSkipVerify: the warning is due on every call, hits included. */
  insecure: boolean;
  /**
   * RawInputs.base, when a file was named by a relative path: the same config text read from another
   * directory (or run from another) reads other files, which `files` (resolved) would not see.
   */
  base?: string;
}

/**
 * The current values of what the request was rendered from, digested; a file that is gone counts
 * as null. `base` (RawInputs.base) when a file was named by a relative path: which files those are
 * depends on it, and two places whose files are all listed (a ref's files joined to a call's) must
 * not share a key. Never stored: it only goes into the keyed entry key.
 */
export function dependencyDigest(
  env: Record<string, string | undefined>,
  names: string[],
  files: string[],
  readFile: (path: string) => string,
  base?: string,
): string {
  const read = (path: string) => {
    try {
      return readFile(path);
    } catch {
      return null;
    }
  };
  // An empty value reads as not set in templates: the same here.
  return sha256Hex(
    JSON.stringify([
      names.map((name) => [name, env[name] || null]),
      files.map((path) => [path, read(path)]),
      ...(base !== undefined ? [base] : []),
    ]),
  );
}

function refPath(dir: string, key: string): string {
  return join(dir, `${key}.ref`);
}

export function readRef(fs: CacheFs, dir: string, key: string, uid: number | undefined): Ref | undefined {
  try {
    const parsed = JSON.parse(readPrivateFile(fs, refPath(dir, key), uid)) as Partial<Ref> & {
      apiVersion?: unknown;
      kind?: unknown;
    };
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (
      parsed.apiVersion !== CACHE_FORMAT ||
      parsed.kind !== 'CacheRef' ||
      !strings(parsed.env) ||
      !strings(parsed.files)
    )
      return undefined;
    if (typeof parsed.inputs !== 'string' || !/^[0-9a-f]{64}$/.test(parsed.inputs)) return undefined;
    if (parsed.base !== undefined && typeof parsed.base !== 'string') return undefined;
    return {
      inputs: parsed.inputs,
      env: parsed.env,
      files: parsed.files,
      insecure: parsed.insecure === true,
      ...(parsed.base !== undefined ? { base: parsed.base } : {}),
    };
  } catch {
    return undefined;
  }
}

export function writeRef(fs: CacheFs, dir: string, key: string, ref: Ref, unique: string): void {
  writeAtomic(fs, dir, `${key}.ref`, { apiVersion: CACHE_FORMAT, kind: 'CacheRef', ...ref }, unique);
}
