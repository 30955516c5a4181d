// doctor's stages as people and scripts read them: one line each (✓ passed, ✗ failed, – skipped),
// or one JSON document. Everything printed passes the redactor: a claim or a note that holds a secret
// shows [REDACTED]. What a stage found is use-case/doctor/stage.ts's.
import { shownOnTerminal, type ExitCode } from '../errors.js';
import { STAGES, type Stage } from '../use-case/doctor/stage.js';

const MARKS = { pass: '✓', fail: '✗', skip: '–' } as const;

/**
 * The report is the plugin's frame (marks, stage names, `warning:`, the JSON's keys), checked for the
 * secrets read (`redactFrame`): a word of it that a secret decided reads the same whichever word it
 * chose. What a stage found (its summary, warnings, notes and details, unless the stage says they are
 * its frame: Stage.framed) may echo what was sent, and is redacted in full (`redact`).
 */
export interface ReportRedaction {
  redact: (text: string) => string;
  redactFrame: (text: string) => string;
}

/** A line a stage found: as it is when the stage says it is the frame, else redacted in full. */
function ownLine(s: Stage, redaction: ReportRedaction): (text: string) => string {
  return (text) => (s.framed ? text : redaction.redact(text));
}

export function formatText(stages: Stage[], redaction: ReportRedaction): string {
  const width = Math.max(...STAGES.map((name) => name.length));
  return (
    stages
      .map((s) => {
        const own = ownLine(s, redaction);
        const extra = [...s.warnings.map((w) => `warning: ${own(w)}`), ...s.notes.map((n) => `note: ${own(n)}`)];
        const line = `${MARKS[s.result]} ${s.name.padEnd(width)}  ${own(s.summary)}${extra.length > 0 ? `; ${extra.join('; ')}` : ''}`;
        // What a token API or a cluster names (a claim, a username) reaches a terminal here: a control or
        // format character is shown as its escape, never run (a cursor move or a bidi override could hide a stage).
        return shownOnTerminal(line, (text) => redaction.redactFrame(text).replace(/\r?\n/g, ' '));
      })
      .join('\n') + '\n'
  );
}

export function formatJson(stages: Stage[], exitCode: ExitCode, redaction: ReportRedaction): string {
  const document = {
    apiVersion: 'webapi-credential.doctor/v1',
    exitCode,
    stages: stages.map((s) => {
      const own = ownLine(s, redaction);
      return {
        name: s.name,
        result: s.result,
        summary: own(s.summary),
        warnings: s.warnings.map(own),
        notes: s.notes.map(own),
        details: s.framed ? s.details : redactValues(s.details, redaction.redact),
        ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
      };
    }),
  };
  // JSON.stringify escapes C0 controls but not C1 (an 8-bit CSI) nor format characters: escaped here, as JSON allows anywhere in a string.
  return shownOnTerminal(JSON.stringify(document, null, 2), (text) => redaction.redactFrame(text)) + '\n';
}

/** Every string of a stage's details redacted in full (a framed stage redacted them where it put them in); their keys are the plugin's names. */
function redactValues(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map((item) => redactValues(item, redact));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValues(item, redact)]));
  return value;
}

/** The report in the format doctor's -o chose. */
export function formatReport(
  format: 'text' | 'json',
  stages: Stage[],
  exitCode: ExitCode,
  redaction: ReportRedaction,
): string {
  return format === 'json' ? formatJson(stages, exitCode, redaction) : formatText(stages, redaction);
}
