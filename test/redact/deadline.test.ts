// Past the deadline a redaction that is not done fails closed (docs/redaction.md "The deadline"):
// the text is replaced whole, never shown unchecked, and the report of a failure gets a grace of
// its own, expired only once both have passed.
import { describe, expect, it } from 'vitest';
import { NOT_CHECKED, REDACTED, Redactor } from '../../src/redact/redactor.js';

const SECRET = 'deadline-secret-Qx7';
const LONG = `${'ordinary text '.repeat(2_000)}${SECRET} end`;

function redactorWith(expired: () => boolean) {
  const redactor = new Redactor();
  redactor.add(SECRET);
  redactor.setDeadline(expired);
  return redactor;
}

describe('the deadline', () => {
  it('shows a long text whole-redacted, never unchecked, once the deadline has passed', () => {
    const redactor = redactorWith(() => true);
    expect(redactor.redact(LONG)).toBe(NOT_CHECKED);
    expect(redactor.tryRedact(LONG)).toBeUndefined();
    expect(redactor.failedFor).toBe('time');
  });

  it('redacts as usual before the deadline', () => {
    const redactor = redactorWith(() => false);
    expect(redactor.redact(LONG)).toBe(LONG.replace(SECRET, REDACTED));
    expect(redactor.failedFor).toBeUndefined();
  });

  it('goes on from the work done once there is time again', () => {
    let expired = true;
    const redactor = redactorWith(() => expired);
    expect(redactor.redact(LONG)).toBe(NOT_CHECKED);
    expired = false;
    expect(redactor.redact(LONG)).toBe(LONG.replace(SECRET, REDACTED));
  });

  it('gives the report a grace of its own: expired only when both the deadline and the grace have passed', () => {
    const deadline = { passed: true };
    const grace = { passed: false };
    const redactor = redactorWith(() => deadline.passed);
    redactor.graceAfterDeadline(() => grace.passed);
    expect(redactor.redact(LONG)).toBe(LONG.replace(SECRET, REDACTED));
    grace.passed = true;
    expect(redactor.redact(LONG)).toBe(NOT_CHECKED);
    deadline.passed = false;
    expect(redactor.redact(LONG)).toBe(LONG.replace(SECRET, REDACTED));
  });

  it('shows an empty text as it is, and a text with no secret registered unchanged', () => {
    expect(redactorWith(() => true).redact('')).toBe('');
    const none = new Redactor();
    none.setDeadline(() => true);
    expect(none.redact(LONG)).toBe(LONG);
  });
});
