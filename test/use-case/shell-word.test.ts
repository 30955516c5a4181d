// shellWord: one word a person pastes into a POSIX shell (login's refusal, cluster-auth's kube-apiserver
// flags), read back as the very same word.
//
// A character up to U+00FF once came out as $'\xHH'. In bash (and zsh, and POSIX $'…') \xHH is
// one byte, not a character: U+00AD (a soft hyphen, pasted from a web page) comes back as the
// byte 0xAD, invalid UTF-8, not as C2 AD; so do the C1 controls. The pasted login then reads another
// --set value or another config path than the call that refused, and fills no entry it reads.
import { describe, expect, it } from 'vitest';
import { shellWord } from '../../src/use-case/shell-word.js';

/** The bytes bash makes of one $'…' word (only the escapes shellWord writes). */
function bashBytes(word: string): Buffer {
  const body = /^\$'(.*)'$/s.exec(word);
  if (!body) throw new Error(`not a $'…' word: ${word}`);
  const parts: Buffer[] = [];
  body[1]!.replace(
    /\\x([0-9a-f]{2})|\\u([0-9a-f]{4})|\\U([0-9a-f]{8})|\\(.)|([^\\]+)/gsu,
    (_m, x?: string, u?: string, U?: string, c?: string, plain?: string) => {
      if (x) parts.push(Buffer.from([parseInt(x, 16)]));
      else if (u || U) parts.push(Buffer.from(String.fromCodePoint(parseInt((u ?? U)!, 16)), 'utf8'));
      else parts.push(Buffer.from(c ?? plain!, 'utf8'));
      return '';
    },
  );
  return Buffer.concat(parts);
}

describe("shellWord's $'…' reads back as the same UTF-8 word", () => {
  it.each([
    ['a tab (held)', 'scope=a\tb'],
    ['a soft hyphen U+00AD', 'clientId=kube\u00adctl'],
    ['a C1 control U+0085', 'scope=a\u0085b'],
  ])('%s', (_name, word) => {
    expect(bashBytes(shellWord(word)).toString('hex')).toBe(Buffer.from(word, 'utf8').toString('hex'));
  });
});

describe('shellWord', () => {
  it.each([
    ['plain', '/home/me/.kube/oidc.yaml', '/home/me/.kube/oidc.yaml'],
    ['empty', '', "''"],
    ['a space', 'a b', "'a b'"],
    ['a quote', "it's", "'it'\\''s'"],
    ['shell characters', '$HOME;`x`|*~', "'$HOME;`x`|*~'"],
    ['a tab and a quote', "a\tb'", "$'a\\x09b\\''"],
    ['a tag character', 'a\u{e0041}', "$'a\\U000e0041'"],
  ])('%s', (_name, word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});
