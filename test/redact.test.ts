// The Redactor knows which strings are secret and replaces them, in the encodings they travel in.
import { describe, expect, it } from 'vitest';
import { excerpt, REDACTED, Redactor } from '../src/redact.js';

const redactorWith = (...secrets: (string | undefined | null)[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

describe('Redactor', () => {
  it.each<[string, string, string, string]>([
    ['the value itself', 'hunter2-pass', 'password=hunter2-pass;', 'password=[REDACTED];'],
    ['every occurrence', 'tok-12345', 'tok-12345 and tok-12345', '[REDACTED] and [REDACTED]'],
    ['the trimmed value', '  padded-secret\n', 'x padded-secret y', 'x [REDACTED] y'],
    ['the JSON-escaped form', 'a"quote\\slash', '{"v":"a\\"quote\\\\slash"}', '{"v":"[REDACTED]"}'],
    ['the JSON-escaped form of a newline', 'line1\nline2', '"line1\\nline2"', '"[REDACTED]"'],
    ['the URL-encoded form', 'p@ss word/é', 'pw=p%40ss%20word%2F%C3%A9', 'pw=[REDACTED]'],
    ['the form-encoded form with +', 'p@ss word', 'pw=p%40ss+word', 'pw=[REDACTED]'],
    ['the form-encoded form of ! and ~', "it's (ok)!~", 'pw=it%27s+%28ok%29%21%7E', 'pw=[REDACTED]'],
    ['the base64 form', 'alice:hunter2', 'Authorization: Basic YWxpY2U6aHVudGVyMg==', 'Authorization: Basic [REDACTED]'],
  ])('replaces %s', (_name, secret, text, expected) => {
    expect(redactorWith(secret).redact(text)).toBe(expected);
  });

  it('replaces a secret that contains another one whole, longest first', () => {
    const redactor = redactorWith('abcd', 'abcd-efgh-ijkl');
    expect(redactor.redact('x abcd-efgh-ijkl y abcd z')).toBe('x [REDACTED] y [REDACTED] z');
  });

  it('gives the same result whatever order the secrets were added in', () => {
    expect(redactorWith('abcd-efgh-ijkl', 'abcd').redact('abcd-efgh-ijkl')).toBe('[REDACTED]');
    expect(redactorWith('abcd', 'abcd-efgh-ijkl').redact('abcd-efgh-ijkl')).toBe('[REDACTED]');
  });

  it('does not redact a value of three characters', () => {
    expect(redactorWith('abc').redact('abc and more "abc" abc%20')).toBe('abc and more "abc" abc%20');
  });

  it.each<[string, string | undefined | null]>([
    ['an empty value', ''],
    ['undefined', undefined],
    ['null', null],
  ])('ignores %s', (_name, secret) => {
    const redactor = redactorWith(secret);
    expect(redactor.size).toBe(0);
    expect(redactor.redact('abc and more')).toBe('abc and more');
  });

  it('registers a four-character value', () => {
    expect(redactorWith('abcd').redact('xabcdx')).toBe(`x${REDACTED}x`);
  });

  it('counts each distinct form once', () => {
    expect(redactorWith('plainvalue', 'plainvalue').size).toBe(redactorWith('plainvalue').size);
  });

  it('leaves text alone when nothing is registered', () => {
    expect(new Redactor().redact('anything at all')).toBe('anything at all');
  });

  it('picks up a secret added after an earlier redaction', () => {
    const redactor = redactorWith('first-secret');
    expect(redactor.redact('first-secret second-secret')).toBe('[REDACTED] second-secret');
    redactor.add('second-secret');
    expect(redactor.redact('first-secret second-secret')).toBe('[REDACTED] [REDACTED]');
  });
});

describe('excerpt', () => {
  const redactor = redactorWith('s3cr3t-token');
  const redact = (text: string) => redactor.redact(text);

  it.each<[string, string, number | undefined, string]>([
    ['a short body unchanged', '{"error":"invalid_client"}', undefined, '{"error":"invalid_client"}'],
    ['a body with its secret redacted', '{"error":"bad","token":"s3cr3t-token"}', undefined, '{"error":"bad","token":"[REDACTED]"}'],
    ['line breaks and runs of spaces folded to one space', '<html>\n  <body>\r\n\tError</body>\n</html>\n', undefined, '<html> <body> Error</body> </html>'],
    ['control characters replaced', 'a\u0000\u0007b\u007fc', undefined, 'a b c'],
    ['a long body cut with an ellipsis', 'x'.repeat(250), undefined, `${'x'.repeat(200)}…`],
    ['a body of exactly the maximum uncut', 'y'.repeat(200), undefined, 'y'.repeat(200)],
    ['a custom maximum', 'abcdefghij', 4, 'abcd…'],
  ])('gives %s', (_name, body, max, expected) => {
    expect(excerpt(body, redact, max)).toBe(expected);
  });

  it('redacts before cutting, so that a secret across the cut does not leak its head', () => {
    expect(excerpt(`${'x'.repeat(190)}s3cr3t-token`, redact)).toBe(`${'x'.repeat(190)}[REDACTED]`);
    const body = `${'x'.repeat(195)}s3cr3t-token`;
    expect(excerpt(body, redact)).toBe(`${'x'.repeat(195)}[REDA…`);
    expect(excerpt(`${'x'.repeat(196)}s3cr3t-token`, redact)).toBe(`${'x'.repeat(196)}[RED…`);
  });
});
