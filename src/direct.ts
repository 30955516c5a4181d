// get-token in its plain form (the flags fast-path.ts understands), without commander: what kubectl
// runs on every command that finds no cached credential. Same use case, same error reporting as
// the commander route in cli.ts; test/catalogue/cli-parity.test.ts and the integration suites run
// both ways.
import { UsageError, type ExitCode } from './errors.js';
import { DURATION_PATTERN, parseDuration } from './config/shape.js';
import type { CliDeps } from './cli.js';
import type { FastFlags } from './fast-path.js';
import { DEFAULT_TIMEOUT } from './flags.js';
import { getToken } from './get-token.js';
import { reportFailure, reporter } from './report.js';

export async function runGetToken(flags: FastFlags, deps: CliDeps): Promise<ExitCode> {
  const { line, useCaseDeps } = reporter(deps);
  try {
    await getToken(
      {
        ...(flags.config !== undefined ? { config: flags.config } : {}),
        ...(flags.configInline !== undefined ? { configInline: flags.configInline } : {}),
        ...(flags.configFromCluster ? { configFromCluster: true } : {}),
        ...(flags.set.length > 0 ? { set: flags.set } : {}),
        ...(flags.apiVersion !== undefined ? { apiVersion: flags.apiVersion } : {}),
        output: flags.output,
        timeoutMs: durationFlag('--timeout', flags.timeout ?? DEFAULT_TIMEOUT),
        ...(flags.cache !== undefined ? { cache: flags.cache } : {}),
        ...(flags.cacheDir !== undefined ? { cacheDir: flags.cacheDir } : {}),
      },
      useCaseDeps(flags.verbose),
    );
    return 0;
  } catch (error) {
    return reportFailure(error, line, flags.verbose);
  }
}

export function durationFlag(name: string, value: string): number {
  if (!DURATION_PATTERN.test(value) || parseDuration(value) <= 0) {
    throw new UsageError('FLAG_INVALID', `${name} ${JSON.stringify(value)}: expected a positive duration such as 10s, 500ms or 1m30s`);
  }
  return parseDuration(value);
}
