// The forms a secret is searched in, in the normal form of normalise.ts: itself, its bytes as hex,
// base64 and base64url (the runs of each base64 offset made of its bits alone), and for a long
// secret the forms a server cuts or spells out. Written into one reused buffer: a step's answer of
// 80 000 strings makes half a million of them.
import { LITERAL, normalise, SEPARATORS, type Decoders } from './normalise.js';

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
function base64Run(
  bytes: Uint8Array,
  length: number,
  offset: number,
  first: number,
  last: number,
  out: Uint8Array,
  alphabet = BASE64,
): boolean {
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
