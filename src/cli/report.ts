// How the CLI speaks to people: one redacted line per message on stderr, and the one place that
// turns any error into its line and its exit code. Free of commander, so that get-token in its
// plain form (direct.ts) runs without loading it.
import { c1Escaped, CredentialError, exitCodeFor, type ExitCode } from '../errors.js';
import type { Deps } from '../use-case/deps.js';

const PREFIX = 'webapi-credential: ';

export interface Reporter {
  line: (text: string) => void;
  /** The use cases' deps: warnings always, the trace only with --verbose. */
  useCaseDeps: (verbose: boolean) => Deps;
}

export function reporter(deps: Omit<Deps, 'trace' | 'warn'> & { stderr: (text: string) => void }): Reporter {
  const line = (text: string) => deps.stderr(PREFIX + c1Escaped(deps.redactor.redact(text)).trimEnd().replace(/\n/g, '\n  ') + '\n');
  return {
    line,
    useCaseDeps: (verbose) => ({ ...deps, warn: (text) => line(`warning: ${text}`), trace: verbose ? line : () => {} }),
  };
}

/** Reports a failed use case: its message, the stack under --verbose; returns the exit code. */
export function reportFailure(error: unknown, line: (text: string) => void, verbose: boolean): ExitCode {
  const code = exitCodeFor(error);
  if (error instanceof CredentialError) line(error.message);
  else line(`internal error, please report it: ${error instanceof Error ? error.message : String(error)}`);
  if (verbose && error instanceof Error) line(stackOf(error));
  return code;
}

export function stackOf(error: Error): string {
  const parts = [shown(error)];
  let cause = (error as { cause?: unknown }).cause;
  while (cause instanceof Error) {
    parts.push(`caused by: ${shown(cause)}`);
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

/**
 * A parser's SyntaxError quotes the text it failed on (`Unexpected token 'p', "p@ssw0rd-v"…`): a
 * piece of a secret that no redaction can recognise, so only its frames are shown.
 */
function shown(error: Error): string {
  const stack = error.stack ?? `${error.name}: ${error.message}`;
  if (!(error instanceof SyntaxError)) return stack;
  const at = stack.indexOf('\n    at ');
  return `${error.name}: (message not shown: it may quote the text it could not parse)${at >= 0 ? stack.slice(at) : ''}`;
}
