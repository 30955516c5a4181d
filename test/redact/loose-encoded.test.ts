// Loose forms (docs/redaction.md): in a text over 16 KiB, a long secret spelled out and then
// percent-, JSON- or HTML-encoded (`Z%20q%207`, `&#90; &#113;`) got through: the check for a
// spelled-out run read only the raw text, where each encoded character is several.
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';
import { expectLinearWork } from './scale.js';

const SECRET = 'Zq7-kW9p!mR2xT4v';
const chars = Array.from(SECRET);

const redactorOf = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/** Long enough that the compact reading is made only where the text spells something out. */
const FILLER = 'x'.repeat(20 * 1024);

const encoded: Array<[string, string]> = [
  ['percent-encoded', encodeURIComponent(chars.join(' '))],
  ['JSON-escaped', chars.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(' ')],
  ['HTML entities', chars.map((c) => `&#${c.charCodeAt(0)};`).join(' ')],
  ['HTML entities and &nbsp;', chars.map((c) => `&#${c.charCodeAt(0)};`).join('&nbsp;')],
];

describe('a long secret spelled out and encoded, in a text over 16 KiB', () => {
  it.each(encoded)('is hidden %s', (_name, form) => {
    const out = redactorOf(SECRET).redact(`${FILLER} refused key: ${form} (see logs)`);
    expect(out).toBe(`${FILLER} refused key: ${REDACTED} (see logs)`);
  });
});

describe('reading each decoded text for a spelled-out run', () => {
  it('does work linear in the text, however many encoded near-matches it holds', () => {
    const secrets = Array.from({ length: 200 }, (_, i) => `${'ab'.repeat(8)}${String(i).padStart(4, '0')}`);
    // Spelled-out prefixes that never finish, in every encoding at once, so every reading is compact-read.
    const near = Array.from(secrets[0]!.slice(0, 15));
    const unit = `${encodeURIComponent(near.join(' '))} ${near.map((c) => `&#${c.charCodeAt(0)};`).join(' ')} ${near.map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(' ')} `;
    expectLinearWork(unit, secrets);
  });
});
