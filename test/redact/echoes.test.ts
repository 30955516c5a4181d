// Echoes of a secret as servers, proxies and files really give them back, each one a form that the
// redactor once let through when a piece of it was broken (docs/development.md, mutation testing):
// a secret right after a typographic quote, a key read from a CRLF file, a PEM key echoed in hex, a
// client secret inside a JWT claim, Go's JSON of a URL, a short secret inside Basic auth, an emoji
// under Python's ensure_ascii, a line break percent-encoded inside a secret.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../../src/redact/redactor.js';

const redactorWith = (...secrets: string[]) => {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.add(secret);
  return redactor;
};

/**
 * The characters of `encoded` (base64 or base64url of `bytes`) made of the secret's bits alone, when
 * the secret is `bytes[at, at + length)`: what must not be printed.
 */
function innerRun(encoded: string, at: number, length: number): string {
  return encoded.slice(Math.ceil((at * 8) / 6), Math.floor(((at + length) * 8) / 6));
}

describe('a secret after non-ASCII text', () => {
  it.each<[string, string, string]>([
    ['typographic quotes', 'invalid client “hunter2-pass”', 'invalid client “[REDACTED]”'],
    ['a guillemet', 'mot de passe «hunter2-pass» refusé', 'mot de passe «[REDACTED]» refusé'],
    ['an accented word', 'clé:hunter2-pass', 'clé:[REDACTED]'],
    ['CJK text', '密码hunter2-pass错误', '密码[REDACTED]错误'],
    ['an emoji (two UTF-16 units)', '🔑hunter2-pass🔒', '🔑[REDACTED]🔒'],
    ['several emoji', '🔑🔑🔑 hunter2-pass', '🔑🔑🔑 [REDACTED]'],
  ])('hides it after %s, and keeps the text around it', (_name, text, expected) => {
    expect(redactorWith('hunter2-pass').redact(text)).toBe(expected);
  });

  it('hides a non-ASCII secret after non-ASCII text, in any case', () => {
    const redactor = redactorWith('Pässwört-Ωmega');
    expect(redactor.redact('“Pässwört-Ωmega”')).toBe('“[REDACTED]”');
    expect(redactor.redact('«PÄSSWÖRT-ΩMEGA»')).toBe('«[REDACTED]»');
  });

  it('hides any secret after any text, non-ASCII and astral included (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 8 }),
        fc.string({ unit: 'grapheme', minLength: 6, maxLength: 20 }).filter((s) => s.trim() === s && !/[\r\n]/.test(s)),
        (before, secret) => {
          const out = redactorWith(secret).redact(`${before}${secret}!`);
          expect(out.endsWith(`${REDACTED}!`)).toBe(true);
          expect(out).not.toContain(secret);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('a secret with line breaks of its own (a key read from a CRLF file)', () => {
  const key = 'key-line-one\r\nkey-line-two';

  it.each<[string, string]>([
    ['as read', key],
    ['with LF only', 'key-line-one\nkey-line-two'],
    ['JSON-escaped', JSON.stringify(key).slice(1, -1)],
    ['percent-encoded', encodeURIComponent(key)],
    ['upper-case hex of its bytes', Buffer.from(key).toString('hex').toUpperCase()],
    ['base64', Buffer.from(key).toString('base64')],
  ])('hides it %s', (_name, echo) => {
    const out = redactorWith(key).redact(`got <${echo}>`);
    expect(out).toBe(`got <${REDACTED}>`);
  });

  it('hides a secret echoed with a CRLF percent-encoded inside it (a wrapped form value)', () => {
    const redactor = redactorWith('abcd-efgh-ijkl');
    expect(redactor.redact('v=abcd-ef%0D%0Agh-ijkl&x=1')).toBe(`v=${REDACTED}&x=1`);
    expect(redactor.redact('v=abcd-ef%0d%0agh-ijkl')).toBe(`v=${REDACTED}`);
    expect(redactor.redact('v=abcd-ef%0Agh-ijkl')).toBe(`v=${REDACTED}`);
  });

  it('hides a secret with a JSON-escaped CR inside it', () => {
    expect(redactorWith('abcd-efgh-ijkl').redact('"abcd-ef\\r\\ngh-ijkl"')).toBe(`"${REDACTED}"`);
    expect(redactorWith('abcd-efgh-ijkl').redact('"abcd-ef\\u000d\\u000agh-ijkl"')).toBe(`"${REDACTED}"`);
  });
});

describe('a long secret (a PEM key, a JWT) echoed encoded', () => {
  const pem = (bytes: number) => {
    const body = Buffer.from(Uint8Array.from({ length: bytes }, (_, i) => (i * 131 + 7) % 251)).toString('base64');
    return `-----BEGIN PRIVATE KEY-----\n${body.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----`;
  };

  it.each<[string, number]>([
    ['a 600-byte PEM key', 600],
    ['a 3 000-byte PEM key', 3_000],
    ['a 9 000-byte PEM key', 9_000],
  ])('hides %s echoed in hex, base64 and base64url', (_name, size) => {
    const key = pem(size);
    const redactor = redactorWith(key);
    for (const echo of [
      Buffer.from(key).toString('hex'),
      Buffer.from(key).toString('base64'),
      Buffer.from(key).toString('base64url'),
      key,
    ]) {
      expect(redactor.redact(`[${echo}]`)).toBe(`[${REDACTED}]`);
    }
  });

  it('hides a long secret inside a larger base64 value, at every offset', () => {
    const key = pem(700);
    const redactor = redactorWith(key);
    for (const prefix of ['', 'a', 'ab']) {
      const encoded = Buffer.from(`${prefix}${key}`).toString('base64');
      const out = redactor.redact(`Basic ${encoded}`);
      expect(out).not.toContain(innerRun(encoded, prefix.length, Buffer.byteLength(key)));
    }
  });
});

describe('a secret inside a JWT claim (base64url)', () => {
  // Runs of '?', '>' and '~' make '/' and '+' in base64 at every offset: base64url differs there.
  const secret = 's3cr3t???>>>~~~value';

  it.each([0, 1, 2, 3, 4, 5])('hides it whatever its byte offset in the payload (%i)', (pad) => {
    const payload = JSON.stringify({ sub: 'robot', pad: 'x'.repeat(pad), client_secret: secret });
    const encoded = Buffer.from(payload).toString('base64url');
    const token = `eyJhbGciOiJIUzI1NiJ9.${encoded}.c2lnbmF0dXJl`;
    const run = innerRun(encoded, Buffer.from(payload).indexOf(secret), Buffer.byteLength(secret));
    expect(run).toMatch(/[-_]/);
    const out = redactorWith(secret).redact(`the API refused ${token}`);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(run);
  });

  it('hides a claim whose base64url differs from base64 by "-" alone', () => {
    const only = 'abc>>>def>>>ghi';
    const payload = JSON.stringify({ sub: 'robot', client_secret: only });
    const encoded = Buffer.from(payload).toString('base64url');
    const run = innerRun(encoded, Buffer.from(payload).indexOf(only), only.length);
    expect(run).toMatch(/-/);
    expect(run).not.toMatch(/_/);
    expect(redactorWith(only).redact(`jwt ${encoded}`)).not.toContain(run);
  });

  it('hides a whole secret encoded alone in base64url, without padding', () => {
    const encoded = Buffer.from(secret).toString('base64url');
    expect(encoded).toMatch(/[-_]/);
    expect(redactorWith(secret).redact(`id=${encoded};`)).toBe(`id=${REDACTED};`);
  });
});

describe("a secret a server escaped twice over (Go's JSON of a URL)", () => {
  it.each<[string, string, string]>([
    [
      'a query value percent-encoded, then JSON-encoded by Go',
      'ab cd&ef-gh',
      '{"url":"https://api.example/cb?code=ab%20cd\\u0026ef-gh"}',
    ],
    ['percent and HTML entities', 'ab cd&ef-gh', '<a href="/cb?code=ab%20cd&amp;ef-gh">'],
    ['JSON and HTML entities', 'ab"cd&ef-gh', '{"m":"ab\\"cd&amp;ef-gh"}'],
  ])('hides %s', (_name, secret, text) => {
    const out = redactorWith(secret).redact(text);
    expect(out).toContain(REDACTED);
    expect(out).not.toMatch(/ef-gh/);
  });
});

describe('a short secret inside Basic auth', () => {
  it.each(['id', 'cid', 'user', 'robot', 'client'])('hides a 5-byte secret after the client id %j', (user) => {
    const encoded = Buffer.from(`${user}:abcde`).toString('base64');
    const out = redactorWith('abcde').redact(`Authorization: Basic ${encoded}`);
    expect(out).toContain(REDACTED);
    expect(out).not.toContain(innerRun(encoded, user.length + 1, 5));
  });

  it('hides a secret of 5 bytes or more inside any Basic pair (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 12 }),
        fc.string({ minLength: 5, maxLength: 30 }).filter((s) => s.trim() === s),
        (user, secret) => {
          const encoded = Buffer.from(`${user}:${secret}`).toString('base64');
          const out = redactorWith(secret).redact(`Basic ${encoded}`);
          expect(out).not.toContain(innerRun(encoded, Buffer.byteLength(user) + 1, Buffer.byteLength(secret)));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('an emoji secret under ensure_ascii (surrogate-pair escapes)', () => {
  const secret = 'pass🔑word-42';

  it.each<[string, string]>([
    ["Python's json.dumps", '{"secret": "pass\\ud83d\\udd11word-42"}'],
    ['upper-case escapes', '{"secret": "pass\\uD83D\\uDD11word-42"}'],
  ])('hides it from %s', (_name, text) => {
    expect(redactorWith(secret).redact(text)).toBe(`{"secret": "${REDACTED}"}`);
  });

  it('hides a secret that is all astral characters', () => {
    const emoji = '🔑🔒🗝️🔐';
    const escaped = JSON.stringify(emoji)
      .slice(1, -1)
      .replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    expect(redactorWith(emoji).redact(`x ${escaped} y`)).toBe(`x ${REDACTED} y`);
  });

  it('reads a lone surrogate escape as no part of a secret, and keeps the text', () => {
    const redactor = redactorWith('pass🔑word-42');
    expect(redactor.redact('"pass\\ud83dword-42"')).toBe('"pass\\ud83dword-42"');
    expect(redactor.redact('"pass\\udd11word-42"')).toBe('"pass\\udd11word-42"');
    expect(redactor.redact('"pass\\ud83d\\u0041word-42"')).toBe('"pass\\ud83d\\u0041word-42"');
  });
});

describe('HTML entities the redactor does not know', () => {
  it.each<[string, string, string]>([
    [
      'a named entity of a symbol',
      '&copy; 2026 ACME — invalid client hunter2-pass',
      `&copy; 2026 ACME — invalid client ${REDACTED}`,
    ],
    ['an entity written after the secret', 'hunter2-pass&trade;', `${REDACTED}&trade;`],
    ['a code point past Unicode', '&#1114112; hunter2-pass', `&#1114112; ${REDACTED}`],
    ['a surrogate code point', '&#xD800; hunter2-pass', `&#xD800; ${REDACTED}`],
    ['a name that every object inherits', '&toString; &valueOf; hunter2-pass', `&toString; &valueOf; ${REDACTED}`],
  ])('keeps %s as written and still hides the secret', (_name, text, expected) => {
    expect(redactorWith('hunter2-pass').redact(text)).toBe(expected);
  });

  it('shows a message with unknown entities and no secret unchanged, not as "not shown"', () => {
    const text = '<p>&copy; ACME &mdash; the service is down &hellip;</p>';
    expect(redactorWith('hunter2-pass').redact(text)).toBe(text);
  });

  it('decodes the named and numeric entities a secret may travel in, in any case', () => {
    const secret = 'a<b>c&d"e\'f';
    const redactor = redactorWith(secret);
    for (const echo of [
      'a&lt;b&gt;c&amp;d&quot;e&apos;f',
      'a&LT;b&GT;c&AMP;d&QUOT;e&#39;f',
      'a&#60;b&#x3e;c&#X26;d&#34;e&#x27;f',
    ]) {
      expect(redactor.redact(`[${echo}]`)).toBe(`[${REDACTED}]`);
    }
  });
});

describe('case, and the shortest secrets', () => {
  it.each<[string, string]>([
    ['upper-cased', 'ZEBRA-AZURE-ZZ'],
    ['lower-cased', 'zebra-azure-zz'],
    ['as registered', 'Zebra-Azure-zZ'],
  ])('hides a secret with A and Z in it %s', (_name, echo) => {
    expect(redactorWith('Zebra-Azure-zZ').redact(`<${echo}>`)).toBe(`<${REDACTED}>`);
  });

  it('hides a non-ASCII secret of four UTF-8 bytes, and not one of three', () => {
    expect(redactorWith('ñé').redact('pin ñé!')).toBe(`pin ${REDACTED}!`);
    expect(redactorWith('ñé').redact('pin ÑÉ!')).toBe(`pin ${REDACTED}!`);
    expect(redactorWith('ña').redact('pin ña!')).toBe('pin ña!');
  });

  it('hides a secret split by HTML line-break entities', () => {
    expect(redactorWith('abcd-efgh-ijkl').redact('<p>abcd-ef&#13;&#10;gh-ijkl</p>')).toBe(`<p>${REDACTED}</p>`);
    expect(redactorWith('abcd-efgh-ijkl').redact('<p>abcd-ef&NewLine;gh-ijkl</p>')).toBe(`<p>${REDACTED}</p>`);
  });

  it('hides any secret of Latin, Greek, Cyrillic or astral characters with every character \\u-escaped (property)', () => {
    const char = fc
      .oneof(fc.integer({ min: 0x20, max: 0x7ff }), fc.integer({ min: 0x1f300, max: 0x1f5ff }))
      .map((cp) => String.fromCodePoint(cp));
    fc.assert(
      fc.property(
        fc
          .array(char, { minLength: 4, maxLength: 12 })
          .map((chars) => chars.join(''))
          .filter((s) => s.trim() === s),
        (secret) => {
          // One escape per UTF-16 unit, as ensure_ascii writes them: an astral character is a surrogate pair.
          const escaped = secret
            .split('')
            .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
            .join('');
          expect(redactorWith(secret).redact(`"${escaped}"`)).toBe(`"${REDACTED}"`);
        },
      ),
      { numRuns: 200 },
    );
  });
});
