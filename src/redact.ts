// The one place that knows which strings are secret. Templates register every value they read from
// `env` or `file()`, and every interpolation computed from one; the credential is registered as
// soon as it is extracted. Everything printed for people passes through redact().

import { normalise, normalText, readings, secretForms } from './redact-forms.js';

export const REDACTED = '[REDACTED]';

// Shorter values would blank out ordinary words and cannot be real secrets anyway. Counted in bytes
// of the normal form, so that case or an encoding cannot make a value long enough or too short.
const MIN_SECRET_LENGTH = 4;

// Up to this many forms, one indexOf scan per form; past it (every string of a step's answer is a
// secret: tens of thousands of forms) one pass over the text looks each 4-byte run up in an index.
const SCAN_EACH_FORM_UP_TO = 256;

export class Redactor {
  /** The normal forms (redact-forms.ts) of every registered value and of its hex and base64 encodings. */
  private readonly forms = new Set<string>();
  /** The forms by their first four bytes (every form has at least four: MIN_SECRET_LENGTH). */
  private readonly byPrefix = new Map<number, string[]>();

  /** Values added but not yet turned into forms: a run that prints nothing never pays for that. */
  private pending: string[] = [];

  /**
   * Registers a secret; its encoded, escaped and re-cased forms are found in the text at redact().
   * The forms are made when something is first redacted: every string of a step's answer is a
   * secret, and a successful run, which prints nothing, should not make a dozen forms of each.
   */
  add(value: string | undefined | null): void {
    if (value != null) this.pending.push(value);
  }

  private expand(): void {
    const values = this.pending;
    this.pending = [];
    for (const value of values) {
      const trimmed = value.trim();
      for (const raw of trimmed === value ? [value] : [value, trimmed]) {
        if (normalText(raw).length < MIN_SECRET_LENGTH) continue;
        for (const form of secretForms(raw)) {
          const known = this.forms.size;
          this.forms.add(form);
          if (this.forms.size === known) continue;
          const key = prefixKey(form, 0);
          const same = this.byPrefix.get(key);
          if (same) same.push(form);
          else this.byPrefix.set(key, [form]);
        }
      }
    }
  }

  /**
   * Replaces every span of `text` that reads as a secret in one of its forms. Each reading is one
   * linear pass over the text plus, for a few forms, one indexOf scan per form, else one index
   * lookup per byte: a 1 MiB trace stays linear, and so does a message with 100 000 secrets.
   */
  redact(text: string): string {
    if (text === '') return text;
    if (this.pending.length > 0) this.expand();
    if (this.forms.size === 0) return text;
    const spans: [number, number][] = [];
    for (const decoders of readings(text)) {
      const normal = normalise(text, decoders);
      const found = (at: number, length: number) => spans.push([normal.start[at]!, normal.end[at + length - 1]!]);
      if (this.forms.size <= SCAN_EACH_FORM_UP_TO) {
        for (const form of this.forms) {
          for (let at = normal.text.indexOf(form); at >= 0; at = normal.text.indexOf(form, at + 1)) found(at, form.length);
        }
        continue;
      }
      for (let at = 0; at + MIN_SECRET_LENGTH <= normal.text.length; at++) {
        const candidates = this.byPrefix.get(prefixKey(normal.text, at));
        if (candidates) for (const form of candidates) if (normal.text.startsWith(form, at)) found(at, form.length);
      }
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }

  get size(): number {
    this.expand();
    return this.forms.size;
  }
}

/** The four bytes (latin1 chars) of a normal text at `at` as one number. */
function prefixKey(text: string, at: number): number {
  return (text.charCodeAt(at) << 24) | (text.charCodeAt(at + 1) << 16) | (text.charCodeAt(at + 2) << 8) | text.charCodeAt(at + 3);
}

function replaceSpans(text: string, spans: [number, number][]): string {
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let copied = 0;
  let [from, to] = spans[0]!;
  for (const [start, end] of spans) {
    if (start <= to) {
      to = Math.max(to, end);
      continue;
    }
    out += text.slice(copied, from) + REDACTED;
    copied = to;
    [from, to] = [start, end];
  }
  return out + text.slice(copied, from) + REDACTED + text.slice(to);
}

/** A short single-line view of a body, for error messages. Secrets are redacted first, then cut. */
export function excerpt(body: string, redact: (text: string) => string, max = 200): string {
  const flat = redact(body).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
