// What an API writes in an error answer, and how a message repeats it: read here for the three
// messages that quote an API (a non-2xx answer's summary, a 2xx answer without a token, a refusal of
// the device code or the refresh token). Pure.
import { terminalSafe } from '../errors.js';

/** OAuth 2.0 (RFC 6749 5.2), RFC 7807-like and most REST APIs' error fields. */
export const ERROR_FIELDS: ReadonlySet<string> = new Set([
  'error',
  'error_description',
  'message',
  'errors',
  'reason',
  'code',
]);

const SAID_MAX = 200;

/**
 * An API's text in a message: redacted before it is cut to 200 characters (a cut through an echoed
 * secret would leave a piece that no longer reads as it), quoted, its unshowable characters escaped.
 */
export function quoteSaid(text: string, redact: (text: string) => string): string {
  const shown = redact(text);
  return terminalSafe(JSON.stringify(shown.length > SAID_MAX ? `${shown.slice(0, SAID_MAX)}…` : shown));
}

/** What an error answer says: its string `error`, and the `error_description` (else `message`) that explains it, each quoted. */
export interface ErrorSaid {
  error: string;
  detail?: { field: 'error_description' | 'message'; text: string };
}

/** The `error` of a JSON object and its explanation, quoted (quoteSaid); undefined without a string `error`. */
export function errorSaid(document: unknown, redact: (text: string) => string): ErrorSaid | undefined {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) return undefined;
  const fields = document as Record<string, unknown>;
  if (typeof fields['error'] !== 'string') return undefined;
  const field =
    typeof fields['error_description'] === 'string'
      ? 'error_description'
      : typeof fields['message'] === 'string'
        ? 'message'
        : undefined;
  return {
    error: quoteSaid(fields['error'], redact),
    ...(field ? { detail: { field, text: quoteSaid(fields[field] as string, redact) } } : {}),
  };
}
