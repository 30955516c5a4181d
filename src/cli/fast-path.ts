// A cached credential without the full machinery: no commander, YAML, expression parser, JSONPath or HTTP client, only
// the raw inputs and the cache's lookupFast (cache/index.ts). Anything it does not fully understand (an
// unknown flag, help, a subcommand, a bad value, a missing or stale ref) returns undefined, and
// main.ts runs the full path, which decides and reports exactly as if this did not exist.
import type { CliDeps } from './deps.js';
import { INSECURE_SKIP_VERIFY_WARNING, OutputError, terminalSafe } from '../errors.js';
import { flagNamed, positiveDuration } from './flags.js';
import { DEFAULT_OUTPUT, formatOutput, type OutputName } from '../credential/output/index.js';
import { lookupFast } from '../cache/index.js';
import { callInputs, rawInputs } from '../use-case/call-inputs.js';

export interface FastFlags {
  config?: string;
  configInline?: string;
  configFromCluster?: boolean;
  set: string[];
  output: OutputName;
  apiVersion?: string;
  cache?: boolean;
  cacheDir?: string;
  /** Checked here; only a fetch needs it. */
  timeout?: string;
  verbose: boolean;
}

/** The get-token flags (one table, flags.ts), or undefined for anything the full parser should see. */
export function parseFastArgs(argv: string[]): FastFlags | undefined {
  const flags: FastFlags = { set: [], output: DEFAULT_OUTPUT, verbose: false };
  const values = flags as unknown as Record<string, unknown>;
  let i = argv[0] === 'get-token' ? 1 : 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const flag = flagNamed(eq > 0 ? arg.slice(0, eq) : arg);
    if (!flag) return undefined;
    if (!flag.value) {
      if (eq > 0) return undefined;
      values[flag.key] = !flag.negates;
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined) return undefined;
    if (flag.choices && !flag.choices.includes(value)) return undefined;
    // Checked here; only a fetch needs it.
    if (flag.key === 'timeout' && positiveDuration(value) === undefined) return undefined;
    if (flag.repeatable) (values[flag.key] as string[]).push(value);
    else values[flag.key] = value;
  }
  return flags;
}

/**
 * 0: the credential is printed. 3 or 4: a failure remembered for these inputs (cache/failure.ts),
 * said as the full path would say it. 2: the credential was found but stdout could not take it; the
 * full path would only fetch it again to fail the same way, so this is the answer (one line, as
 * report.ts says it).
 */
export function fastPath(
  flags: FastFlags,
  deps: Pick<CliDeps, 'env' | 'readFile' | 'stdout' | 'stderr' | 'now' | 'version' | 'cache'>,
): 0 | 2 | 3 | 4 | undefined {
  const found = cachedOutput(flags, deps);
  if (found === undefined) return undefined;
  if (typeof found === 'number') return found;
  try {
    deps.stdout(found);
    return 0;
  } catch (error) {
    if (!(error instanceof OutputError)) throw error;
    deps.stderr(`webapi-credential: ${error.of('the credential').message}\n`);
    return 2;
  }
}

/**
 * The cached credential as it is printed; the exit code of a remembered failure, already said on
 * stderr; or undefined for the full path.
 */
function cachedOutput(
  flags: FastFlags,
  deps: Pick<CliDeps, 'env' | 'readFile' | 'stderr' | 'now' | 'version' | 'cache'>,
): string | 3 | 4 | undefined {
  if (flags.cache === false) return undefined;
  try {
    const { apiVersion, ref } = callInputs(flags, deps);
    const raw = rawInputs(flags, ref, deps);
    const found = lookupFast(raw, deps.now(), deps.cache);
    if (!found) return undefined;
    if (found.kind === 'failure') {
      if (found.insecure) deps.stderr(`webapi-credential: warning: ${INSECURE_SKIP_VERIFY_WARNING}\n`);
      // A remembered failure costs no more than a hit: the same line the full path would print.
      if (flags.verbose)
        deps.stderr(`webapi-credential: cache: failure remembered (fast path, ${terminalSafe(raw.dir)})\n`);
      deps.stderr(`webapi-credential: ${found.message}\n`);
      return found.exitCode;
    }
    const printed = formatOutput(flags.output, apiVersion, found.status);
    if (printed === undefined) return undefined;
    if (found.insecure) deps.stderr(`webapi-credential: warning: ${INSECURE_SKIP_VERIFY_WARNING}\n`);
    if (found.note !== undefined) deps.stderr(`webapi-credential: warning: ${found.note}\n`);
    if (flags.verbose)
      deps.stderr(`webapi-credential: cache: ${found.trace ?? 'hit'} (fast path, ${terminalSafe(raw.dir)})\n`);
    return printed;
  } catch {
    // Every error here is one the full path reports properly.
    return undefined;
  }
}
