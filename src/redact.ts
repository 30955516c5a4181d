// The one place that knows which strings are secret. Templates register every value they read from
// `env` or `file()`, and every interpolation computed from one; the credential is registered as
// soon as it is extracted. Everything printed for people passes through redact().

import { normalise, readings, secretForms } from './redact-forms.js';

export const REDACTED = '[REDACTED]';

// Shorter values would blank out ordinary words and cannot be real secrets anyway. Counted in bytes
// of the normal form, so that case or an encoding cannot make a value long enough or too short.
const MIN_SECRET_LENGTH = 4;

export class Redactor {
  /** The normal forms (redact-forms.ts) of every registered value and of its hex and base64 encodings. */
  private readonly forms = new Set<string>();

  /** Registers a secret; its encoded, escaped and re-cased forms are found in the text at redact(). */
  add(value: string | undefined | null): void {
    if (value == null) return;
    for (const raw of new Set([value, value.trim()])) {
      if (normalise(raw).text.length < MIN_SECRET_LENGTH) continue;
      for (const form of secretForms(raw)) this.forms.add(form);
    }
  }

  /**
   * Replaces every span of `text` that reads as a secret in one of its forms. Each reading is one
   * linear pass over the text plus one indexOf scan per form, so a 1 MiB trace stays linear.
   */
  redact(text: string): string {
    if (this.forms.size === 0 || text === '') return text;
    const spans: [number, number][] = [];
    for (const decoders of readings(text)) {
      const normal = normalise(text, decoders);
      for (const form of this.forms) {
        for (let at = normal.text.indexOf(form); at >= 0; at = normal.text.indexOf(form, at + 1)) {
          spans.push([normal.start[at]!, normal.end[at + form.length - 1]!]);
        }
      }
    }
    return spans.length === 0 ? text : replaceSpans(text, spans);
  }

  get size(): number {
    return this.forms.size;
  }
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
