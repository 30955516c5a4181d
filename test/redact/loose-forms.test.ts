// A long secret that a server spells out (`s 3 c r 3 t`, `s, 3, c`, a JSON list of its characters),
// reverses or cuts by one character is still hidden (docs/redaction.md, "Loose forms"), and finding
// those forms costs work linear in the text, counted by the redactor's own checks.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { expectLinearWork } from './scale.js';

const SECRET = 'Zq7-kW9p!mR2xT4v';

/** Every spelled, split, reversed and cut form a token API has been seen to echo. */
function echoes(secret: string): Array<[string, string]> {
  const chars = Array.from(secret);
  return [
    ['spaced', chars.join(' ')],
    ['comma-split', chars.join(', ')],
    ['a JSON list of its characters', JSON.stringify(chars)],
    ['reversed', [...chars].reverse().join('')],
    ['reversed and spaced', [...chars].reverse().join(' ')],
    ['without its last character', chars.slice(0, -1).join('')],
    ['without its first character', chars.slice(1).join('')],
    ['upper-cased and spaced', chars.join(' ').toUpperCase()],
  ];
}

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

describe('loose forms of a secret of 12 characters or more', () => {
  it.each(echoes(SECRET))('hides it %s', (name, form) => {
    const out = redactorOf(SECRET).redact(`refused key: ${form} (see logs)`);
    // The list's brackets and outer quotes are not the secret's: they stay.
    expect(out).toBe(`refused key: ${name.includes('JSON') ? `["${REDACTED}"]` : REDACTED} (see logs)`);
  });

  it('hides any secret of 12 to 40 characters in each loose form, and leaves the words around it', () => {
    const secret = fc.stringMatching(/^[A-Za-z0-9._~!-]{12,40}$/);
    fc.assert(
      fc.property(secret, fc.integer({ min: 0, max: 7 }), (value, which) => {
        const [, form] = echoes(value)[which]!;
        // Words of characters no secret here holds: a letter of them could extend a cut form's match.
        const out = redactorOf(value).redact(`<<< ${form} >>>`);
        expect(out.startsWith('<<< ')).toBe(true);
        expect(out.endsWith(' >>>')).toBe(true);
        expect(out).toContain(REDACTED);
        for (const [, other] of echoes(value)) if (other.length >= 6) expect(out).not.toContain(other);
      }),
      { numRuns: 200 },
    );
  });

  it('leaves a shorter secret spelled out: read without spaces, ordinary words would match it', () => {
    expect(redactorOf('s3cr3t-pw').redact('s 3 c r 3 t - p w')).toBe('s 3 c r 3 t - p w');
    expect(redactorOf('s3cr3t-pw').redact('s3cr3t-pw')).toBe(REDACTED);
  });

  it('does work linear in the text, however many near-matches of the loose forms it holds', () => {
    const secrets = Array.from({ length: 200 }, (_, i) => `${'ab'.repeat(8)}${String(i).padStart(4, '0')}`);
    // Near-matches of every loose form: spaced, comma-split and reversed prefixes that never finish.
    const unit = `${Array.from(secrets[0]!.slice(0, 15)).join(' ')}, ${Array.from(secrets[1]!.slice(0, 15)).reverse().join(',')} `;
    // Each quadrupling of the text at most about quadruples the work.
    expectLinearWork(unit, secrets);
  });
});
