// --output's formats behind one face: the names the flag accepts, the check before anything is
// sent, and the text each prints (or not: the fast path then leaves the call to the full path).
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { V1 } from '../../src/credential/exec-credential.js';
import {
  checkOutput,
  DEFAULT_OUTPUT,
  formatOutput,
  OUTPUTS,
  OUTPUTS_DESCRIBED,
  outputNamed,
} from '../../src/credential/output/index.js';
import { caught } from '../helpers/caught.js';

const token = { token: 'tok-1', expirationTimestamp: '2030-01-01T00:00:00Z' };
const certificate = { clientCertificateData: 'CERT', clientKeyData: 'KEY' };

describe('the output formats', () => {
  it('are exec-credential (the default) and token, each described for --help', () => {
    expect(OUTPUTS).toEqual(['exec-credential', 'token']);
    expect(DEFAULT_OUTPUT).toBe('exec-credential');
    expect(OUTPUTS_DESCRIBED).toBe('what to print: an ExecCredential, or the bare token');
  });

  it.each([
    ['token', 'token'],
    ['exec-credential', 'exec-credential'],
    [undefined, 'exec-credential'],
    ['yaml', 'exec-credential'],
  ])('a flag of %s is %s', (value, name) => {
    expect(outputNamed(value)).toBe(name);
  });

  it('exec-credential prints the ExecCredential of either kind of credential', () => {
    expect(formatOutput('exec-credential', V1, token)).toBe(
      `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"token":"tok-1","expirationTimestamp":"2030-01-01T00:00:00Z"}}\n`,
    );
    expect(formatOutput('exec-credential', V1, certificate)).toBe(
      `{"apiVersion":"${V1}","kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}}\n`,
    );
  });

  it('token prints the bare token and a newline, and nothing for a client certificate', () => {
    expect(formatOutput('token', V1, token)).toBe('tok-1\n');
    expect(formatOutput('token', V1, certificate)).toBeUndefined();
  });

  it('token refuses a config without a tokenPath before anything is sent (exit 2)', () => {
    const error = caught(UsageError, () =>
      checkOutput('token', { paths: { clientCertificateData: '$.cert', clientKeyData: '$.key' } }),
    );
    expect([error.code, error.exitCode, error.message]).toEqual([
      'OUTPUT_TOKEN',
      2,
      '--output token needs a tokenPath; this config yields a client certificate',
    ]);
    expect(() => checkOutput('token', { paths: { token: '$.access_token' } })).not.toThrow();
    expect(() => checkOutput('exec-credential', { paths: { clientCertificateData: '$.cert' } })).not.toThrow();
  });
});
