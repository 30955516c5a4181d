// Secrets come back in forms nobody registered: a server's JSON encoder writes `\u0026`, an HTML
// page `&amp;`, a URL serializer its own encode set, a log wraps lines, a proxy upper-cases. Rather
// than list every encoding of every secret, the text to print is decoded into one normal form (UTF-8
// bytes, case folded (upper then lower), `+` read as a space, line breaks dropped) that remembers where each byte
// came from, and the secrets' normal forms are searched in it.

/** Which escapes a pass decodes. A raw secret may itself contain `%41`, `\b` or `&lt;`, so the text is
 * also read literally and with each decoder alone: a secret is hidden if any reading shows it. */
export interface Decoders {
  percent: boolean;
  json: boolean;
  html: boolean;
  /** Also drop the spaces and tabs that follow a line break (a wrapped line, indented). */
  indent?: boolean;
  /**
   * Drop every separator a server may put between the characters of a secret it spells out
   * (`s 3 c r 3 t`, `s, 3, c`, `['s', '3']`): white space, commas and quotes. Searched only for
   * long secrets (redactor.ts, LOOSE_FROM), whose forms are made the same way.
   */
  compact?: boolean;
}

export interface Normalised {
  /** The normal bytes, `length` of them. */
  bytes: Uint8Array;
  length: number;
  /** For each normal byte, the original span [start, end) it came from. */
  start: Int32Array;
  end: Int32Array;
  /** The bytes as one char each (latin1), for people and tests. */
  readonly text: string;
}

export const LITERAL: Decoders = { percent: false, json: false, html: false };

/** What the `compact` reading drops: space, tab, `+` (read as a space), comma and quotes. */
export const SEPARATORS = new Uint8Array(256);
for (const c of ' \t+,"\'') SEPARATORS[c.charCodeAt(0)] = 1;

/**
 * The spaces beyond ASCII that the compact reading drops too: a page or a locale's formatter puts
 * no-break, narrow, thin and zero-width spaces between the characters it spells out.
 */
function wideSeparator(c: number): boolean {
  return (
    c === 0xa0 ||
    (c >= 0x2000 && c <= 0x200d) ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x2060 ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

// Named entities a server may use for characters a secret can hold; numeric ones are decoded too.
const ENTITIES: Record<string, number> = {
  amp: 38,
  lt: 60,
  gt: 62,
  quot: 34,
  apos: 39,
  nbsp: 32,
  sol: 47,
  bsol: 92,
  plus: 43,
  equals: 61,
  percnt: 37,
  num: 35,
  excl: 33,
  quest: 63,
  commat: 64,
  dollar: 36,
  lpar: 40,
  rpar: 41,
  ast: 42,
  colon: 58,
  semi: 59,
  comma: 44,
  period: 46,
  lsqb: 91,
  rsqb: 93,
  lbrack: 91,
  rbrack: 93,
  lcub: 123,
  rcub: 125,
  lbrace: 123,
  rbrace: 125,
  verbar: 124,
  vert: 124,
  hat: 94,
  grave: 96,
  tilde: 126,
  lowbar: 95,
  hyphen: 45,
  dash: 45,
  newline: 10,
  tab: 9,
};
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z]{2,8}));/y;

/** `check` is called every few thousand characters: it throws when the deadline has passed. */
export function normalise(text: string, decoders: Decoders = LITERAL, check: () => void = () => {}): Normalised {
  const size = text.length * 4 + 8;
  const out = new Uint8Array(size);
  const start = new Int32Array(size);
  const end = new Int32Array(size);
  let n = 0;
  // A wrapped line often goes on indented: in the `indent` reading, spaces and tabs right after a
  // line break go with it.
  let afterBreak = false;
  const compact = decoders.compact === true;
  const byte = (b: number, from: number, to: number) => {
    // Indentation after a break, raw or decoded (`%20`, `\u0020`, `&#9;`). Not a `+`: it may be the
    // secret's own, and a form's `+` for a space is read as one only in the normal form.
    if (afterBreak && decoders.indent && (b === 32 || b === 9)) return;
    afterBreak = false;
    if (compact && SEPARATORS[b] === 1) return;
    out[n] = b === 43 ? 32 : b >= 65 && b <= 90 ? b + 32 : b;
    start[n] = from;
    end[n++] = to;
  };
  const codePoint = (cp: number, from: number, to: number) => {
    if (cp === 10 || cp === 13) return void (afterBreak = true);
    if (cp < 0x80) return byte(cp, from, to);
    if (compact && wideSeparator(cp)) return void (afterBreak = false);
    // Upper case first: a proxy's upper case of ß is SS, of ς is Σ, of ﬁ is FI, which lower-case to
    // ss, σ and fi; folded both ways, the secret and its upper-cased echo read the same.
    const lower = String.fromCodePoint(cp).toUpperCase().toLowerCase();
    for (const b of Buffer.from(lower, 'utf8')) byte(b, from, to);
  };
  const length = text.length;
  for (let i = 0, work = 0; i < length;) {
    if (++work === 0x1000) {
      work = 0;
      check();
    }
    const c = text.charCodeAt(i);
    if (decoders.percent && c === 37 && i + 2 < length) {
      const value = hex(text, i + 1, 2);
      if (value >= 0) {
        if (value !== 10 && value !== 13) byte(value, i, i + 3);
        else afterBreak = true;
        i += 3;
        continue;
      }
    }
    if (decoders.json && c === 92 && i + 1 < length) {
      const escaped = jsonEscape(text, i);
      if (escaped) {
        if (escaped.cp >= 0) codePoint(escaped.cp, i, i + escaped.width);
        else afterBreak = true;
        i += escaped.width;
        continue;
      }
    }
    if (decoders.html && c === 38) {
      ENTITY.lastIndex = i;
      const m = ENTITY.exec(text);
      const cp = m ? entityCodePoint(m) : undefined;
      if (m && cp !== undefined) {
        codePoint(cp, i, i + m[0].length);
        i += m[0].length;
        continue;
      }
    }
    if (c < 0x80) {
      if (c === 10 || c === 13) afterBreak = true;
      else byte(c, i, i + 1);
      i++;
      continue;
    }
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    codePoint(cp, i, i + width);
    i += width;
  }
  return {
    bytes: out,
    length: n,
    start,
    end,
    get text() {
      return Buffer.from(out.buffer, 0, n).toString('latin1');
    },
  };
}

function hex(text: string, at: number, digits: number): number {
  if (at + digits > text.length) return -1;
  let value = 0;
  for (let k = 0; k < digits; k++) {
    const d = Number.parseInt(text[at + k]!, 16);
    if (Number.isNaN(d)) return -1;
    value = value * 16 + d;
  }
  return value;
}

const SIMPLE_ESCAPES: Record<string, number> = { '"': 34, '\\': 92, '/': 47, b: 8, f: 12, t: 9, n: -1, r: -1 };

/** A JSON escape at `at` (a backslash): its code point (-1: a line break, dropped) and its width. */
function jsonEscape(text: string, at: number): { cp: number; width: number } | undefined {
  const next = text[at + 1]!;
  const simple = SIMPLE_ESCAPES[next];
  if (simple !== undefined) return { cp: simple, width: 2 };
  if (next !== 'u') return undefined;
  const unit = hex(text, at + 2, 4);
  if (unit < 0) return undefined;
  if (unit >= 0xd800 && unit <= 0xdbff && text[at + 6] === '\\' && text[at + 7] === 'u') {
    const low = hex(text, at + 8, 4);
    if (low >= 0xdc00 && low <= 0xdfff) return { cp: 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), width: 12 };
  }
  // A lone surrogate cannot be part of a secret's UTF-8 bytes: show it as U+FFFD would be.
  return { cp: unit >= 0xd800 && unit <= 0xdfff ? 0xfffd : unit === 10 || unit === 13 ? -1 : unit, width: 6 };
}

function entityCodePoint(m: RegExpExecArray): number | undefined {
  const cp =
    m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number.parseInt(m[2], 16) : ENTITIES[m[3]!.toLowerCase()];
  // A surrogate's entity (`&#55296;`: Python's xmlcharrefreplace writes a lone one so) is read, not
  // left as text: a secret may hold a lone surrogate (JSON.parse makes one of `"\ud800"`), and its
  // UTF-8, like the JSON decoder's, is U+FFFD's.
  return cp !== undefined && cp <= 0x10ffff ? cp : undefined;
}

/** A line break followed by a space or tab, each raw or in any encoding a decoder reads. */
const WRAPPED =
  /(?:[\r\n]|\\[nr]|\\u000[ad]|%0[ad]|&#0*1[03];|&#x0*[ad];)(?:[ \t]|\\t|\\u00(?:20|09)|%20|%09|&#0*(?:32|9);|&#x0*(?:20|9);)/i;

/** The readings of `text` worth searching: decoders whose trigger character does not occur change nothing. */
export function readings(text: string): Decoders[] {
  const percent = text.includes('%');
  const json = text.includes('\\');
  const html = text.includes('&');
  const passes: Decoders[] = [LITERAL];
  if (percent) passes.push({ percent, json: false, html: false });
  if (json) passes.push({ percent: false, json, html: false });
  if (html) passes.push({ percent: false, json: false, html });
  if (Number(percent) + Number(json) + Number(html) > 1) passes.push({ percent, json, html });
  // A line break followed by indentation, raw or JSON-escaped: is the white space the wrap's or the
  // secret's own? Read it both ways. The break and the white space may come encoded, as any decoder
  // reads them (`%0A%20`, `\u000a `, `&#10;\t`).
  if (WRAPPED.test(text)) return passes.flatMap((pass) => [pass, { ...pass, indent: true }]);
  return passes;
}

/**
 * Whether a text spells something out: `run` or more single characters in a row, each set apart by
 * separators (`s 3 c r`, `s, 3, c`, `"s","3"`). One pass; only then is the compact reading made.
 */
export function spelledOut(text: string, run: number): boolean {
  let singles = 0;
  let token = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const separator = c === 10 || c === 13 || (c < 256 && SEPARATORS[c] === 1) || wideSeparator(c);
    if (!separator) {
      // A surrogate pair is one character.
      if (!(c >= 0xdc00 && c <= 0xdfff && token > 0)) token++;
      continue;
    }
    if (token > 0) {
      singles = token === 1 ? singles + 1 : 0;
      if (singles >= run) return true;
    }
    token = 0;
  }
  return token === 1 && singles + 1 >= run;
}
