// The template variables of --set key=value (vars.<key>): not secrets, they stand on the command line.
import { UsageError } from '../errors.js';

/** --set key=value pairs into `vars`. Shared by the full path and the fast path, so they agree. */
export function parseSetFlags(pairs: string[] | undefined): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    const key = eq > 0 ? pair.slice(0, eq) : '';
    if (!/^[A-Za-z_][\w-]*$/.test(key)) {
      throw new UsageError(
        'SET_INVALID',
        `--set ${JSON.stringify(pair)}: expected key=value with a key of letters, digits, _ or -`,
      );
    }
    vars[key] = pair.slice(eq + 1);
  }
  return vars;
}
