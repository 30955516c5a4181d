// doctor's stages as people and scripts read them: one line each (✓ passed, ✗ failed, – skipped),
// or one JSON document. Everything printed passes the redactor: a claim or a note that holds a secret
// shows [REDACTED]. What a stage found is use-case/doctor/stage.ts's.
import { shownOnTerminal, type ExitCode } from '../errors.js';
import { STAGES, type Stage } from '../use-case/doctor/stage.js';

const MARKS = { pass: '✓', fail: '✗', skip: '–' } as const;

export function formatText(stages: Stage[], redact: (text: string) => string): string {
  const width = Math.max(...STAGES.map((name) => name.length));
  return (
    stages
      .map((s) => {
        const extra = [...s.warnings.map((w) => `warning: ${w}`), ...s.notes.map((n) => `note: ${n}`)];
        const line = `${MARKS[s.result]} ${s.name.padEnd(width)}  ${s.summary}${extra.length > 0 ? `; ${extra.join('; ')}` : ''}`;
        // What a token API or a cluster names (a claim, a username) reaches a terminal here: a control or
        // format character is shown as its escape, never run (a cursor move or a bidi override could hide a stage).
        return shownOnTerminal(line, (text) => redact(text).replace(/\r?\n/g, ' '));
      })
      .join('\n') + '\n'
  );
}

export function formatJson(stages: Stage[], exitCode: ExitCode, redact: (text: string) => string): string {
  const document = {
    apiVersion: 'webapi-credential.doctor/v1',
    exitCode,
    stages: stages.map((s) => ({
      name: s.name,
      result: s.result,
      summary: s.summary,
      warnings: s.warnings,
      notes: s.notes,
      details: s.details,
      ...(s.exitCode !== undefined ? { exitCode: s.exitCode } : {}),
    })),
  };
  // JSON.stringify escapes C0 controls but not C1 (an 8-bit CSI) nor format characters: escaped here, as JSON allows anywhere in a string.
  return shownOnTerminal(JSON.stringify(document, null, 2), redact) + '\n';
}

/** The report in the format doctor's -o chose. */
export function formatReport(
  format: 'text' | 'json',
  stages: Stage[],
  exitCode: ExitCode,
  redact: (text: string) => string,
): string {
  return format === 'json' ? formatJson(stages, exitCode, redact) : formatText(stages, redact);
}
