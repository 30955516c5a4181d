// How doctor describes a credential without showing it, and its two report formats.
import { describe, expect, it } from 'vitest';
import { formatJson, formatText } from '../../src/cli/doctor-report.js';
import { describeToken, describeTokenKind, stage } from '../../src/use-case/doctor/stage.js';

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>) => `${part({ alg: 'RS256' })}.${part(claims)}.c2ln`;

const both = (redact: (text: string) => string) => ({ redact, redactFrame: redact });
describe('describeToken', () => {
  it("gives a JWT's registered claims, times as RFC 3339, and only the names of the others", () => {
    const token = jwt({
      iss: 'https://issuer',
      sub: 'alice',
      aud: ['kubernetes', 'argocd'],
      exp: 1_800_000_000,
      iat: 1_799_999_700,
      email: 'secret-ish@example.test',
      'https://example.test/claims/groups': ['a'],
      [`x${'y'.repeat(60)}`]: 1,
    });
    const kind = describeToken(token);
    expect(kind).toEqual({
      kind: 'JWT',
      length: token.length,
      claims: {
        iss: 'https://issuer',
        sub: 'alice',
        aud: 'kubernetes,argocd',
        exp: '2027-01-15T08:00:00Z',
        iat: '2027-01-15T07:55:00Z',
      },
      otherClaims: ['email', '(2 more)'],
    });
    expect(describeTokenKind(kind, (t) => t)).not.toContain('secret-ish');
  });

  it.each([
    ['an opaque token', 'ya29.opaque-token-value'],
    ['three parts that are not JSON', 'a.b.c'],
    ['a JWT whose payload is an array', `${part({})}.${part([1])}.x`],
  ])('gives only the length of %s', (_what, token) => {
    expect(describeToken(token)).toEqual({ kind: 'opaque', length: token.length });
    expect(describeTokenKind(describeToken(token), (t) => t)).toBe(`token, opaque, ${token.length} characters`);
  });

  it('shows an exp past what a date can carry as written, cut', () => {
    expect(describeToken(jwt({ exp: 1e300 })).claims).toEqual({ exp: '1e+300' });
  });
});

describe('the report', () => {
  const stages = [
    stage('source', 'pass', 'config from --config c.yaml'),
    { ...stage('config', 'fail', 'env.KEY is not set\nsecond line'), exitCode: 2 as const },
    stage('token API', 'skip', 'not run'),
  ];
  stages[0]!.notes.push('a note');

  it('is one line per stage in text, redacted, line breaks folded', () => {
    expect(
      formatText(
        stages,
        both((text) => text.replace('KEY', '[REDACTED]')),
      ),
    ).toBe(
      '✓ source      config from --config c.yaml; note: a note\n✗ config      env.[REDACTED] is not set second line\n– token API   not run\n',
    );
  });

  it('is one JSON document with -o json', () => {
    const document = JSON.parse(
      formatJson(
        stages,
        2,
        both((text) => text),
      ),
    ) as {
      exitCode: number;
      stages: Array<{ name: string; exitCode?: number }>;
    };
    expect(document.exitCode).toBe(2);
    expect(document.stages.map((s) => [s.name, s.exitCode])).toEqual([
      ['source', undefined],
      ['config', 2],
      ['token API', undefined],
    ]);
  });

  // A claim or a username a cluster names reaches a terminal here: an override (U+202E) or an isolate
  // would reorder what a person reads, a zero-width space or a tag hide a difference, a C1 CSI move
  // the cursor. Each is shown as its escape, in text and in JSON (where the escape reads back as it was).
  const hostile = 'eve\u202eloot\u2066x\u2069\u200b\ufeff\u{e0041}\u2028\u009b2K\u001b[2J\ud800';
  const named = [stage('cluster', 'pass', `user ${hostile}`)];
  // Every control but the line feed, every format character, separators, lone surrogates.
  const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;

  it('shows format and control characters a server named as escapes, in text', () => {
    const text = formatText(
      named,
      both((t) => t),
    );
    expect(text).not.toMatch(RAW);
    expect(text).toBe(
      '✓ cluster     user eve\\u202eloot\\u2066x\\u2069\\u200b\\ufeff\\udb40\\udc41\\u2028\\u009b2K\\u001b[2J\\ud800\n',
    );
  });

  it('shows them as escapes in JSON too, which read back as the text the server sent', () => {
    const json = formatJson(
      named,
      0,
      both((t) => t),
    );
    expect(json).not.toMatch(RAW);
    expect((JSON.parse(json) as { stages: Array<{ summary: string }> }).stages[0]!.summary).toBe(`user ${hostile}`);
  });
});
