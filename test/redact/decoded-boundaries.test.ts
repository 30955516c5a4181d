// Secrets at the edges of what the decoders read (docs/redaction.md): code points at the ends of
// their ranges (U+10000 and U+10FFFF as JSON surrogate pairs and HTML entities, U+0080, U+FFFF,
// U+E000), NUL bytes, escapes that are not escapes (`\user`, `%se`, a cut-short `\u00`), broken
// surrogate pairs next to a secret, a wrapped line whose break is encoded, a secret holding what
// another decoder would read, and the Unicode spaces at the edges of the ranges a spelled-out secret
// is read through. Each was a place where a one-character change to the decoders went unnoticed.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_CHECKED, REDACTED, Redactor } from '../../src/redact/redactor.js';

const redactorWith = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** `s` as a strict ASCII JSON encoder writes it: every code unit outside printable ASCII as `\uXXXX`. */
const asciiJson = (s: string) =>
  s.replace(/[^\x20-\x7e]|["\\]/g, (c) =>
    c === '"' || c === '\\' ? `\\${c}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** `s` with every non-ASCII code point as an HTML numeric entity (hex or decimal). */
const htmlEntities = (s: string, radix: 10 | 16) =>
  Array.from(s, (c) =>
    c.codePointAt(0)! < 0x80
      ? c
      : radix === 16
        ? `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`
        : `&#${c.codePointAt(0)};`,
  ).join('');

/** `s` percent-encoded as UTF-8, every byte outside unreserved ASCII. */
const percent = (s: string) =>
  Array.from(Buffer.from(s, 'utf8'), (b) =>
    /[A-Za-z0-9_.~-]/.test(String.fromCharCode(b))
      ? String.fromCharCode(b)
      : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
  ).join('');

describe('a secret holding a code point at the edge of a range', () => {
  const edges: Array<[string, number]> = [
    ['U+0080 (the first two-byte code point)', 0x80],
    ['U+07FF (the last two-byte one)', 0x7ff],
    ['U+0800 (the first three-byte one)', 0x800],
    ['U+D7FF (just below the surrogates)', 0xd7ff],
    ['U+E000 (just above them, private use)', 0xe000],
    ['U+FFFF (the last of the BMP)', 0xffff],
    ['U+10000 (the first astral one: \\ud800\\udc00)', 0x10000],
    ['U+1F600 (an emoji)', 0x1f600],
    ['U+10FFFF (the last one: \\udbff\\udfff)', 0x10ffff],
  ];

  it.each(edges)('hides it with %s raw, JSON-escaped, as HTML entities and percent-encoded', (_name, cp) => {
    const secret = `key-${String.fromCodePoint(cp)}-pw9`;
    const redactor = redactorWith(secret);
    for (const form of [
      secret,
      asciiJson(secret),
      htmlEntities(secret, 16),
      htmlEntities(secret, 10),
      percent(secret),
    ]) {
      expect(redactor.redact(`error: "${form}" rejected`), form).toBe(`error: "${REDACTED}" rejected`);
    }
  });

  it('hides a secret right after a raw U+FFFF, and keeps the U+FFFF', () => {
    expect(redactorWith('hunter2-pw').redact('\uffffhunter2-pw!')).toBe(`\uffff${REDACTED}!`);
  });

  /** Printable ASCII, the rest of the BMP around the surrogates, the astral planes, and their edges. */
  const CODE_POINT = fc.oneof(
    fc.integer({ min: 0x20, max: 0x7e }),
    fc.integer({ min: 0x80, max: 0xd7ff }),
    fc.integer({ min: 0xe000, max: 0x10ffff }),
    fc.constantFrom(0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xffff, 0x10000, 0x10ffff),
  );

  it('hides any secret of any code points, JSON-escaped by a strict ASCII encoder, between any text (property)', () => {
    fc.assert(
      fc.property(
        // Any UTF-16 code units before it, lone surrogates and line breaks included.
        fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 6 }).map((units) => String.fromCharCode(...units)),
        fc
          .array(CODE_POINT, { minLength: 4, maxLength: 10 })
          .map((cps) => String.fromCodePoint(...cps))
          .filter((s) => s.trim() === s),
        (before, secret) => {
          const out = redactorWith(secret).redact(`${asciiJson(before)}|${asciiJson(secret)}|`);
          expect(out.endsWith(`${REDACTED}|`)).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a secret holding a NUL byte', () => {
  const secret = 'nul\u0000byte-pw';

  it.each([
    ['percent-encoded', 'nul%00byte-pw'],
    ['JSON-escaped', 'nul\\u0000byte-pw'],
  ])('is hidden %s', (_name, form) => {
    expect(redactorWith(secret).redact(`value=${form};`)).toBe(`value=${REDACTED};`);
  });
});

describe('a broken surrogate pair next to a secret (a string cut in the middle of an emoji)', () => {
  it('hides a secret whose last letter is escaped, right before a lone low surrogate, and keeps that', () => {
    expect(redactorWith('mot-de-passé').redact('{"e":"mot-de-pass\\u00e9\\udc00"}')).toBe(`{"e":"${REDACTED}\\udc00"}`);
  });

  it('hides a secret right after a lone high surrogate, whatever escaped letter it starts with', () => {
    expect(redactorWith('été-pass-1').redact('"\\ud83d\\u00e9t\\u00e9-pass-1"')).toBe(`"\\ud83d${REDACTED}"`);
    expect(redactorWith('\ue000-private-pw').redact('"\\ud83d\\ue000-private-pw"')).toBe(`"\\ud83d${REDACTED}"`);
  });

  it.each([
    ['two lone low surrogates', '{"e":"\\udc00\\udc00"}'],
    ['U+E000 before a lone low surrogate', '{"e":"\\ue000\\udc00"}'],
    ['a lone high surrogate before U+E000', '{"e":"\\udbff\\ue000"}'],
    ['a lone high surrogate before an escaped letter', '{"e":"\\udbff\\u0041"}'],
  ])('shows %s as it is', (_name, text) => {
    expect(redactorWith('an-unrelated-secret').redact(text)).toBe(text);
  });

  it.each([
    ['its low half after some other character than a backslash', 'pw-\\ud83d/ude00-key'],
    ['its low half after an escaped backslash', 'pw-\\ud83d\\\\de00-key'],
  ])('does not read an emoji from a pair with %s', (_name, text) => {
    const redactor = redactorWith('pw-😀-key');
    expect(redactor.redact(text)).toBe(text);
    // The same secret, escaped properly, is hidden.
    expect(redactor.redact('pw-\\ud83d\\ude00-key')).toBe(REDACTED);
  });
});

describe('a secret holding a lone surrogate (a JSON answer may: `"\\ud800"` parses to one)', () => {
  const secret = 'pw-\ud800-key';

  it("is hidden JSON-escaped and as HTML numeric entities (Python's xmlcharrefreplace writes &#55296;)", () => {
    const redactor = redactorWith(secret);
    for (const form of ['pw-\\ud800-key', 'pw-&#55296;-key', 'pw-&#xD800;-key']) {
      expect(redactor.redact(`<p>${form}</p>`), form).toBe(`<p>${REDACTED}</p>`);
    }
  });

  it('is hidden whichever lone surrogate stands in it, at either end of their range', () => {
    for (const unit of [0xd800, 0xdbff, 0xdc00, 0xdfff]) {
      const text = `<p>pw-&#x${unit.toString(16)};-key</p>`;
      expect(redactorWith(`pw-${String.fromCharCode(unit)}-key`).redact(text), text).toBe(`<p>${REDACTED}</p>`);
    }
  });

  it('does not make a text of code points just outside the surrogates read as one', () => {
    const redactor = redactorWith(secret);
    for (const cp of [0xd7ff, 0xe000]) {
      const text = `<p>pw-&#x${cp.toString(16)};-key</p>`;
      expect(redactor.redact(text)).toBe(text);
    }
  });
});

describe('numeric entities beyond Unicode', () => {
  it('shows them as they are, and hides a secret beside them', () => {
    const redactor = redactorWith('hunter2-pw');
    for (const entity of ['&#x110000;', '&#1114112;', '&#9999999;', '&#xFFFFFF;']) {
      expect(redactor.redact(`${entity}hunter2-pw${entity}`), entity).toBe(`${entity}${REDACTED}${entity}`);
    }
  });
});

describe('escapes that are not escapes', () => {
  it('hides a secret holding a backslash that starts no JSON escape, echoed with only its quote escaped', () => {
    // `\u` not followed by four hex digits, and `\c` followed by four: neither is an escape.
    expect(redactorWith('dom\\user"Pw-9').redact('bad login: dom\\user\\"Pw-9.')).toBe(`bad login: ${REDACTED}.`);
    expect(redactorWith('corp\\cafe1"Pw-9').redact('bad login: corp\\cafe1\\"Pw-9.')).toBe(`bad login: ${REDACTED}.`);
  });

  it('hides a secret holding a percent sign that starts no escape, echoed with only its space encoded', () => {
    expect(redactorWith('top%secret pw').redact('GET /login?pw=top%secret%20pw')).toBe(`GET /login?pw=${REDACTED}`);
  });

  it('does not read an escape cut short at the end of the text as a character', () => {
    const redactor = redactorWith('abc-\u0001', 'xyz-\u0000');
    for (const text of ['"abc-\\u00', '"abc-\\u0', 'xyz-\\u', 'xyz-%0', 'xyz-%'])
      expect(redactor.redact(text)).toBe(text);
  });
});

describe('a secret holding what another decoder would read', () => {
  it('hides a secret holding `\\n` in a URL whose query encodes its space but not its backslash', () => {
    expect(redactorWith('C:\\new x-pw').redact('GET /?pw=C:\\new%20x-pw')).toBe(`GET /?pw=${REDACTED}`);
  });

  it('hides a secret that looks like an HTML entity, in a URL that encodes its space', () => {
    expect(redactorWith('x&lt;y z-pw').redact('GET /?pw=x&lt;y%20z-pw')).toBe(`GET /?pw=${REDACTED}`);
  });

  it('hides a secret holding `\\n`, in an HTML page that escapes its ampersand (and never a backslash)', () => {
    expect(redactorWith('R&D\\new-pw').redact('<p>bad key R&amp;D\\new-pw</p>')).toBe(`<p>bad key ${REDACTED}</p>`);
  });
});

describe('a short secret wrapped at a line break and indented', () => {
  it('is hidden when the break is a JSON `\\n`', () => {
    expect(redactorWith('hunter2-pw').redact('{"log":"key hunt\\n    er2-pw"}')).toBe(`{"log":"key ${REDACTED}"}`);
  });

  it('is hidden when the break is raw and the indentation one tab (no other space in the text)', () => {
    expect(redactorWith('hunter2-pw').redact('key:hunt\n\ter2-pw.')).toBe(`key:${REDACTED}.`);
    expect(redactorWith('hunter2-pw').redact('key:hunt\r\n\ter2-pw.')).toBe(`key:${REDACTED}.`);
  });

  it.each([
    ['percent-encoded', '%0A'],
    ['percent-encoded CR', '%0d'],
    ['an HTML entity', '&#10;'],
    ['an HTML hex entity for CR', '&#xD;'],
  ])('is hidden when the break is %s (in a text wrapped elsewhere too)', (_name, lineBreak) => {
    const text = `<pre>\n  key: hunt${lineBreak}  er2-pw</pre>`;
    expect(redactorWith('hunter2-pw').redact(text)).toBe(`<pre>\n  key: ${REDACTED}</pre>`);
  });
});

describe('a long secret spelled out with a Unicode space at the edge of its range', () => {
  const SECRET = 'Zq7-kW9p!mR2xT4v';
  it.each([
    ['U+2000 en quad', '\u2000'],
    ['U+200A hair space', '\u200a'],
    ['U+200D zero-width joiner', '\u200d'],
    ['U+202F narrow no-break space', '\u202f'],
    ['U+205F medium mathematical space', '\u205f'],
    ['U+2060 word joiner', '\u2060'],
  ])('is hidden with %s', (_name, space) => {
    expect(redactorWith(SECRET).redact(`key: ${Array.from(SECRET).join(space)} (refused)`)).toBe(
      `key: ${REDACTED} (refused)`,
    );
  });

  it('is hidden spelled out with its own non-ASCII letter, but another letter in its place is another value', () => {
    const secret = 'Zq7-kW9p€mR2xT4v';
    const redactor = redactorWith(secret);
    expect(redactor.redact(`key: ${Array.from(secret).join(' ')}`)).toBe(`key: ${REDACTED}`);
    for (const other of ['₹', '→', '字']) {
      const text = `key: ${Array.from(secret.replace('€', other)).join(' ')}`;
      expect(redactor.redact(text)).toBe(text);
    }
  });
});

describe('past the deadline, a long text that reads down to almost nothing', () => {
  // A megabyte of blank lines (or of `%0A`) leaves the automaton next to nothing to read, so its
  // checks of the clock never come: reading the text must look at the clock itself.
  it.each([
    ['blank lines', '\r\n'],
    ['percent-encoded line breaks', '%0A'],
    ['JSON-escaped line breaks', '\\n'],
  ])('is not shown: %s', (_name, lineBreak) => {
    const text = `hunter2-pw${lineBreak.repeat(20_000)}`;
    const redactor = redactorWith('hunter2-pw');
    expect(redactor.redact('warm-up: hunter2-pw')).toBe(`warm-up: ${REDACTED}`);
    redactor.setDeadline(() => true);
    expect(redactor.redact(text)).toBe(NOT_CHECKED);
  });
});
