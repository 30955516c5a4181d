// get-token in its plain form (the flags fast-path.ts understands), without commander: what kubectl
// runs on every command that finds no cached credential. Same use case, same error reporting as
// the commander route in program.ts; test/catalogue/cli-parity.process.test.ts and the integration suites run
// both ways.
import type { ExitCode } from '../errors.js';
import type { CliDeps } from './deps.js';
import { getTokenFlags } from './flags.js';
import type { FastFlags } from './fast-path.js';
import { getToken } from '../use-case/get-token.js';
import { reporter } from './report.js';

export async function runGetToken(flags: FastFlags, deps: CliDeps): Promise<ExitCode> {
  const { failure, useCaseDeps } = reporter(deps);
  try {
    await getToken(getTokenFlags(flags), useCaseDeps(flags.verbose));
    return 0;
  } catch (error) {
    return failure(error, flags.verbose);
  }
}
