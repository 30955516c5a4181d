// What a hostile device server puts in front of a person: every format character (bidi marks,
// embeddings, isolates, zero-width ones, U+FEFF, tags), line separators and lone surrogates, in
// user_code, in the verification URIs, and in the error and error_description of a refusal. The
// prompt refuses them; a message shows them escaped, never as the characters a terminal acts on.
import { describe, expect, it } from 'vitest';
import { terminalSafe } from '../../src/errors.js';
import { promptLines, readDeviceAuthorization } from '../../src/login/grants/device.js';
import { readTokenAnswer } from '../../src/login/token.js';

const HOSTILE = [
  '\u200e',
  '\u200f',
  '\u061c', // LRM, RLM, ALM
  '\u202a',
  '\u202e',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069', // embeddings, overrides, isolates
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u2061',
  '\u2064',
  '\ufeff',
  '\u00ad', // zero-width, invisible
  '\u206a',
  '\u206f',
  '\ufff9',
  '\ufffb',
  '\u{e0001}',
  '\u{e0041}', // deprecated formats, annotations, tags
  '\u2028',
  '\u2029',
  '\ud800',
  '\udfff', // separators, lone surrogates
  '\u001b',
  '\u0085',
  '\u009b',
  '\u007f', // controls, C0 and C1
];
const good = {
  device_code: 'dc-secret',
  user_code: 'WDJB-MJHT',
  verification_uri: 'https://idp.example/device',
  expires_in: 600,
};
const hex = (c: string) =>
  [...Array(c.length).keys()].map((i) => c.charCodeAt(i).toString(16).padStart(4, '0')).join(' ');

function message(answer: Record<string, unknown>): string {
  try {
    readTokenAnswer(400, answer, 'device_code');
  } catch (error) {
    // What the report writes (cli/report.ts escapes C1 on every line).
    return terminalSafe((error as Error).message);
  }
  throw new Error('readTokenAnswer did not refuse');
}

describe.each(HOSTILE.map((c) => [hex(c), c] as const))('U+%s', (_name, c) => {
  it('in user_code: no prompt', () => {
    expect(() => readDeviceAuthorization({ ...good, user_code: `WDJB${c}MJHT` })).toThrow(
      'a user_code that is not a short code of printable ASCII without spaces',
    );
  });

  it('in verification_uri: no prompt', () => {
    expect(() => readDeviceAuthorization({ ...good, verification_uri: `https://idp.example/device${c}x` })).toThrow(
      'a verification_uri that is not an http(s) URL',
    );
  });

  it('in verification_uri_complete: the prompt shows verification_uri and the code instead', () => {
    const lines = promptLines(
      readDeviceAuthorization({ ...good, verification_uri_complete: `https://idp.example/device?code=WDJB${c}MJHT` }),
    );
    expect(lines).toEqual([
      'to log in, open https://idp.example/device',
      'and enter the code WDJB-MJHT (within 10 minutes; Ctrl-C cancels)',
    ]);
  });

  it('in error and error_description: escaped in the message', () => {
    const shown = message({ error: `invalid${c}grant`, error_description: `see${c}here` });
    expect(shown).not.toMatch(/[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u);
    expect(shown).toBe(
      `the token endpoint refused the device code with 400: "invalid${escaped(c)}grant" ("see${escaped(c)}here")`,
    );
  });
});

function escaped(c: string): string {
  return [...Array(c.length).keys()].map((i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
}

describe('a verification URI with user info (the host a person reads is not the one opened)', () => {
  it.each([
    'https://idp.example.com@evil.example/device',
    'https://idp.example.com:443@evil.example/device',
    'https://login.idp.example.com:x@evil.example',
    'https://@evil.example/device',
    'HTTPS://idp.example.com@evil.example/device',
  ])('%s: no prompt from verification_uri; dropped as verification_uri_complete', (uri) => {
    expect(() => readDeviceAuthorization({ ...good, verification_uri: uri })).toThrow(
      'a verification_uri that is not an http(s) URL',
    );
    expect(promptLines(readDeviceAuthorization({ ...good, verification_uri_complete: uri }))[0]).toBe(
      'to log in, open https://idp.example/device',
    );
  });

  it('an @ in the path or query is no user info', () => {
    expect(
      readDeviceAuthorization({ ...good, verification_uri: 'https://idp.example/device/@me?u=a@b' }).verificationUri,
    ).toBe('https://idp.example/device/@me?u=a@b');
  });
});
