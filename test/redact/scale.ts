// How the redaction tests measure work: the redactor's deadline checks, one every 4096 steps, which
// do not depend on the machine's speed or load. And the sizes the linear-work tests read: under
// `npm run test:mutation` (vitest.mutation.config.ts sets WEBAPI_CREDENTIAL_MUTATION) each mutant
// runs instrumented code many times slower, so the texts are 16 times smaller there: a quadrupling
// of the text is still a quadrupling, which is what they check.
import { expect } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';

export const LINEAR_SIZES: readonly number[] = process.env['WEBAPI_CREDENTIAL_MUTATION']
  ? [1 << 13, 1 << 15, 1 << 17]
  : [1 << 17, 1 << 19, 1 << 21];

/** The deadline checks it takes to redact `text` holding `secrets`, which must leave it unchanged. */
export function checksToRedact(text: string, secrets: readonly string[]): number {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  let checks = 0;
  redactor.setDeadline(() => {
    checks++;
    return false;
  });
  expect(redactor.redact(text)).toBe(text);
  return checks;
}

/** `unit` repeated to `size` characters. */
const filled = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Each quadrupling of a text of `unit`s at most about quadruples the work of redacting it. */
export function expectLinearWork(unit: string, secrets: readonly string[]): void {
  const counted = LINEAR_SIZES.map((size) => checksToRedact(filled(unit, size), secrets));
  for (let i = 1; i < counted.length; i++) expect(counted[i]!).toBeLessThanOrEqual(4.5 * counted[i - 1]! + 8);
  expect(counted[0]!).toBeGreaterThan(0);
}
