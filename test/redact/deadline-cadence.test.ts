// How often the automaton consults the deadline (src/redact/automaton.ts): once every 4096 steps of
// work, in every loop that an input can make long — adding a secret's forms, scanning a text, making
// the failure links of the paths a scan reaches. A loop that stops counting is a loop a hostile
// answer can make run past --timeout unseen; one that checks at every step reads the clock millions
// of times. The checks are counted through the callback redaction hands it.
import { describe, expect, it } from 'vitest';
import { Automaton } from '../../src/redact/automaton.js';

const EVERY = 4096;
const bytes = (text: string) => Buffer.from(text, 'latin1');

/** How many times `run` consults the deadline on a new automaton. */
function checks(run: (automaton: Automaton, check: () => void) => void): number {
  let count = 0;
  run(new Automaton(), () => {
    count++;
  });
  return count;
}

describe('the deadline is consulted once every 4096 steps of work', () => {
  it('while a secret is added: one step a byte', () => {
    for (const k of [1, 2, 25]) {
      const secret = bytes('s'.repeat(k * EVERY));
      expect(checks((a, check) => a.add(secret, secret.length, check))).toBe(k);
    }
    const short = bytes('s'.repeat(EVERY - 1));
    expect(checks((a, check) => a.add(short, short.length, check))).toBe(0);
  });

  it('while a text is scanned: one step a byte, counted on from the adding', () => {
    for (const k of [1, 25]) {
      const text = bytes('x'.repeat(k * EVERY));
      // One byte added, then k × 4096 scanned: the 4096th step comes one byte before the end.
      expect(
        checks((a, check) => {
          a.add(bytes('q'), 1, check);
          a.scan(text, text.length, () => {}, check);
        }),
      ).toBe(k);
    }
  });

  it('while the failure links of the paths a scan reaches are made: two steps a node', () => {
    // A secret of 25 × 4096 bytes, then a text that is that secret: add, scan, and for each node the
    // link and its failure walk are one step a byte each, four in all.
    for (const unit of ['a', 'ab', 'abc']) {
      const secret = bytes(unit.repeat(25 * EVERY).slice(0, 25 * EVERY));
      const counted = checks((a, check) => {
        a.add(secret, secret.length, check);
        a.scan(secret, secret.length, () => {}, check);
      });
      expect(counted).toBeGreaterThanOrEqual(4 * 25 - 2);
      expect(counted).toBeLessThanOrEqual(4 * 25);
    }
  });

  it('stops a long scan at the first check once the deadline has passed, and finds what it reached on the next try', () => {
    const automaton = new Automaton();
    automaton.add(bytes('needle'), 6, () => {});
    const text = bytes(`${'x'.repeat(3 * EVERY)}needle`);
    const found: number[] = [];
    let consulted = 0;
    expect(() =>
      automaton.scan(
        text,
        text.length,
        (end) => found.push(end),
        () => {
          consulted++;
          throw new Error('past the deadline');
        },
      ),
    ).toThrow('past the deadline');
    expect(consulted).toBe(1);
    expect(found).toEqual([]);
    automaton.scan(
      text,
      text.length,
      (end) => found.push(end),
      () => {},
    );
    expect(found).toEqual([text.length - 1]);
  });
});
