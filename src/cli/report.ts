// How the CLI speaks to people: one redacted line per message on stderr, and the one place that
// turns any error into its line and its exit code. Free of commander, so that get-token in its
// plain form (direct.ts) runs without loading it.
import { shownOnTerminal, CredentialError, exitCodeFor, type ExitCode } from '../errors.js';
import type { Deps } from '../use-case/deps.js';
import { REPORT_GRACE_MS } from '../redact/redactor.js';

const PREFIX = 'webapi-credential: ';

/** What each kind of failure is, in a line that holds nothing from the inputs. */
const KINDS: Record<ExitCode, string> = {
  0: 'done',
  1: 'internal error, please report it',
  2: 'the command line or the config is invalid',
  3: 'the request failed',
  4: "the token API's answer is unusable",
};

export interface Reporter {
  line: (text: string, framed?: boolean) => void;
  /** The use cases' deps: warnings always, the trace only with --verbose. */
  useCaseDeps: (verbose: boolean) => Deps;
  /**
   * Reports a failed use case: its message, the stack of a bug under --verbose; returns the exit code of
   * the error's kind. Never throws: a message that cannot be redacted in time (or at all) is one
   * fixed line naming the kind and the code.
   */
  failure: (error: unknown, verbose: boolean) => ExitCode;
}

type ReporterDeps = Omit<Deps, 'trace' | 'warn'> & { stderr: (text: string) => void };

export function reporter(deps: ReporterDeps): Reporter {
  const write = (text: string) => deps.stderr(`${PREFIX}${text.trimEnd().replace(/\n/g, '\n  ')}\n`);
  /** Writes `text` redacted; false (and nothing written) when it could not be redacted. */
  const shown = (text: string, framed = false): boolean => {
    try {
      const redacted = shownOnTerminal(text, (t) =>
        framed ? deps.redactor.tryRedactFrame(t) : deps.redactor.tryRedact(t),
      );
      if (redacted === undefined) return false;
      write(redacted);
      return true;
    } catch {
      // A line too long to build (Node's string limit): nothing of it is shown.
      return false;
    }
  };
  const line = (text: string, framed = false) => {
    if (!shown(text, framed)) write(`(a line is not shown: ${whyNot(deps)})`);
  };
  const failure = (error: unknown, verbose: boolean): ExitCode => {
    const code = exitCodeFor(error);
    try {
      // A budget of its own past the use case's deadline, which may have passed already (a timeout):
      // a message is cut only when both are spent.
      const until = deps.now() + REPORT_GRACE_MS;
      deps.redactor.graceAfterDeadline(() => deps.now() >= until);
      if (!shown(messageOf(error), error instanceof CredentialError && error.framed))
        write(fixedLine(error, code, deps));
      // A stack is for a bug (exit 1): a refused config, a 404 or an answer without a token is an
      // ordinary failure, and its one line says all there is (the trace before it shows the rest).
      if (verbose && code === 1 && error instanceof Error && !shown(stackOf(error)))
        write(`(the stack is not shown: ${whyNot(deps)})`);
    } catch {
      try {
        write(fixedLine(error, code, deps));
      } catch {
        // stderr itself failed: nobody is left to tell; the exit code still says what happened.
      }
    }
    return code;
  };
  return {
    line,
    useCaseDeps: (verbose) => ({
      ...deps,
      warn: (text, framed) => line(`warning: ${text}`, framed),
      say: line,
      trace: verbose ? line : () => {},
    }),
    failure,
  };
}

function messageOf(error: unknown): string {
  if (error instanceof CredentialError) return error.message;
  return `internal error, please report it: ${error instanceof Error ? error.message : String(error)}`;
}

/** The line for a message that cannot be shown: its kind and its stable code, nothing from the inputs. */
function fixedLine(error: unknown, code: ExitCode, deps: ReporterDeps): string {
  const id = error instanceof CredentialError && /^[A-Z0-9_]{1,40}$/.test(error.code) ? ` (${error.code})` : '';
  return `${KINDS[code]}${id}; its message is not shown: ${whyNot(deps)}`;
}

function whyNot(deps: ReporterDeps): string {
  return deps.redactor.failedFor === 'time'
    ? 'it could not be checked for secrets in time'
    : 'it could not be checked for secrets';
}

export function stackOf(error: Error): string {
  const parts = [shown(error)];
  let cause = (error as { cause?: unknown }).cause;
  // A chain that loops back on itself would never end: a few dozen causes is more than any has.
  for (let shownCauses = 0; cause instanceof Error && shownCauses < 32; shownCauses++) {
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
