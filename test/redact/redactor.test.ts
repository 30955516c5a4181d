// The Redactor knows which strings are secret and replaces them, in the encodings they travel in.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { excerpt, REDACTED, Redactor } from '../../src/redact/redactor.js';
import { normalise } from '../../src/redact/normalise.js';
import { secretEchoes } from '../helpers/secret-forms.js';

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
    [
      'the base64 form',
      'alice:hunter2',
      'Authorization: Basic YWxpY2U6aHVudGVyMg==',
      'Authorization: Basic [REDACTED]',
    ],
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

describe('Redactor, forms a server or a URL gives back', () => {
  const secret = 'abc|def ghi^jkl&<x>"\'+/é';
  it.each<[string, string]>([
    ['the URL path encode set', "https://api/v1/abc|def%20ghi%5Ejkl&%3Cx%3E%22'+/%C3%A9"],
    ['percent-encoding in lower-case hex', 'abc%7cdef%20ghi%5ejkl%26%3cx%3e%22%27%2b%2f%c3%a9'],
    ['form encoding with + for space', 'q=abc%7Cdef+ghi%5Ejkl%26%3Cx%3E%22%27%2B%2F%C3%A9'],
    ["Go's JSON encoder", '{"e":"abc|def ghi^jkl\\u0026\\u003cx\\u003e\\"\\u0027+\\/\\u00e9"}'],
    ['HTML entities', 'abc&#124;def ghi&Hat;jkl&amp;&lt;x&gt;&quot;&#39;&#x2B;/&#233;'],
    ['upper case', 'ABC|DEF GHI^JKL&<X>"\'+/É'],
    ['a line break in the middle', 'abc|def gh\r\ni^jkl&<x>"\'+/é'],
    ['an escaped line break inside JSON text', '"abc|def\\n ghi^jkl\\u0026\\u003cx\\u003e\\"\'+/\\u00e9"'],
  ])('hides %s', (_name, text) => {
    const out = redactorWith(secret).redact(`before ${text} after`);
    expect(out).toContain(REDACTED);
    expect(out).not.toMatch(/def|ghi|jkl/i);
  });

  it.each<[string, (value: string) => string]>([
    ['base64', (v) => Buffer.from(v).toString('base64')],
    ['unpadded base64', (v) => Buffer.from(v).toString('base64').replace(/=+$/, '')],
    ['base64url', (v) => Buffer.from(v).toString('base64url')],
    ['lower-case hex', (v) => Buffer.from(v).toString('hex')],
    ['upper-case hex', (v) => Buffer.from(v).toString('hex').toUpperCase()],
    ['base64 of user:secret (Basic auth)', (v) => Buffer.from(`user:${v}`).toString('base64')],
    ['base64 of the secret two bytes in', (v) => Buffer.from(`ab${v}:x`).toString('base64')],
  ])('hides the %s form', (_name, encode) => {
    const value = 's3cr3t>?value~with/edges';
    const encoded = encode(value);
    const out = redactorWith(value).redact(`x ${encoded} y`);
    expect(out).toContain(REDACTED);
    // Only the characters that mix the secret's bits with its neighbours' may stay: at most one each side.
    const hidden = encoded.length - (out.length - REDACTED.length - 4);
    expect(hidden).toBeGreaterThanOrEqual(Buffer.byteLength(value));
  });

  it('leaves the text around a match byte for byte, escapes and all', () => {
    expect(redactorWith('hunter22').redact('a\\u0026b HUNTER22 %41 &amp; c')).toBe('a\\u0026b [REDACTED] %41 &amp; c');
  });

  it('hides a raw secret that itself looks like an escape', () => {
    expect(redactorWith('x%41y\\back&lt;').redact('is x%41y\\back&lt; !')).toBe('is [REDACTED] !');
    expect(redactorWith('x%41y\\back&lt;').redact(JSON.stringify('x%41y\\back&lt;'))).toBe('"[REDACTED]"');
  });

  it('does not redact a three-byte value in any form', () => {
    expect(redactorWith('xyz').size).toBe(0);
  });

  it('keeps a four-byte value from blanking hex or base64 fragments of ordinary text', () => {
    expect(redactorWith('abcd').redact('616263 YWJj plain')).toBe('616263 YWJj plain');
  });

  it('hides every echo the test helper knows, for any secret of printable text', () => {
    fc.assert(
      // White space around a secret is not secret (the trimmed form is registered too, and may win
      // the match, leaving an encoded leading space in view): the property is about the secret itself.
      fc.property(
        fc.string({ minLength: 6, maxLength: 40 }).filter((s) => s.trim().length >= 6 && s.trim() === s),
        (value) => {
          const redactor = redactorWith(value);
          for (const [name, echo] of Object.entries(secretEchoes(value))) {
            const out = redactor.redact(`<${echo}>`);
            if (out !== `<${REDACTED}>`)
              throw new Error(`${name} form ${JSON.stringify(echo)} of ${JSON.stringify(value)} was printed: ${out}`);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('normalise', () => {
  it.each<[string, string, string]>([
    ['folds ASCII and non-ASCII case', 'AbC É', 'abc \u00c3\u00a9'],
    ['reads + as a space', 'a+b c', 'a b c'],
    ['drops line breaks', 'a\r\nb\nc', 'abc'],
  ])('%s', (_name, text, expected) => {
    expect(normalise(text).text).toBe(expected);
  });

  it('drops the indentation after a line break only in the indent reading, and no other white space', () => {
    expect(normalise('a b\n  \tc\r\n d \te').text).toBe('a b  \tc d \te');
    expect(normalise('a b\n  \tc\r\n d \te', { percent: false, json: false, html: false, indent: true }).text).toBe(
      'a bcd \te',
    );
    expect(normalise('a\\n  b', { percent: false, json: true, html: false, indent: true }).text).toBe('ab');
  });

  it('maps each normal byte back to the characters it came from', () => {
    const normal = normalise('x%41&amp;\\u00e9y', { percent: true, json: true, html: true });
    expect(normal.text).toBe('xa&\u00c3\u00a9y');
    expect([...normal.start.slice(0, 6)]).toEqual([0, 1, 4, 9, 9, 15]);
    expect([...normal.end.slice(0, 6)]).toEqual([1, 4, 9, 15, 15, 16]);
  });
});

describe('excerpt', () => {
  const redactor = redactorWith('s3cr3t-token');
  const redact = (text: string) => redactor.redact(text);

  it.each<[string, string, number | undefined, string]>([
    ['a short body unchanged', '{"error":"invalid_client"}', undefined, '{"error":"invalid_client"}'],
    [
      'a body with its secret redacted',
      '{"error":"bad","token":"s3cr3t-token"}',
      undefined,
      '{"error":"bad","token":"[REDACTED]"}',
    ],
    [
      'line breaks and runs of spaces folded to one space',
      '<html>\n  <body>\r\n\tError</body>\n</html>\n',
      undefined,
      '<html> <body> Error</body> </html>',
    ],
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
