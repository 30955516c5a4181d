// Loose forms (docs/redaction.md): a long secret spelled out with a no-break or zero-width space
// between its characters (a page or a locale's formatter writes U+00A0, U+202F, U+200B) got
// through: the compact reading dropped ASCII separators only.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';

const SECRET = 'Zq7-kW9p!mR2xT4v';
const chars = Array.from(SECRET);

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** Long enough that the compact reading is made only where the text spells something out. */
const FILLER = 'x'.repeat(20 * 1024);

const spaces: Array<[string, string]> = [
  ['U+00A0 no-break space', '\u00a0'],
  ['U+202F narrow no-break space', '\u202f'],
  ['U+2009 thin space', '\u2009'],
  ['U+200B zero-width space', '\u200b'],
  ['U+3000 ideographic space', '\u3000'],
  ['U+FEFF zero-width no-break space', '\ufeff'],
];

describe('a long secret spelled out with a Unicode space', () => {
  it.each(spaces)('is hidden with %s, in a short text and in one over 16 KiB', (_name, space) => {
    for (const before of ['', `${FILLER} `]) {
      const out = redactorOf(SECRET).redact(`${before}refused key: ${chars.join(space)} (see logs)`);
      expect(out).toBe(`${before}refused key: ${REDACTED} (see logs)`);
    }
  });

  it('leaves the same spaces in ordinary text, and a shorter secret spelled out with them', () => {
    const text = `a\u00a0b\u202fc\u200bd some words\u3000here`;
    expect(redactorOf(SECRET).redact(text)).toBe(text);
    expect(redactorOf('s3cr3t-pw').redact(Array.from('s3cr3t-pw').join('\u00a0'))).toBe(
      Array.from('s3cr3t-pw').join('\u00a0'),
    );
  });
});
