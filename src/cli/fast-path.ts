// A cached credential without the full machinery: no commander, YAML, expression parser, JSONPath or HTTP client, only
// the raw inputs, the ref (cache/ref.ts) and the entry. Anything it does not fully understand (an
// unknown flag, help, a subcommand, a bad value, a missing or stale ref) returns undefined, and
// main.ts runs the full path, which decides and reports exactly as if this did not exist.
import type { CliDeps } from './deps.js';
import { selectSource } from '../config/load.js';
import { DURATION_PATTERN, parseDuration } from '../config/shape.js';
import { INSECURE_SKIP_VERIFY_WARNING } from '../errors.js';
import { formatExecCredential, readExecInfo, resolveApiVersion } from '../credential/exec-credential.js';
import { entryKey, refKey } from '../cache/key.js';
import { dependencyDigest, readRef } from '../cache/ref.js';
import { defaultCacheDir, privateDir, readEntry, readSecret } from '../cache/store.js';
import { parseSetFlags } from '../config/vars.js';

export interface FastFlags {
  config?: string;
  configInline?: string;
  configFromCluster?: boolean;
  set: string[];
  output: 'exec-credential' | 'token';
  apiVersion?: string;
  cache?: boolean;
  cacheDir?: string;
  /** Checked here; only a fetch needs it. */
  timeout?: string;
  verbose: boolean;
}

const VALUED: Record<string, keyof FastFlags> = {
  '-c': 'config',
  '--config': 'config',
  '--config-inline': 'configInline',
  '--set': 'set',
  '-o': 'output',
  '--output': 'output',
  '--api-version': 'apiVersion',
  '--cache-dir': 'cacheDir',
};

/** The get-token flags, or undefined for anything the full parser should see. */
export function parseFastArgs(argv: string[]): FastFlags | undefined {
  const flags: FastFlags = { set: [], output: 'exec-credential', verbose: false };
  let i = argv[0] === 'get-token' ? 1 : 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--cache') flags.cache = true;
    else if (arg === '--no-cache') flags.cache = false;
    else if (arg === '-v' || arg === '--verbose') flags.verbose = true;
    else if (arg === '--config-from-cluster') flags.configFromCluster = true;
    else {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      const name = eq > 0 ? arg.slice(0, eq) : arg;
      const field = VALUED[name];
      if (!field && name !== '--timeout') return undefined;
      const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) return undefined;
      if (!field) {
        if (!DURATION_PATTERN.test(value) || parseDuration(value) <= 0) return undefined;
        flags.timeout = value;
      } else if (field === 'set') flags.set.push(value);
      else if (field === 'output') {
        if (value !== 'exec-credential' && value !== 'token') return undefined;
        flags.output = value;
      } else (flags as unknown as Record<string, string>)[field] = value;
    }
  }
  return flags;
}

export function fastPath(flags: FastFlags, deps: Pick<CliDeps, 'env' | 'readFile' | 'stdout' | 'stderr' | 'now' | 'version' | 'cache'>): 0 | undefined {
  if (flags.cache === false) return undefined;
  try {
    const execInfo = readExecInfo(deps.env['KUBERNETES_EXEC_INFO']);
    const apiVersion = resolveApiVersion(execInfo, flags.apiVersion);
    const vars = parseSetFlags(flags.set);
    const source = selectSource(flags, deps.env, execInfo.cluster);
    const configText = source.kind === 'document' ? JSON.stringify(source.document) : source.kind === 'text' ? source.text : deps.readFile(source.path);
    const dir = flags.cacheDir ?? defaultCacheDir(deps.env, deps.cache.homedir);
    const { fs, uid } = deps.cache;
    if (!privateDir(fs, dir, uid)) return undefined;
    const secret = readSecret(fs, dir, uid);
    if (!secret) return undefined;
    const found = refKey(secret, { version: deps.version, sourceKind: source.kind, configText, vars, cluster: execInfo.cluster, cacheFlag: flags.cache });
    const ref = readRef(fs, dir, found, uid);
    if (!ref) return undefined;
    const key = entryKey(secret, ref.inputs, dependencyDigest(deps.env, ref.env, ref.files, deps.readFile));
    const lookup = readEntry(fs, dir, key, deps.now(), uid);
    if (!lookup.hit || (flags.output === 'token' && !lookup.status.token)) return undefined;
    if (ref.insecure) deps.stderr(`webapi-credential: warning: ${INSECURE_SKIP_VERIFY_WARNING}\n`);
    if (flags.verbose) deps.stderr(`webapi-credential: cache: hit (fast path, ${dir})\n`);
    deps.stdout(flags.output === 'token' ? `${lookup.status.token}\n` : formatExecCredential(apiVersion, lookup.status));
    return 0;
  } catch {
    // Every error here is one the full path reports properly.
    return undefined;
  }
}
