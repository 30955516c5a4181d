// The one place that knows which strings are secret. Templates register every value they read from
// `env` or `file()`, and every interpolation computed from one; the credential is registered as
// soon as it is extracted. Everything printed for people passes through redact().

import { Automaton } from './automaton.js';
import { looseForms, secretForms } from './forms.js';
import { normalise, readings, spelledOut } from './normalise.js';

export const REDACTED = '[REDACTED]';

/**
 * What is printed instead of a text that could not be checked for secrets: never the text itself.
 * The deadline is the usual reason (a step's answer of a million strings, an echo of a megabyte);
 * a text too large to read at all is the other.
 */
export const NOT_CHECKED = '[not shown: it could not be checked for secrets in time]';
const NOT_READABLE = '[not shown: it could not be checked for secrets]';

// Shorter values would blank out ordinary words and cannot be real secrets anyway. Counted in bytes
// of the normal form, so that case or an encoding cannot make a value long enough or too short.
const MIN_SECRET_LENGTH = 4;

/**
 * A secret this long (its compact normal form) is also searched spelled out with separators
 * (`s 3 c r 3 t`, `s, 3, c`), reversed, and cut by one character at either end: shorter ones would
 * turn up in ordinary text read without its spaces.
 */
const LOOSE_FROM = 12;
/**
 * Texts up to this long (an error message, a line of the trace) are always read compact too, for a
 * reversed echo; a longer one only where it spells something out: a body of a megabyte is read twice
 * only when it holds such a run.
 */
const LOOSE_ALWAYS = 16 * 1024;

const BOOLEAN_OTHER: ReadonlyMap<string, string> = new Map([
  ['true', 'false'],
  ['false', 'true'],
]);

/** Thrown inside redaction when the deadline has passed; redact() turns it into NOT_CHECKED. */
class OutOfTime extends Error {}

/**
 * How long the report of a run (a failure's line, doctor's report) may spend redacting past the use
 * case's deadline, and from the moment the use case gave up: the use case ends by --timeout, and the
 * plugin within a second of it (SPEC "Network behaviour"), on a busy machine too. A message checked
 * against secrets whose forms are made already needs far less. One constant for every reporter.
 */
export const REPORT_GRACE_MS = 250;

export class Redactor {
  /** The normal forms (forms.ts) of every registered value and of its hex and base64 encodings. */
  private readonly automaton = new Automaton();
  /**
   * The forms of the secrets of LOOSE_FROM bytes or more with separators dropped (looseForms),
   * searched in the compact reading of a text that spells something out. Made only when such a
   * text is first redacted: most runs never see one.
   */
  private readonly loose = new Automaton();
  /** Every value added, for the loose forms; `looseDone` of them are in `loose`. */
  private readonly looseValues: string[] = [];
  private looseDone = 0;
  /** Values added but not yet turned into forms: a run that prints nothing never pays for that. */
  private pending: string[] = [];
  /** How many of `pending` are in the automaton already: a pass cut by the deadline goes on from there. */
  private pendingDone = 0;
  /**
   * The values a secret decided (the word a comparison chose: `env.S < "m" ? "token" : "other"`),
   * apart from those read or computed from what was read. They are searched in text that may echo
   * what was sent (redact(): a server's answer, a library's error), never in the plugin's own frame
   * of a message (redactFrame(): field names, the URL up to its query as shown, fixed words): that a
   * word of the frame is hidden or not would tell which word the secret chose.
   */
  private decidedTier: Redactor | undefined;
  private expired: () => boolean = () => false;
  private readonly check = () => {
    if (this.expired()) throw new OutOfTime();
  };

  /**
   * Registers a secret; its encoded, escaped and re-cased forms are found in the text at redact().
   * The forms are made when something is first redacted: every string of a step's answer is a
   * secret, and a successful run, which prints nothing, should not make a dozen forms of each.
   */
  add(value: string | undefined | null): void {
    if (value == null) return;
    this.pending.push(value);
    // A secret boolean is one bit: with only its own word hidden, a message that shows the other
    // word (`"retry": false` beside `"flag": [REDACTED]`) tells which it is. Both are hidden.
    const other = BOOLEAN_OTHER.get(value);
    if (other !== undefined) this.pending.push(other);
  }

  /** Registers a value a secret decided: searched by redact(), not by redactFrame() (see decidedTier). */
  addDecided(value: string): void {
    if (!this.decidedTier) {
      const tier = new Redactor();
      tier.expired = () => this.expired();
      this.decidedTier = tier;
    }
    this.decidedTier.add(value);
  }

  /**
   * What tells redaction that the deadline has passed (the use case knows it; this module reads no
   * clock). Past it, a redaction that is not done shows NOT_CHECKED instead of its text.
   */
  setDeadline(expired: () => boolean): void {
    this.expired = expired;
  }

  /**
   * A grace of its own past the deadline set so far (the report of a failure): expired only once
   * both have passed. A failure well before the deadline keeps the rest of it; a run without one
   * (validate, render: their work is bounded by the 1 MiB inputs) keeps none.
   */
  graceAfterDeadline(graceExpired: () => boolean): void {
    const before = this.expired;
    this.expired = () => before() && graceExpired();
  }

  /**
   * Replaces every span of `text` that reads as a secret in one of its forms. Each reading is one
   * pass of the automaton over the normalised text: a 1 MiB trace stays linear, and so does a
   * message checked against 100 000 secrets that share their first bytes. A text that cannot be
   * checked in time is replaced whole by NOT_CHECKED; this never throws.
   */
  redact(text: string): string {
    return this.tryRedact(text) ?? (this.failedFor === 'time' ? NOT_CHECKED : NOT_READABLE);
  }

  /** redact(), or undefined when the text could not be checked, for a caller that says something of its own instead. */
  tryRedact(text: string): string | undefined {
    try {
      return this.redactWithin(text);
    } catch (error) {
      this.failedFor = error instanceof OutOfTime ? 'time' : 'size';
      return undefined;
    }
  }

  /**
   * tryRedact() of a message the plugin composed itself from what is shown by rule and fixed words,
   * with every part that may echo what was sent redacted by redact() already: the values a secret
   * decided are not searched in it (see decidedTier); the values read are.
   */
  tryRedactFrame(text: string): string | undefined {
    try {
      return this.redactRead(text);
    } catch (error) {
      this.failedFor = error instanceof OutOfTime ? 'time' : 'size';
      return undefined;
    }
  }

  /** tryRedactFrame(), or what redact() prints instead of a text that could not be checked. */
  redactFrame(text: string): string {
    return this.tryRedactFrame(text) ?? (this.failedFor === 'time' ? NOT_CHECKED : NOT_READABLE);
  }

  /** Why the last text that could not be checked was not: the deadline, or a text too large to read. */
  failedFor: 'time' | 'size' | undefined;

  private redactWithin(text: string): string {
    const read = this.redactRead(text);
    return this.decidedTier ? this.decidedTier.redactWithin(read) : read;
  }

  private redactRead(text: string): string {
    if (text === '') return text;
    this.expand();
    if (this.automaton.patterns === 0) return text;
    // reach[s]: the furthest end of a span found starting at s (0: none), so that the spans of
    // every reading merge in one sweep, without sorting them.
    let reach: Int32Array | undefined;
    // Each reading once as it is and, where the text spells something out (`s 3 c r 3 t`), once
    // compact (separators dropped) for the loose forms: a second pass over the same text, so the
    // work stays linear in it. A decoded reading may spell out what the raw text does not
    // (`Z%20q%207`, `&#90; &#113;`): a long text is checked in each reading.
    const always = text.length <= LOOSE_ALWAYS;
    const spelled = always || spelledOut(text, LOOSE_FROM - 1);
    const scan = (automaton: Automaton, normal: ReturnType<typeof normalise>) => {
      const { start, end } = normal;
      automaton.scan(
        normal.bytes,
        normal.length,
        (last, length) => {
          reach ??= new Int32Array(text.length + 1);
          const from = start[last - length + 1]!;
          const to = end[last]!;
          if (to > reach[from]!) reach[from] = to;
        },
        this.check,
      );
    };
    for (const decoders of readings(text)) {
      const normal = normalise(text, decoders, this.check);
      scan(this.automaton, normal);
      const decoded = decoders.percent || decoders.json || decoders.html;
      if (!spelled && !(decoded && spelledOut(normal.text, LOOSE_FROM - 1))) continue;
      this.expandLoose();
      if (this.loose.patterns > 0) scan(this.loose, normalise(text, { ...decoders, compact: true }, this.check));
    }
    return reach === undefined ? text : replaceSpans(text, reach);
  }

  private expand(): void {
    const { pending, automaton, check } = this;
    // Adding a form again changes nothing: a pass cut short may redo its last value.
    const add = (bytes: Uint8Array, length: number) => automaton.add(bytes, length, check);
    for (; this.pendingDone < pending.length; this.pendingDone++) {
      const value = pending[this.pendingDone]!;
      secretForms(value, MIN_SECRET_LENGTH, add);
      const trimmed = value.trim();
      if (trimmed !== value) secretForms(trimmed, MIN_SECRET_LENGTH, add);
      // Cut by one character, as written (the whole is among the forms above).
      looseForms(value, LOOSE_FROM, false, add);
      this.looseValues.push(value);
    }
    this.pending = [];
    this.pendingDone = 0;
  }

  private expandLoose(): void {
    const { looseValues, loose, check } = this;
    for (; this.looseDone < looseValues.length; this.looseDone++)
      looseForms(looseValues[this.looseDone]!, LOOSE_FROM, true, (bytes, length) => loose.add(bytes, length, check));
  }

  get size(): number {
    this.expand();
    return this.automaton.patterns;
  }
}

/** The text with each run of spans (overlapping or touching) replaced by one REDACTED. */
function replaceSpans(text: string, reach: Int32Array): string {
  const parts: string[] = [];
  let copied = 0;
  for (let at = 0; at < text.length;) {
    let to = reach[at]!;
    if (to === 0) {
      at++;
      continue;
    }
    let next = at + 1;
    for (; next <= to && next < text.length; next++) if (reach[next]! > to) to = reach[next]!;
    parts.push(text.slice(copied, at), REDACTED);
    copied = to;
    at = next;
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

/** A short single-line view of a body, for error messages. Secrets are redacted first, then cut. */
export function excerpt(body: string, redact: (text: string) => string, max = 200): string {
  const flat = redact(body)
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
