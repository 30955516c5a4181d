// doctor's stages as people and scripts read them: one line each (✓ passed, ✗ failed, – skipped),
// or one JSON document. Everything printed passes the redactor: a claim or a note that holds a secret
// shows [REDACTED]. What a stage found is use-case/doctor/stage.ts's.
import { shownOnTerminal, type ExitCode } from '../errors.js';
import { STAGES, type Stage } from '../use-case/doctor/stage.js';

const MARKS = { pass: '✓', fail: '✗', skip: '–' } as const;

/**
 * The report is the plugin's frame (marks, stage names, `warning:`, the JSON's keys), checked for the
 * secrets read (`redactFrame`): a word of it that a secret decided reads the same whichever word it
 * chose. What a stage found (its summary, unless the stage says it is a frame, its warnings, notes and
 * details) may echo what was sent, and is redacted in full (`redact`) where it is put in.
 */
export interface ReportRedaction {
  redact: (text: string) => string;
  redactFrame: (text: string) => string;
}

function summaryOf(s: Stage, redaction: ReportRedaction): string {
  return s.framed ? s.summary : redaction.redact(s.summary);
}

export function formatText(stages: Stage[], redaction: ReportRedaction): string {
  const width = Math.max(...STAGES.map((name) => name.length));
  const { redact } = redaction;
  return (
    stages
      .map((s) => {
        const extra = [...s.warnings.map((w) => `warning: ${redact(w)}`), ...s.notes.map((n) => `note: ${redact(n)}`)];
        const line = `${MARKS[s.result]} ${s.name.padEnd(width)}  ${summaryOf(s, redaction)}${extra.length > 0 ? `; ${extra.join('; ')}` : ''}`;
        // What a token API or a cluster names (a claim, a username) reaches a terminal here: a control or
        // format character is shown as its escape, never run (a cursor move or a bidi override could hide a stage).
        return shownOnTerminal(line, (text) => redaction.redactFrame(text).replace(/\r?\n/g, ' '));
      })
      .join('\n') + '\n'
  );
}

export function formatJson(stages: Stage[], exitCode: ExitCode, redaction: ReportRedaction): string {
  const { redact } = redaction;
  const document = {
    apiVersion: 'webapi-credential.doctor/v1',
    exitCode,
    stages: stages.map((s) => ({
      name: s.name,
      result: s.result,
      summary: summaryOf(s, redaction),
      warnings: s.warnings.map(redact),
      notes: s.notes.map(redact),
      details: redactValues(s.details, redact),
      ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
    })),
  };
  // JSON.stringify escapes C0 controls but not C1 (an 8-bit CSI) nor format characters: escaped here, as JSON allows anywhere in a string.
  return shownOnTerminal(JSON.stringify(document, null, 2), (text) => redaction.redactFrame(text)) + '\n';
}

/** Every string of a stage's details redacted in full; their keys are the plugin's names. Details are a few levels deep. */
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
