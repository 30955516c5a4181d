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
    expect(redactor.redact(`{"client_secret":"${Buffer.from('pw-1234').toString('base64')}"}`)).toBe(
      `{"client_secret":"${REDACTED}"}`,
    );
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

describe('a short secret wrapped at a line break that comes encoded, the next line indented', () => {
  // Under 12 characters a secret has no loose forms: only the indented reading finds it. Before, that
  // reading was made only for a raw or `\n`-escaped break followed by a raw space or tab.
  const SECRET = 'pw-12345';
  it.each([
    ['percent-encoded break and spaces', 'a pw-12%0A%20%20%20%20345 b', `a ${REDACTED} b`],
    ['percent-encoded CRLF and a tab', 'a pw-12%0D%0A%09345 b', `a ${REDACTED} b`],
    ['percent-encoded break, raw spaces', 'a pw-12%0A    345 b', `a ${REDACTED} b`],
    ['an HTML entity break', '<p>pw-12&#10;    345</p>', `<p>${REDACTED}</p>`],
    ['an HTML hex entity break and entity spaces', '<p>pw-12&#x0A;&#32;&#32;345</p>', `<p>${REDACTED}</p>`],
    ['a JSON \\u000a escape', '{"m":"pw-12\\u000a    345"}', `{"m":"${REDACTED}"}`],
    ['a JSON \\n and \\t', '{"m":"pw-12\\n\\t345"}', `{"m":"${REDACTED}"}`],
  ])('is hidden: %s', (_name, text, expected) => {
    expect(redactorOf(SECRET).redact(text)).toBe(expected);
  });

  it('leaves the same text alone when the lines do not spell the secret', () => {
    for (const text of ['a pw-12%0A%20%20%20%20346 b', '<p>pw-12&#10;    34</p>', 'x=pw-13%0A++++345'])
      expect(redactorOf(SECRET).redact(text)).toBe(text);
  });
});
