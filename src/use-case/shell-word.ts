// One word of a command line that a person pastes into a POSIX shell (login's refusal, cluster-auth's
// kube-apiserver flags): read back as the very same word, and on one line whatever it holds.
import { UNSHOWABLE } from '../errors.js';

/** A word as a POSIX shell reads it back: plain, '…', or bash's $'…' when it holds a control or format character. */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (!UNSHOWABLE.test(word)) return `'${word.replaceAll("'", "'\\''")}'`;
  const escaped = [...word].map((c) => {
    if (c === '\\' || c === "'") return `\\${c}`;
    if (!UNSHOWABLE.test(c)) return c;
    const code = c.codePointAt(0)!;
    // \xHH is one byte to the shell, not a character: only ASCII is written so; from U+0080, \u.
    return code < 0x80
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : code <= 0xffff
        ? `\\u${code.toString(16).padStart(4, '0')}`
        : `\\U${code.toString(16).padStart(8, '0')}`;
  });
  return `$'${escaped.join('')}'`;
}
