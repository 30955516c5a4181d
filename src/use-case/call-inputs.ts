// What a call asks for before its config is parsed (the exec info, the apiVersion, --set vars, the
// config source and its text) and the raw inputs the cache finds it by. The fast path
// (cli/fast-path.ts) and prepare read them here, one way, so that a hit finds what a miss stored.
// Light: the fast path loads it.
import { dirname, resolve } from 'node:path';
import { readProblem, UsageError } from '../errors.js';
import { selectSource, type ConfigSource } from '../config/load.js';
import { parseSetFlags } from '../config/vars.js';
import { readExecInfo, resolveApiVersion, type ExecInfo } from '../credential/exec-credential.js';
import { defaultCacheDir, type RawInputs } from '../cache/index.js';
import type { Deps, RequestFlags } from './deps.js';

/** What the cache finds a call by, raw: the part the config and its source give. */
export type RefInputs = Pick<RawInputs, 'sourceKind' | 'configText' | 'vars' | 'cluster' | 'base'>;

export interface CallInputs {
  execInfo: ExecInfo;
  apiVersion: string;
  source: ConfigSource;
  /** The cluster info as client-go gave it: prepare keeps it only when a template reads `cluster`. */
  ref: RefInputs;
}

/** The exec info, apiVersion, vars and config text of a call, each checked in this order. */
export function callInputs(flags: RequestFlags, deps: Pick<Deps, 'env' | 'readFile'>): CallInputs {
  const execInfo = readExecInfo(deps.env['KUBERNETES_EXEC_INFO']);
  const apiVersion = resolveApiVersion(execInfo, flags.apiVersion);
  const vars = parseSetFlags(flags.set);
  const source = selectSource(flags, deps.env, execInfo.cluster);
  const configText =
    source.kind === 'document'
      ? JSON.stringify(source.document)
      : source.kind === 'text'
        ? source.text
        : readConfig(source.path, deps);
  // Where prepare resolves a relative path (a config file's directory, else the current one): the
  // same text elsewhere reads other files. Absolute both, as the process sees them now.
  const base = JSON.stringify([source.kind === 'file' ? resolved(dirname(source.path)) : null, resolved('.')]);
  return {
    execInfo,
    apiVersion,
    source,
    ref: { sourceKind: source.kind, configText, vars, cluster: execInfo.cluster, base },
  };
}

/** `path` made absolute, or null when the current directory is gone (removed under us): no relative path resolves then. */
function resolved(path: string): string | null {
  try {
    return resolve(path);
  } catch {
    return null;
  }
}

function readConfig(path: string, deps: Pick<Deps, 'readFile'>): string {
  try {
    return deps.readFile(path);
  } catch (error) {
    throw new UsageError('CONFIG_UNREADABLE', `cannot read config ${path}: ${readProblem(error)}`, { cause: error });
  }
}

/** The cache's raw inputs: the ref inputs, the cache directory, and what the key reads of the flags and the process. */
export function rawInputs(
  flags: { cache?: boolean; cacheDir?: string },
  ref: RefInputs,
  deps: Pick<Deps, 'env' | 'readFile' | 'version' | 'cache'>,
): RawInputs {
  return {
    ...ref,
    dir: cacheDirOf(flags, deps),
    version: deps.version,
    cacheFlag: flags.cache,
    env: deps.env,
    readFile: deps.readFile,
  };
}

/** --cache-dir, else the default: $XDG_CACHE_HOME/webapi-credential, else ~/.kube/cache/webapi-credential. */
export function cacheDirOf(flags: { cacheDir?: string }, deps: Pick<Deps, 'env' | 'cache'>): string {
  return flags.cacheDir ?? defaultCacheDir(deps.env, deps.cache.homedir);
}
