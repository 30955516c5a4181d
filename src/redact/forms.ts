// Secrets come back in forms nobody registered: a server's JSON encoder writes `\u0026`, an HTML
// page `&amp;`, a URL serializer its own encode set, a log wraps lines, a proxy upper-cases. Rather
// than list every encoding of every secret, the text to print is decoded into one normal form (UTF-8
// bytes, ASCII lower case, `+` read as a space, line breaks dropped) that remembers where each byte
// came from, and the secrets' normal forms are searched in it.

/** Which escapes a pass decodes. A raw secret may itself contain `%41`, `\b` or `&lt;`, so the text is
 * also read literally and with each decoder alone: a secret is hidden if any reading shows it. */
interface Decoders {
  percent: boolean;
  json: boolean;
  html: boolean;
  /** Also drop the spaces and tabs that follow a line break (a wrapped line, indented). */
  indent?: boolean;
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
  const byte = (b: number, from: number, to: number) => {
    afterBreak = false;
    out[n] = b === 43 ? 32 : b >= 65 && b <= 90 ? b + 32 : b;
    start[n] = from;
    end[n++] = to;
  };
  const codePoint = (cp: number, from: number, to: number) => {
    if (cp === 10 || cp === 13) return void (afterBreak = true);
    if (cp < 0x80) return byte(cp, from, to);
    const lower = String.fromCodePoint(cp).toLowerCase();
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
      else if (!(afterBreak && decoders.indent && (c === 32 || c === 9))) byte(c, i, i + 1);
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
  return cp !== undefined && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? cp : undefined;
}

/**
 * normalise(value).text without the span maps: what a secret's forms are stored as. Registering the
 * strings of a step's answer makes a dozen forms each, so ASCII (every hex and base64 form) takes a
 * short cut of three string operations that give the same bytes.
 */
export function normalText(value: string): string {
  if (!/[^\u0000-\u007f]/.test(value)) return value.replace(/[\r\n]/g, '').toLowerCase().replace(/\+/g, ' ');
  return normalise(value).text;
}

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
  // secret's own? Read it both ways.
  if (/(?:[\r\n]|\\[nr])[ \t]/.test(text)) return passes.flatMap((pass) => [pass, { ...pass, indent: true }]);
  return passes;
}

// A base64 fragment this short could turn up in any random identifier.
const MIN_FRAGMENT = 6;

/**
 * The normal forms a secret is searched in: itself, and its bytes as hex, base64 and base64url.
 * A secret inside a larger encoded value (`user:secret` in Basic auth) starts at any of three byte
 * offsets in a base64 quantum; each offset gives a different run of characters, and only the
 * characters made of the secret's bits alone are searched.
 */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = [normalText(value), bytes.toString('hex')];
  // Encoded alone, the whole encoding (padding included) is hidden, not just its inner characters.
  const whole = bytes.toString('base64');
  forms.push(base64Normal(whole));
  pushBase64(forms, whole.replace(/=+$/, ''));
  // The secret's bytes after `offset` bytes of a neighbour: a zero-filled head stands for it.
  const headed = Buffer.alloc(bytes.length + 2);
  bytes.copy(headed, 2);
  for (let offset = 0; offset < 3; offset++) {
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + bytes.length) * 8) / 6);
    if (last - first < MIN_FRAGMENT) continue;
    pushBase64(forms, (offset === 0 ? whole : headed.subarray(2 - offset).toString('base64')).slice(first, last));
  }
  return forms;
}

/** Base64 text in normal form: lower case, `+` read as a space (normalText's short cut for it). */
function base64Normal(text: string): string {
  const lower = text.toLowerCase();
  return lower.includes('+') ? lower.replace(/\+/g, ' ') : lower;
}

/** The normal forms of base64 text and of the same in base64url, when that differs. */
function pushBase64(forms: string[], text: string): void {
  forms.push(base64Normal(text));
  if (/[+/]/.test(text)) forms.push(text.replace(/\+/g, '-').replace(/\//g, '_').toLowerCase());
}
