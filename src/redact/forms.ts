// Secrets come back in forms nobody registered: a server's JSON encoder writes `\u0026`, an HTML
// page `&amp;`, a URL serializer its own encode set, a log wraps lines, a proxy upper-cases. Rather
// than list every encoding of every secret, the text to print is decoded into one normal form (UTF-8
// bytes, case folded (upper then lower), `+` read as a space, line breaks dropped) that remembers where each byte
// came from, and the secrets' normal forms are searched in it.

/** Which escapes a pass decodes. A raw secret may itself contain `%41`, `\b` or `&lt;`, so the text is
 * also read literally and with each decoder alone: a secret is hidden if any reading shows it. */
interface Decoders {
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

const LITERAL: Decoders = { percent: false, json: false, html: false };

/** What the `compact` reading drops: space, tab, `+` (read as a space), comma and quotes. */
const SEPARATORS = new Uint8Array(256);
for (const c of ' \t+,"\'') SEPARATORS[c.charCodeAt(0)] = 1;

/**
 * The spaces beyond ASCII that the compact reading drops too: a page or a locale's formatter puts
 * no-break, narrow, thin and zero-width spaces between the characters it spells out.
 */
function wideSeparator(c: number): boolean {
  return c === 0xa0 || (c >= 0x2000 && c <= 0x200d) || c === 0x202f || c === 0x205f || c === 0x2060 || c === 0x3000 || c === 0xfeff;
}

// Named entities a server may use for characters a secret can hold; numeric ones are decoded too.
const ENTITIES: Record<string, number> = {
  amp: 38, lt: 60, gt: 62, quot: 34, apos: 39, nbsp: 32, sol: 47, bsol: 92, plus: 43, equals: 61, percnt: 37, num: 35,
  excl: 33, quest: 63, commat: 64, dollar: 36, lpar: 40, rpar: 41, ast: 42, colon: 58, semi: 59, comma: 44, period: 46,
  lsqb: 91, rsqb: 93, lbrack: 91, rbrack: 93, lcub: 123, rcub: 125, lbrace: 123, rbrace: 125, verbar: 124, vert: 124,
  hat: 94, grave: 96, tilde: 126, lowbar: 95, hyphen: 45, dash: 45, newline: 10, tab: 9,
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
  for (let i = 0, work = 0; i < length; ) {
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
  const cp = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? Number.parseInt(m[2], 16) : ENTITIES[m[3]!.toLowerCase()];
  // A surrogate's entity (`&#55296;`: Python's xmlcharrefreplace writes a lone one so) is read, not
  // left as text: a secret may hold a lone surrogate (JSON.parse makes one of `"\ud800"`), and its
  // UTF-8, like the JSON decoder's, is U+FFFD's.
  return cp !== undefined && cp <= 0x10ffff ? cp : undefined;
}

/** A line break followed by a space or tab, each raw or in any encoding a decoder reads. */
const WRAPPED = /(?:[\r\n]|\\[nr]|\\u000[ad]|%0[ad]|&#0*1[03];|&#x0*[ad];)(?:[ \t]|\\t|\\u00(?:20|09)|%20|%09|&#0*(?:32|9);|&#x0*(?:20|9);)/i;

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

// A base64 fragment this short could turn up in any random identifier.
const MIN_FRAGMENT = 6;

/** Receives one form: `bytes[0, length)`, valid only during the call (the buffer is reused). */
export type FormSink = (bytes: Uint8Array, length: number) => void;

// Base64's alphabet in normal form (lower case, `+` read as a space), and base64url's.
const BASE64 = Buffer.from('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789 /', 'latin1');
const BASE64URL = Buffer.from('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123456789-_', 'latin1');
const HEX = Buffer.from('0123456789abcdef', 'latin1');
const EQUALS = 61;

let scratch = new Uint8Array(1024);
let raw = new Uint8Array(256);

/**
 * The normal forms a secret is searched in, given to `sink` one by one: itself, and its bytes as
 * hex, base64 and base64url. None when its own normal form is shorter than `minLength`.
 *
 * A secret inside a larger encoded value (`user:secret` in Basic auth) starts at any of three byte
 * offsets in a base64 quantum; each offset gives a different run of characters, and only the
 * characters made of the secret's bits alone are searched. The encodings are written straight into
 * one buffer, in normal form: a step's answer of 80 000 strings makes half a million forms, and
 * strings and buffers for each cost several times the matching.
 */
export function secretForms(value: string, minLength: number, sink: FormSink): void {
  let bytes: Uint8Array;
  let length: number;
  if (/[^\u0000-\u007f]/.test(value)) {
    const normal = normalise(value);
    if (normal.length < minLength) return;
    sink(normal.bytes, normal.length);
    bytes = Buffer.from(value, 'utf8');
    length = bytes.length;
  } else {
    // ASCII: the bytes are the chars; the normal form drops line breaks, folds case, reads + as space.
    length = value.length;
    if (raw.length < length) raw = new Uint8Array(length * 2);
    bytes = raw;
    const out = room(length);
    let n = 0;
    for (let i = 0; i < length; i++) {
      const c = value.charCodeAt(i);
      raw[i] = c;
      if (c !== 10 && c !== 13) out[n++] = c === 43 ? 32 : c >= 65 && c <= 90 ? c + 32 : c;
    }
    if (n < minLength) return;
    sink(out, n);
  }
  const hex = room(length * 2);
  for (let i = 0; i < length; i++) {
    hex[2 * i] = HEX[bytes[i]! >> 4]!;
    hex[2 * i + 1] = HEX[bytes[i]! & 15]!;
  }
  sink(hex, length * 2);
  // Encoded alone, the whole encoding (padding included) is hidden, not just its inner characters.
  const chars = Math.ceil((length * 8) / 6);
  const padded = Math.ceil(length / 3) * 4;
  const whole = room(padded);
  const differs = base64Run(bytes, length, 0, 0, chars, whole);
  whole.fill(EQUALS, chars, padded);
  sink(whole, padded);
  sink(whole, chars);
  if (differs) {
    base64Run(bytes, length, 0, 0, chars, whole, BASE64URL);
    sink(whole, chars);
  }
  for (let offset = 0; offset < 3; offset++) {
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + length) * 8) / 6);
    if (last - first < MIN_FRAGMENT) continue;
    const run = room(last - first);
    const differs = base64Run(bytes, length, offset, first, last, run);
    sink(run, last - first);
    if (differs) {
      base64Run(bytes, length, offset, first, last, run, BASE64URL);
      sink(run, last - first);
    }
  }
}

/**
 * The forms of a long secret that a server cuts by one character: without its last or its first
 * character. With `compact`, separators dropped (for the compact reading, redactor.ts), the whole
 * and its reverse too. At most four forms of its own length: what it costs stays linear in the
 * secret. None when its (compact) normal form is shorter than `minLength`. Reversed, a character of
 * several UTF-8 bytes keeps its bytes in order.
 */
export function looseForms(secret: string, minLength: number, compact: boolean, sink: FormSink): void {
  // Its own white space at either end is no part of what a server echoes of it.
  const value = secret.trim();
  let bytes: Uint8Array;
  let length: number;
  // Where the second character starts and the last one starts in `bytes`: a cut drops a whole character.
  let firstEnd = 1;
  let lastStart: number;
  if (/[^\u0000-\u007f]/.test(value)) {
    const decoders: Decoders = { ...LITERAL, compact };
    const normal = normalise(value, decoders);
    bytes = normal.bytes;
    length = normal.length;
    if (length < minLength) return;
    // Bytes of one character share their original span.
    while (firstEnd < length && normal.start[firstEnd] === normal.start[0]) firstEnd++;
    lastStart = length - 1;
    while (lastStart > 0 && normal.start[lastStart - 1] === normal.start[length - 1]) lastStart--;
    if (compact) {
      const reversed = normalise(Array.from(value).reverse().join(''), decoders);
      sink(reversed.bytes, reversed.length);
    }
  } else {
    // ASCII: written straight into the scratch buffer, as secretForms does: a step's answer of
    // 80 000 strings makes these for each.
    bytes = room(value.length * 2);
    length = 0;
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i);
      if (c === 10 || c === 13 || (compact && SEPARATORS[c] === 1)) continue;
      bytes[length++] = c === 43 ? 32 : c >= 65 && c <= 90 ? c + 32 : c;
    }
    if (length < minLength) return;
    lastStart = length - 1;
    if (compact) {
      const reversed = bytes.subarray(length, 2 * length);
      for (let i = 0; i < length; i++) reversed[i] = bytes[length - 1 - i]!;
      sink(reversed, length);
    }
  }
  if (compact) sink(bytes, length);
  sink(bytes, lastStart);
  sink(bytes.subarray(firstEnd), length - firstEnd);
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

/** The scratch buffer, at least `size` long. */
function room(size: number): Uint8Array {
  if (scratch.length < size) scratch = new Uint8Array(size * 2);
  return scratch;
}

/**
 * Characters [first, last) of the base64 of `offset` zero bytes and then bytes[0, length), in
 * normal form through `alphabet`, written to out[0, last - first). True when one of them is `+` or
 * `/`, where base64url differs.
 */
function base64Run(bytes: Uint8Array, length: number, offset: number, first: number, last: number, out: Uint8Array, alphabet = BASE64): boolean {
  let differs = false;
  for (let k = first; k < last; k++) {
    // Bit position of this character in `bytes` (the offset's zero bytes come before bit 0).
    const bit = k * 6 - offset * 8;
    const at = bit >> 3;
    const pair = ((at >= 0 && at < length ? bytes[at]! : 0) << 8) | (at + 1 < length ? bytes[at + 1]! : 0);
    const index = (pair >> (10 - (bit & 7))) & 63;
    if (index >= 62) differs = true;
    out[k - first] = alphabet[index]!;
  }
  return differs;
}
