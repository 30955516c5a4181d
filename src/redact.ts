// The one place that knows which strings are secret. Templates register every value they read from
// `env` or `file()`, and every interpolation computed from one; the credential is registered as
// soon as it is extracted. Everything printed for people passes through redact().

export const REDACTED = '[REDACTED]';

// Shorter values would blank out ordinary words and cannot be real secrets anyway.
const MIN_SECRET_LENGTH = 4;

export class Redactor {
  private readonly secrets = new Set<string>();
  private sorted: string[] | undefined;

  /** Registers a secret together with the encodings it is commonly sent or echoed in. */
  add(value: string | undefined | null): void {
    if (value == null) return;
    for (const form of encodings(value)) {
      if (form.length >= MIN_SECRET_LENGTH && !this.secrets.has(form)) {
        this.secrets.add(form);
        this.sorted = undefined;
      }
    }
  }

  redact(text: string): string {
    if (this.secrets.size === 0) return text;
    // Longest first, so that a secret containing another one is replaced whole.
    this.sorted ??= [...this.secrets].sort((a, b) => b.length - a.length);
    let out = text;
    for (const secret of this.sorted) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    return out;
  }

  get size(): number {
    return this.secrets.size;
  }
}

function encodings(value: string): string[] {
  const forms = [value, value.trim()];
  const json = JSON.stringify(value).slice(1, -1);
  if (json !== value) forms.push(json);
  const url = encodeURIComponent(value);
  if (url !== value) forms.push(url, url.replace(/%20/g, '+'));
  // form and query values go through URLSearchParams, which also encodes ! ' ( ) ~
  const form = new URLSearchParams({ v: value }).toString().slice(2);
  if (form !== value) forms.push(form);
  forms.push(Buffer.from(value).toString('base64'));
  return forms;
}

/** A short single-line view of a body, for error messages. Secrets are redacted first, then cut. */
export function excerpt(body: string, redact: (text: string) => string, max = 200): string {
  const flat = redact(body).replace(/[\u0000-\u001f\u007f]+/g, ' ').replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
