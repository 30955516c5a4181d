// The edges of the loose forms and of the base64 fragments (docs/redaction.md, "Loose forms"): a
// non-ASCII secret echoed reversed, spaced or cut by one whole character (a multi-byte character is
// cut whole, never half of it); a secret with its own line breaks, `+` or spaces; a run spelled out
// exactly at the threshold, at the very end of a long text, one character per line, with an emoji
// or half of one among its characters; and the texts that must stay as they are: base64 that only
// shares a few characters with a short secret, a long body of words read once, not twice.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { checksToRedact } from './scale.js';

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** Over 16 KiB: the compact reading (spelled and reversed forms) is made only where the text spells something out. */
const FILLER = 'x'.repeat(20 * 1024);

const chars = (s: string) => Array.from(s);
const reversed = (s: string) => chars(s).reverse().join('');

/** The echoes of a secret that the loose forms exist for, each a whole number of characters. */
function looseEchoes(secret: string): Array<[string, string]> {
  const c = chars(secret);
  return [
    ['spaced', c.join(' ')],
    ['comma-split', c.join(', ')],
    ['reversed', reversed(secret)],
    ['reversed and spaced', [...c].reverse().join(' ')],
    ['without its first character', c.slice(1).join('')],
    ['without its last character', c.slice(0, -1).join('')],
    ['upper-cased, without its last character', c.slice(0, -1).join('').toUpperCase()],
  ];
}

describe('a non-ASCII secret of 12 bytes or more, echoed loosely', () => {
  // Two-byte characters at both ends: a cut that kept half of one would match nothing.
  const secret = 'Élan-Ωmega-clé';

  it.each(looseEchoes(secret))('is hidden %s, and the words around it stay', (_name, form) => {
    expect(redactorOf(secret).redact(`refused key: ${form} (see logs)`)).toBe(`refused key: ${REDACTED} (see logs)`);
  });

  it.each<[string, string]>([
    ['all Cyrillic', 'парольсекрет'],
    ['all CJK', '密码秘密钥匙'],
    ['emoji at both ends', '🔑pass-wörd🔒'],
    ['a three-byte character first, a four-byte one last', '€uro-kasse-🗝'],
  ])('is hidden %s, in every loose echo', (_name, value) => {
    const redactor = redactorOf(value);
    for (const [name, form] of looseEchoes(value)) {
      expect([name, redactor.redact(`<${form}>`)]).toEqual([name, `<${REDACTED}>`]);
    }
  });

  it('keeps an emoji whole when the secret is reversed (its two UTF-16 units stay in order)', () => {
    expect(redactorOf('pass🔑word-42').redact('echo: 24-drow🔑ssap')).toBe(`echo: ${REDACTED}`);
  });

  it('hides a passphrase with its own spaces, spelled out or reversed character by character', () => {
    for (const secret of ['clé très secrète', 'correct horse battery']) {
      const redactor = redactorOf(secret);
      for (const form of [chars(secret).join(' '), chars(secret).join(','), [...chars(secret)].reverse().join(' ')]) {
        expect(redactor.redact(`[${form}]`)).toBe(`[${REDACTED}]`);
      }
    }
  });

  it('is searched spelled out from exactly 12 bytes of its normal form, not from 11', () => {
    // 'ä' and 'ö' are two bytes each: 10 characters, 12 bytes; the shorter one 11 bytes.
    expect(redactorOf('pässwört12').redact('p ä s s w ö r t 1 2')).toBe(REDACTED);
    expect(redactorOf('pässwört12').redact('p ä s s w ö r t 1')).toBe(REDACTED);
    expect(redactorOf('pässwört1').redact('p ä s s w ö r t 1')).toBe('p ä s s w ö r t 1');
  });

  it('hides any secret of Latin, Greek, Cyrillic, CJK or emoji characters in each loose echo (property)', () => {
    const ranges: Array<[number, number]> = [
      [0x30, 0x39],
      [0x41, 0x5a],
      [0x61, 0x7a],
      [0xc0, 0xff],
      [0x391, 0x3a9],
      [0x3b1, 0x3c9],
      [0x410, 0x44f],
      [0x4e00, 0x4e80],
      [0x1f300, 0x1f5ff],
    ];
    const char = fc
      .constantFrom(...ranges)
      .chain(([from, to]) => fc.integer({ min: from, max: to }))
      .map((cp) => String.fromCodePoint(cp));
    const secret = fc
      .array(char, { minLength: 4, maxLength: 16 })
      .map((c) => c.join(''))
      .filter((s) => Buffer.byteLength(s.toLowerCase()) >= 14);
    fc.assert(
      fc.property(secret, fc.integer({ min: 0, max: 6 }), (value, which) => {
        const [, form] = looseEchoes(value)[which]!;
        expect(redactorOf(value).redact(`<<< ${form} >>>`)).toBe(`<<< ${REDACTED} >>>`);
      }),
      { numRuns: 150 },
    );
  });
});

describe('a secret with a letter whose upper case is two letters or another letter', () => {
  it.each<[string, string]>([
    ['ß (upper case SS)', 'Straße-Geheimnis'],
    ['a final ς (upper case Σ, read back as σ)', 'λόγος-μυστικός'],
    ['the ligature ﬁ (upper case FI)', 'ﬁnal-secret-key'],
  ])('is hidden upper-cased, as a proxy or a locale writes it: %s', (_name, secret) => {
    const redactor = redactorOf(secret);
    expect(redactor.redact(`refused: ${secret.toUpperCase()}.`)).toBe(`refused: ${REDACTED}.`);
    expect(redactor.redact(`refused: ${secret}.`)).toBe(`refused: ${REDACTED}.`);
  });
});

describe('a long secret with characters of its own that a reading changes', () => {
  it('hides a key with a CRLF inside (read from a CRLF file), echoed without its last or first character', () => {
    const key = 'key-line-one\r\nkey-line-two';
    const redactor = redactorOf(key);
    expect(redactor.redact('got <key-line-one\r\nkey-line-tw>')).toBe(`got <${REDACTED}>`);
    expect(redactor.redact('got <key-line-onekey-line-tw>')).toBe(`got <${REDACTED}>`);
    expect(redactor.redact('got <ey-line-one\nkey-line-two>')).toBe(`got <${REDACTED}>`);
  });

  it('hides a key with a lone CR inside, echoed without its last character, in a long body', () => {
    const key = 'key-line-one\rkey-line-two';
    expect(redactorOf(key).redact(`${FILLER} got <key-line-onekey-line-tw>`)).toBe(`${FILLER} got <${REDACTED}>`);
  });

  it('hides a secret with + in it, cut by one character, where only the plain reading is made (a body over 16 KiB)', () => {
    // A form decoder reads '+' as a space: the cut form must too.
    const secret = 'ab+cd/ef+gh/ij+kl';
    const redactor = redactorOf(secret);
    expect(redactor.redact(`${FILLER} key ab+cd/ef+gh/ij+k refused`)).toBe(`${FILLER} key ${REDACTED} refused`);
    expect(redactor.redact(`${FILLER} key ab cd/ef gh/ij k refused`)).toBe(`${FILLER} key ${REDACTED} refused`);
  });
});

describe('a short secret with a line break of its own', () => {
  it('is hidden with the line break dropped, as any echo of it is read (a PIN pair from a CRLF file)', () => {
    const redactor = redactorOf('ab12\r\ncd34');
    expect(redactor.redact('pins: ab12\ncd34.')).toBe(`pins: ${REDACTED}.`);
    expect(redactor.redact('pins: ab12cd34.')).toBe(`pins: ${REDACTED}.`);
  });
});

describe('the base64 fragments of the shortest secrets', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('hides a 4-byte secret encoded alone, and leaves base64 that only shares 4 or 5 characters with it', () => {
    const redactor = redactorOf('abcd');
    expect(redactor.redact(`Basic ${b64('abcd')}`)).toBe(`Basic ${REDACTED}`);
    // 'abce', 'Xabce', 'XYabce': other values whose base64 starts like that of 'abcd' at each
    // offset, for 5 or fewer characters: as common as any 5 letters, they are no secret's.
    for (const other of ['abce', 'Xabce', 'XYabce', 'user:abce', 'u:abce']) {
      const text = `Authorization: Basic ${b64(other)}`;
      expect(redactor.redact(text)).toBe(text);
    }
  });

  it('hides a 5-byte secret at each byte offset of a Basic value (6 characters of its own: the shortest fragment searched)', () => {
    const redactor = redactorOf('abcde');
    for (const user of ['u', 'us', 'usr']) {
      const encoded = b64(`${user}:abcde`);
      const at = user.length + 1;
      const own = encoded.slice(Math.ceil((at * 8) / 6), Math.floor(((at + 5) * 8) / 6));
      expect(redactor.redact(`Basic ${encoded}`)).not.toContain(own);
    }
  });
});

const SPELLED = 'Zq7-kW9p!mR2';

/**
 * The steps of work (the redactor's deadline checks) to redact `text`, holding one long secret: a
 * text read compact too costs about twice one read only as it is.
 */
function work(text: string): number {
  return checksToRedact(text, [SPELLED]);
}

const SIZE = 64 * 1024;
const fill = (unit: string, end = '') =>
  unit.repeat(Math.ceil((SIZE - end.length) / unit.length)).slice(0, SIZE - end.length) + end;

describe('a long text spelled out (over 16 KiB, where the compact reading is made only for a run of single characters)', () => {
  it('hides a secret spelled out to the threshold exactly: 11 single characters in a row, then a word', () => {
    // 'key:Z' is one word; q … 2 are the 11 singles.
    const out = redactorOf(SPELLED).redact(`${FILLER} key:Z q 7 - k W 9 p ! m R 2 (see logs)`);
    expect(out).toBe(`${FILLER} key:${REDACTED} (see logs)`);
  });

  it('hides a secret spelled out to the threshold at the very end of the text (its last character a single one)', () => {
    expect(redactorOf(SPELLED).redact(`${FILLER} key:Z q 7 - k W 9 p ! m R 2`)).toBe(`${FILLER} key:${REDACTED}`);
    expect(redactorOf(SPELLED).redact(`${FILLER} key:Z, q, 7, -, k, W, 9, p, !, m, R, 2`)).toBe(
      `${FILLER} key:${REDACTED}`,
    );
  });

  it.each<[string, string]>([
    ['comma-split', ', '],
    ['one character per line, comma-terminated (a CSV column)', ',\n'],
    ['one character per CR-terminated line, comma-terminated', ',\r'],
    ['one character per CRLF line', '\r\n'],
    ['a JSON list', '","'],
    ['two spaces', '  '],
  ])('hides a secret %s', (_name, separator) => {
    const out = redactorOf(SPELLED).redact(`${FILLER} key: ${chars(SPELLED).join(separator)}. Done`);
    expect(out).toBe(`${FILLER} key: ${REDACTED}. Done`);
  });

  it.each<[string, string]>([
    ['an emoji', '🔑'],
    ['an emoji whose low surrogate is the first one (U+1F400)', '🐀'],
    ['a character whose low surrogate is the last one (U+1D7FF)', '𝟿'],
  ])('counts %s as one character of a spelled-out secret', (_name, astral) => {
    // Six single characters on each side: only with the astral one counted as one are there 11 in a row.
    const secret = `Zq7-kW${astral}9p!mR2`;
    const out = redactorOf(secret).redact(`${FILLER} key: ${chars(secret).join(' ')} (see logs)`);
    expect(out).toBe(`${FILLER} key: ${REDACTED} (see logs)`);
  });

  it('counts half an emoji (a lone low surrogate, a string cut by UTF-16 units) as one character of a run', () => {
    // The lone surrogate and Z … m are the 11 singles; 'R2' ends the run.
    const text = `${FILLER} echo: \udc11 Z q 7 - k W 9 p ! m R2 (see logs)`;
    expect(redactorOf(SPELLED).redact(text)).toBe(`${FILLER} echo: \udc11 ${REDACTED} (see logs)`);
  });
});

/** The text with every separator made a letter: it spells nothing out, and reads to as many bytes. */
const unspaced = (text: string) => text.replace(/[\s,"'+]/g, '-');

describe('what a long secret costs the search of every text', () => {
  it('keeps its reversed form out of the forms every text is searched in: that one is made only for a text read compact', () => {
    // docs/redaction.md: the reversed and spelled forms are in a second automaton, made the first
    // time a text is read compact; a step's answer of 80 000 strings pays for them only then. A
    // secret and its reverse would share forms if the reversed form were among the first.
    const secret = 'Zq7-kW9p!mR2xT4v';
    for (const value of [secret, 'Élan-Ωmega-clé']) {
      expect(redactorOf(value, reversed(value)).size).toBe(redactorOf(value).size + redactorOf(reversed(value)).size);
    }
  });
});

describe('a long text that spells nothing out is read once, not twice', () => {
  it('the measure tells a text read once from one read twice', () => {
    const text = fill('x', ' a b c d e f g h i j k');
    expect(work(unspaced(text))).toBeGreaterThan(16);
    expect(work(text)).toBeGreaterThan(1.6 * work(unspaced(text)));
  });

  it.each<[string, string]>([
    ['ordinary words', fill('the service is down for maintenance, try again later ')],
    ['words of halfwidth and fullwidth characters', fill('ｺﾝﾆﾁﾊ ｾｶｲ Ｗｏｒｌｄ ')],
    ['words of other characters beyond ASCII', fill('ﬁle ÉTÉ 世界 🔑🔒 ')],
    ['a run of 10 single characters (one short)', fill('some words ', ' a b c d e f g h i j klm and more words')],
    ['a run of 10 single characters then a word, at the end', fill('some words ', ' a b c d e f g h i j klm')],
    ['a run of 10 single characters and a separator, at the end', fill('some words ', ' a b c d e f g h i j ')],
    ['a single character at the end', fill('some words ', ' see item 3')],
    ['comma-separated words', fill('alpha, beta, gamma, delta, ')],
  ])('%s', (_name, text) => {
    expect(work(text)).toBeLessThan(1.3 * work(unspaced(text)));
  });
});
