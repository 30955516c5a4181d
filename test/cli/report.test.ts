// What --verbose adds to a failure: the stack and its causes, every line through the redactor.
import { describe, expect, it } from 'vitest';
import { RequestError } from '../../src/errors.js';
import { Redactor } from '../../src/redact/redactor.js';
import { reportFailure, reporter, stackOf } from '../../src/cli/report.js';

const SECRET = 'p@ssw0rd-very-secret';

function parseError(text: string): SyntaxError {
  try {
    JSON.parse(text);
  } catch (error) {
    return error as SyntaxError;
  }
  throw new Error('parsed');
}

describe('stackOf', () => {
  it('shows a SyntaxError cause by its frames only: its message quotes a piece of the text', () => {
    const cause = parseError(`${SECRET.slice(0, 10)}`);
    expect(cause.message).toContain('p@ssw0rd-v');
    const stack = stackOf(new RequestError('REQUEST', 'outer', { cause }));
    expect(stack).toContain('\ncaused by: SyntaxError: (message not shown: it may quote the text it could not parse)\n    at ');
    expect(stack).not.toContain('p@ssw0rd');
  });

  it('keeps the message of any other cause', () => {
    const stack = stackOf(new RequestError('REQUEST', 'outer', { cause: new Error('socket hang up') }));
    expect(stack).toMatch(/^RequestError: outer\n {4}at [^]*\ncaused by: Error: socket hang up\n {4}at /);
  });
});

describe('reportFailure under --verbose', () => {
  it('redacts every form of a secret in the message, the stack and the causes', () => {
    const redactor = new Redactor();
    redactor.add(SECRET);
    const lines: string[] = [];
    const { line } = reporter({ redactor, stderr: (text: string) => lines.push(text) } as unknown as Parameters<typeof reporter>[0]);
    const cause = new Error(`GET /x/${encodeURIComponent(SECRET.toUpperCase())}`);
    const code = reportFailure(new RequestError('REQUEST', `failed for ${Buffer.from(SECRET).toString('base64url')}`, { cause }), line, true);
    expect(code).toBe(3);
    const text = lines.join('');
    expect(text).toMatch(/^webapi-credential: failed for \[REDACTED\]\nwebapi-credential: RequestError: failed for \[REDACTED\]\n/);
    expect(text).toContain('\n  caused by: Error: GET /x/[REDACTED]\n');
    expect(text.toLowerCase()).not.toContain('ssw0rd');
  });
});
