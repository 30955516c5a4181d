// The automaton reports, at each byte, the longest pattern ending there: the same as a naive search,
// whatever the patterns share and however additions and scans interleave (links made lazily).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Automaton } from '../../src/redact/automaton.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const noCheck = () => {};

/** The longest pattern ending at each index (0: none), by trying every pattern everywhere. */
function naive(patterns: readonly string[], text: string): number[] {
  return [...text].map((_, end) =>
    Math.max(
      0,
      ...patterns.filter((p) => p.length <= end + 1 && text.startsWith(p, end + 1 - p.length)).map((p) => p.length),
    ),
  );
}

function scanned(automaton: Automaton, text: string): number[] {
  const longest = new Array<number>(text.length).fill(0);
  automaton.scan(bytes(text), text.length, (end, length) => void (longest[end] = length), noCheck);
  return longest;
}

// A small alphabet makes shared prefixes, overlaps and repetitions common.
const word = (max: number) =>
  fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: max }).map((c) => c.join(''));

describe('Automaton', () => {
  it('finds the longest pattern ending at each byte, as a naive search does, across additions and scans', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(word(8), { maxLength: 6 }), word(60)), { minLength: 1, maxLength: 5 }),
        (rounds) => {
          const automaton = new Automaton();
          const patterns: string[] = [];
          for (const [added, text] of rounds) {
            for (const pattern of added) automaton.add(bytes(pattern), pattern.length, noCheck);
            patterns.push(...added);
            expect(scanned(automaton, text)).toEqual(naive(patterns, text));
          }
          expect(automaton.patterns).toBe(new Set(patterns).size);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stops at the check when the deadline has passed, and goes on afterwards', () => {
    const automaton = new Automaton();
    const pattern = 'ab'.repeat(5_000);
    const text = `x${pattern}`;
    const late = () => {
      throw new Error('deadline');
    };
    expect(() => automaton.add(bytes(pattern), pattern.length, late)).toThrow('deadline');
    automaton.add(bytes(pattern), pattern.length, noCheck);
    expect(() => automaton.scan(bytes(text), text.length, () => {}, late)).toThrow('deadline');
    // What was linked before the check stays linked; the rest is made now.
    expect(scanned(automaton, text).at(-1)).toBe(pattern.length);
  });
  it('finds every one of thousands of secrets that branch at each byte (the table of children grows many times)', () => {
    // 6 000 random 3-byte patterns over every byte value: most nodes have many children, so the
    // open-addressing table is filled past 70 % and rebuilt again and again while they are added.
    const random = fc.sample(fc.uint8Array({ minLength: 3, maxLength: 3 }), { numRuns: 6_000, seed: 29 });
    const patterns = new Set(random.map((p) => Buffer.from(p).toString('latin1')));
    const automaton = new Automaton();
    for (const pattern of patterns) automaton.add(bytes(pattern), 3, noCheck);
    expect(automaton.patterns).toBe(patterns.size);
    const text = [...patterns].join('\u00ff');
    const expected = [...text].map((_, end) => (end >= 2 && patterns.has(text.slice(end - 2, end + 1)) ? 3 : 0));
    expect(scanned(automaton, text)).toEqual(expected);
  });
});
