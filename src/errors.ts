// Every failure the user can cause or meet is one of these classes. Each carries a stable `code`
// (for tests and scripts) and the exit code of SPEC "Errors"; exitCodeFor() is the one place that
// maps an error to a process exit code. Anything else that escapes is a bug: exit 1.

export type ExitCode = 0 | 1 | 2 | 3 | 4;

export abstract class CredentialError extends Error {
  abstract readonly exitCode: ExitCode;
  /**
   * The message is the plugin's own frame (field names, the URL up to its query as shown, fixed words)
   * with every part that may echo what was sent redacted in full already: it is checked for the
   * secrets read, not for the values a secret decided (Redactor.tryRedactFrame), so that a word of
   * the frame does not read differently for one secret than for another.
   */
  readonly framed: boolean;
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown; framed?: boolean },
  ) {
    super(oneLine(message), options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.framed = options?.framed === true;
  }
}

/**
 * Messages are one line on stderr. A control character that reached one from user input (a key
 * `"a\nb"` in a config, a query name) is shown as its escape, never as a line break.
 */
function oneLine(message: string): string {
  return message.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/**
 * What a terminal must not be handed as it is: controls (C0 but tab and line feed, DEL, C1: an
 * 8-bit CSI moves a cursor as ESC [ does), line and paragraph separators, lone surrogates, and every
 * format character (Cf): bidi marks, embeddings, overrides and isolates (U+200E, U+202E, U+2067...),
 * zero-width ones, U+FEFF, tags. They drive the terminal, or reorder or hide what a person reads
 * (a server's error text, a claim, a config key).
 */
export const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const ESCAPED = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;

/**
 * The UNSHOWABLE characters of a text as escapes (JSON's spelling, valid inside a JSON string), tab
 * and line feed kept. Applied to a line after its redaction, so that a secret is still recognised in
 * the form it had.
 */
export function terminalSafe(text: string): string {
  return text.replace(ESCAPED, (c) =>
    c < '\u007f'
      ? JSON.stringify(c).slice(1, -1)
      : [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

/**
 * A line for a terminal: redacted, its UNSHOWABLE characters escaped, and redacted again when the
 * escaping changed it. A secret whose own text holds such an escape (`tok\u202e…`, a password with a
 * backslash) is not found in an echo that holds the character decoded, and escaping that echo
 * would write the secret out. `redact` may give up (undefined): so does this.
 */
export function shownOnTerminal<T extends string | undefined>(text: string, redact: (text: string) => T): T {
  const redacted = redact(text);
  if (redacted === undefined) return redacted;
  const escaped = terminalSafe(redacted);
  return escaped === redacted ? redacted : redact(escaped);
}

/** Exit 2: bad flags, invalid config, template errors, missing env values. */
export class UsageError extends CredentialError {
  readonly exitCode = 2 as const;
}

export interface ConfigIssue {
  /** Field path, e.g. `webAPIProviderConfig.tls.caFile`. */
  path: string;
  message: string;
  /** For an unknown field: its name and the names known at its place. */
  unknown?: { key: string; known: string[] };
}

/** The most problems one message names; `issues` keeps them all. */
const ISSUES_SHOWN = 100;

/** Exit 2: the config failed validation; every issue is reported at once. */
export class ConfigError extends UsageError {
  constructor(
    readonly issues: ConfigIssue[],
    source: string,
    code = 'CONFIG_INVALID',
  ) {
    // Every problem up to a bound: a generated config of 50 000 bad fields is not a 15 MB line.
    const shown = issues.slice(0, ISSUES_SHOWN).map((i) => `${i.path}: ${i.message}`.slice(0, 400));
    if (issues.length > ISSUES_SHOWN) shown.push(`and ${issues.length - ISSUES_SHOWN} more problems`);
    super(code, `config from ${source} is invalid: ` + shown.join('; '));
  }
}

/**
 * Exit 2: stdout cannot take what the command prints (a full disk, a closed file). Of the codes
 * SPEC "Errors" has, 2 is the one an operator reads right: the command was run with an output it
 * cannot use, as with a bad flag. Not 1: no bug. Not 3 or 4: the token API and its answer were
 * fine (and `render` makes no request), and a caller that retries on 3 would fetch again for
 * nothing. The credential is not printed; running the same command with a usable stdout prints it.
 */
export class OutputError extends UsageError {
  constructor(
    readonly reason: string,
    what = '',
    options?: { cause?: unknown },
  ) {
    super('STDOUT_WRITE', `cannot write ${what ? `${what} ` : ''}to stdout: ${reason}`, options);
  }

  /** The same failure, naming what could not be written. */
  of(what: string): OutputError {
    return new OutputError(this.reason, what, { cause: this.cause });
  }
}

/** Exit 3: the request did not get a 2xx answer (DNS, connect, TLS, timeout, status). */
export class RequestError extends CredentialError {
  readonly exitCode = 3 as const;
  /** The status of the answer that failed it, if one came: the cache tells a refusal from an outage by it. */
  readonly status: number | undefined;
  /** That answer's Retry-After, in ms. */
  readonly retryAfterMs: number | undefined;
  constructor(
    code: string,
    message: string,
    options?: { cause?: unknown; framed?: boolean; status?: number; retryAfterMs?: number | undefined },
  ) {
    super(code, message, options);
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** Exit 4: a 2xx answer that does not hold a usable credential. */
export class ResponseError extends CredentialError {
  readonly exitCode = 4 as const;
}

export function exitCodeFor(error: unknown): ExitCode {
  return error instanceof CredentialError ? error.exitCode : 1;
}

/** Printed on every call with tls.insecureSkipVerify, cache hits included. */
export const INSECURE_SKIP_VERIFY_WARNING =
  'tls.insecureSkipVerify is set: the token API is not authenticated and the credential can be stolen in transit';

const READ_PROBLEMS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  ELOOP: 'too many symbolic links',
  // The same words serve the writers (a kubeconfig, a kuberc), whose failures are these more often.
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
};

/**
 * A file that could not be read (or written), in words: the common errno codes, or the message of our own
 * bounded reader (read-file.ts: not a regular file, larger than 1 MiB), else the code.
 */
export function readProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code && Object.hasOwn(READ_PROBLEMS, code)) return READ_PROBLEMS[code]!;
  if ((error as { readLimit?: boolean }).readLimit) return (error as Error).message;
  return code ?? 'unreadable';
}
