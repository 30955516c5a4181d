// A secret spelled one decided letter at a time (SPEC "Templates": a value decided by a secret is a
// secret): each letter is too short for the redactor alone, so the span of the sent request that
// render shows as [REDACTED] is registered whole (build.ts). Whatever the separator and the field,
// what a server echoes of the request, redacted, no longer spells the secret.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateProviderDocument } from '../../src/config/validate.js';
import { checkPath } from '../../src/credential/jsonpath.js';
import { Redactor } from '../../src/redact/redactor.js';
import { renderRequest } from '../../src/request/build.js';
import { TemplateRenderer } from '../../src/template/renderer.js';

const DIGITS = '0123456789'.split('');

/** `c<i>` is the i-th letter of env.S, found by comparisons alone (a binary search over the digits). */
function spellingLets(length: number): Record<string, string> {
  const search = (prefix: string, chars: string[]): string => {
    if (chars.length === 1) return JSON.stringify(chars[0]);
    const middle = Math.floor(chars.length / 2);
    return `(${prefix} + ${JSON.stringify(chars[middle])} <= env.S ? ${search(prefix, chars.slice(middle))} : ${search(prefix, chars.slice(0, middle))})`;
  };
  const lets: Record<string, string> = { p0: '""' };
  for (let i = 0; i < length; i++) {
    lets[`c${i}`] = search(`p${i}`, DIGITS);
    lets[`p${i + 1}`] = `p${i} + c${i}`;
  }
  return lets;
}

describe('a secret spelled by decided letters side by side', () => {
  it('is redacted in what a server echoes of the path, query, form or body, whatever separates the letters', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.shuffledSubarray(DIGITS, { minLength: 6, maxLength: 10 }).map((d) => d.join('')),
        fc.constantFrom('/', '.', ',', '-', '~', '_', ':', '', '%2F'),
        fc.constantFrom('path', 'query', 'form', 'body'),
        async (secret, separator, where) => {
          const letters = Array.from(secret, (_, i) => `{{ c${i} }}`);
          const joined = letters.join(separator);
          const base = 'https://example.test/echo';
          const fields =
            where === 'path'
              ? { method: 'GET', url: `${base}/${joined}` }
              : where === 'query'
                ? { method: 'GET', url: `${base}?q=${joined}` }
                : where === 'form'
                  ? {
                      method: 'POST',
                      url: base,
                      form: Object.fromEntries(letters.map((letter, i) => [`f${i}`, letter])),
                    }
                  : { method: 'POST', url: base, body: joined };
          const result = validateProviderDocument(
            { webAPIProviderConfig: { let: spellingLets(secret.length), tokenPath: '$.t', ...fields } },
            checkPath,
          );
          if (!result.ok) throw new Error(JSON.stringify(result.issues));
          const redactor = new Redactor();
          const renderer = new TemplateRenderer(
            { env: { S: secret }, vars: {}, cluster: undefined, readFile: () => '', nowMs: Date.now, uuid: randomUUID },
            redactor,
          );
          renderer.setSteps('placeholders');
          await renderer.defineLets(result.config.lets);
          const request = await renderRequest(result.config, renderer, '0.0.0-test', () => '', redactor);
          const sent = decodeURIComponent(`${request.url} ${(request.body ?? '').replaceAll('+', ' ')}`);
          const spelled = new RegExp(Array.from(secret).join('.{0,6}'));
          expect(sent).toMatch(spelled);
          expect(redactor.redact(sent)).not.toMatch(spelled);
        },
      ),
      { numRuns: 150 },
    );
  });
});
