// Redaction does bounded work for any secrets and any text (SPEC "Network behaviour"): driven with
// hostile shapes of growing size, each run ends by its deadline (counted in looks at it, not in
// milliseconds: a busy machine changes neither), and no run shows a registered
// secret — redacted, or replaced whole by the note when it could not be checked in time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NOT_CHECKED, REDACTED, Redactor } from '../../src/redact/redactor.js';

// Secrets are spelled from these, which never make four characters in a row of REDACTED or of the
// note: whatever the output holds of a secret was not hidden.
const ALPHABET = ['a', 'b', '0', '1'];
const word = (min: number, max: number) =>
  fc.array(fc.constantFrom(...ALPHABET), { minLength: min, maxLength: max }).map((c) => c.join(''));

interface Shape {
  name: string;
  secrets: string[];
  text: string;
}

/** Hostile shapes, each scaled by `scale` (1 to 20): many secrets sharing a prefix, repetitions, near-matches, long secrets. */
const shapes = (scale: number): fc.Arbitrary<Shape> =>
  fc.oneof(
    // Many secrets that share a long prefix, in a text made of that prefix and near-matches.
    fc.tuple(word(4, 40), fc.integer({ min: 1, max: 500 * scale })).map(([prefix, count]) => {
      const secrets = Array.from({ length: count }, (_, i) => `${prefix}${i.toString(2)}`);
      const text = Array.from({ length: 200 * scale }, (_, i) =>
        i % 3 === 0 ? secrets[i % count]! : prefix.slice(0, -1),
      ).join('-');
      return { name: 'shared prefix', secrets, text };
    }),
    // Secrets that are prefixes of one another, in a long run of their letter.
    fc.tuple(fc.constantFrom(...ALPHABET), fc.integer({ min: 1, max: 50 * scale })).map(([c, count]) => ({
      name: 'prefixes of one another',
      secrets: Array.from({ length: count }, (_, i) => c.repeat(4 + i)),
      text: `x${c.repeat(10_000 * scale)}y`,
    })),
    // Repetitions ('abab…') with every overlap, and a text of one long repetition with breaks.
    fc.tuple(word(2, 3), fc.integer({ min: 1, max: 40 * scale })).map(([unit, count]) => ({
      name: 'repetitions',
      secrets: Array.from({ length: count }, (_, i) => unit.repeat(2 + i)).filter((s) => s.length >= 4),
      text: Array.from({ length: 20 * scale }, () => unit.repeat(200)).join('\n  '),
    })),
    // Long secrets echoed whole, cut and nearly.
    fc.tuple(word(1_000, 2_000), fc.integer({ min: 1, max: 5 * scale })).map(([base, count]) => {
      const secrets = Array.from({ length: count }, (_, i) => `${base}${i}`);
      const text = secrets
        .flatMap((s) => [s, s.slice(0, -2), `${s.slice(0, 500)}\n${s.slice(500)}`, s.toUpperCase()])
        .join(' ');
      return { name: 'long secrets', secrets, text };
    }),
    // Many distinct secrets, echoed in encodings (every form in the automaton at once).
    fc.tuple(fc.array(word(6, 30), { minLength: 1, maxLength: 200 * scale })).map(([secrets]) => ({
      name: 'many forms',
      secrets,
      text: secrets
        .map((s, i) =>
          i % 3 === 0
            ? Buffer.from(s).toString('base64')
            : i % 3 === 1
              ? Buffer.from(s).toString('hex')
              : encodeURIComponent(s),
        )
        .join('&'),
    })),
  );

/**
 * Runs one redaction whose deadline passes after `looks` looks at it (a clock the test moves: the
 * redactor looks once every 4096 steps of work, test/redact/deadline-cadence.test.ts); returns what it
 * printed and how many times it looked past the deadline, which is the work it did after it.
 */
function redactWithin(shape: Shape, looks: number): { out: string; late: number } {
  let looked = 0;
  const redactor = new Redactor();
  redactor.setDeadline(() => ++looked > looks);
  for (const secret of shape.secrets) redactor.add(secret);
  const out = redactor.redact(shape.text);
  return { out, late: Math.max(0, looked - looks) };
}

// Once the deadline has passed, the redaction stops at its next look: 4096 steps of work, not more.
const LATE_LOOKS = 1;

function shown(shape: Shape, out: string): string[] {
  const lower = out.toLowerCase();
  return shape.secrets.filter((s) => lower.includes(s.toLowerCase()) || lower.includes(Buffer.from(s).toString('hex')));
}

describe('redaction of hostile inputs of growing size', () => {
  it('ends by its deadline (500 looks, two million steps), and shows no secret', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }).chain((scale) => shapes(scale)),
        (shape) => {
          const { out, late } = redactWithin(shape, 500);
          expect(late, shape.name).toBeLessThanOrEqual(LATE_LOOKS);
          expect(shown(shape, out), shape.name).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('fails closed by a deadline too short to finish: the note, never the text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 10, max: 20 }).chain((scale) => shapes(scale)),
        (shape) => {
          const { out, late } = redactWithin(shape, 1);
          expect(late, shape.name).toBeLessThanOrEqual(LATE_LOOKS);
          expect(shown(shape, out), shape.name).toEqual([]);
          if (out !== NOT_CHECKED) expect(out, shape.name).toContain(REDACTED);
        },
      ),
      { numRuns: 20 },
    );
  });
});
