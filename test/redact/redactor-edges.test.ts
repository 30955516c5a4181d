// Edges of the redactor's own logic (src/redact/redactor.ts) that a server's echo can reach: a secret
// read with white space around it and echoed without, two secrets whose echoes overlap, and a secret
// spelled out exactly at the loose forms' threshold in a long text, raw and percent-encoded.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** Ordinary text over 16 KiB: past the length below which every text gets the compact reading. */
const LONG = 'the service answered with an ordinary line of text. '.repeat(400);

describe('a secret read with white space around it', () => {
  it.each([
    ['a trailing space (an env file)', 'pw-1234 '],
    ['a trailing CRLF (a key file from Windows)', 'pw-1234\r\n'],
    ['a leading tab', '\tpw-1234'],
  ])('is hidden where a server echoes it without: %s', (_name, secret) => {
    const redactor = redactorOf(secret);
    expect(redactor.redact('invalid client pw-1234.')).toBe(`invalid client ${REDACTED}.`);
    expect(redactor.redact(`{"client_secret":"${Buffer.from('pw-1234').toString('base64')}"}`)).toBe(`{"client_secret":"${REDACTED}"}`);
  });
});

describe('two secrets whose echoes overlap', () => {
  it('are hidden as one span, with nothing of either left between or after', () => {
    const redactor = redactorOf('abcdef-1234', '1234-ghijkl');
    expect(redactor.redact('got abcdef-1234-ghijkl here')).toBe(`got ${REDACTED} here`);
    // The second one reaches further than the first, starting inside it, three deep.
    const chained = redactorOf('aaaa-1111', '1111-bbbb', 'bbbb-2222');
    expect(chained.redact('[aaaa-1111-bbbb-2222]')).toBe(`[${REDACTED}]`);
  });
});

describe('a secret of 12 characters spelled out in a text over 16 KiB', () => {
  // 12 characters, the loose forms' minimum: its spelled-out run is 12 singles in a row.
  const SECRET = 'Zq7-kW9p!mR2';
  const spaced = Array.from(SECRET).join(' ');

  it('is hidden spaced out', () => {
    const out = redactorOf(SECRET).redact(`${LONG} refused: ${spaced} (see logs)`);
    expect(out).toBe(`${LONG} refused: ${REDACTED} (see logs)`);
  });

  it('is hidden spaced out and percent-encoded, where only the decoded text spells it out', () => {
    const encoded = encodeURIComponent(spaced);
    const out = redactorOf(SECRET).redact(`${LONG} refused: ${encoded} (see logs)`);
    expect(out).toBe(`${LONG} refused: ${REDACTED} (see logs)`);
  });
});
