// An API's words in a message, read one way for the three messages that repeat them.
import { describe, expect, it } from 'vitest';
import { errorSaid, quoteSaid } from '../../src/credential/error-fields.js';

const redact = (text: string) => text.replaceAll('s3cret', '[REDACTED]');

describe('quoteSaid', () => {
  it('quotes a short text as JSON', () => {
    expect(quoteSaid('bad "client"', redact)).toBe('"bad \\"client\\""');
  });

  it('redacts before it cuts to 200 characters and marks the cut', () => {
    const text = `${'x'.repeat(195)}s3cret and more`;
    expect(quoteSaid(text, redact)).toBe(`"${`${'x'.repeat(195)}[REDACTED]`.slice(0, 200)}…"`);
  });

  it('escapes what would drive a terminal', () => {
    expect(quoteSaid('a\u001b[2Jb\u202ec', redact)).toBe('"a\\u001b[2Jb\\u202ec"');
  });
});

describe('errorSaid', () => {
  it.each<[string, unknown, ReturnType<typeof errorSaid>]>([
    [
      'error and error_description',
      { error: 'invalid_grant', error_description: 'expired s3cret' },
      { error: '"invalid_grant"', detail: { field: 'error_description', text: '"expired [REDACTED]"' } },
    ],
    [
      'error and message',
      { error: 'quota', message: 'too many' },
      { error: '"quota"', detail: { field: 'message', text: '"too many"' } },
    ],
    [
      'error_description over message',
      { error: 'e', error_description: 'd', message: 'm' },
      { error: '"e"', detail: { field: 'error_description', text: '"d"' } },
    ],
    ['error alone', { error: 'e', error_description: 7 }, { error: '"e"' }],
    ['nothing without a string error', { error: { code: 1 }, message: 'm' }, undefined],
    ['nothing of a list', [{ error: 'e' }], undefined],
    ['nothing of null', null, undefined],
  ])('reads %s', (_name, document, said) => {
    expect(errorSaid(document, redact)).toEqual(said);
  });
});
