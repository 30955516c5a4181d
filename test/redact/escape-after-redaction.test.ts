// shownOnTerminal escapes a line after its redaction. A secret whose own spelling is a JSON escape of
// a character it escapes (tok\u202e…: a password holding a backslash) is not found in a text that
// holds the character decoded (a server that read the value from a JSON text it was pasted into,
// and echoes it): the escaping then wrote the secret out, byte for byte, and is redacted again.
import { expect, it } from 'vitest';
import { Redactor } from '../../src/redact/redactor.js';
import { shownOnTerminal } from '../../src/errors.js';

it.each([
  ['a bidi override', 'tok\\u202eABCDEFGH12', 'tok\u202eABCDEFGH12'],
  ['a zero-width space', 'pw\\u200bQwErTy-7788', 'pw\u200bQwErTy-7788'],
])('escaping a redacted line never spells a secret (%s)', (_name, secret, echoed) => {
  const redactor = new Redactor();
  redactor.add(secret);
  const shown = shownOnTerminal(`the token API said: invalid client_secret "${echoed}"`, (text) =>
    redactor.redact(text),
  );
  expect(shown).not.toContain(secret);
});
