// The device prompt, hardened (SPEC "Interactive login"): the verification page's host as the ASCII
// a browser resolves (an IDN homograph reads as punycode), a note when that host is not the device
// authorization endpoint's, and a user_code of printable ASCII without spaces only.
import { describe, expect, it } from 'vitest';
import { promptLines, readDeviceAuthorization } from '../../src/login/grants/device.js';
import { isUserCode, otherHostNote } from '../../src/login/prompt-checks.js';

const good = {
  device_code: 'dc-secret',
  user_code: 'WDJB-MJHT',
  verification_uri: 'https://idp.example/device',
  expires_in: 600,
};

describe('the verification page', () => {
  it('an IDN host (a homograph of the issuer) is shown in punycode', () => {
    // "іdp.example" with a Cyrillic і (U+0456).
    const authorization = readDeviceAuthorization({ ...good, verification_uri: 'https://\u0456dp.example/device' });
    expect(authorization.verificationUri).toBe('https://xn--dp-goc.example/device');
    const lines = promptLines(authorization, 'https://idp.example/device/auth');
    expect(lines[0]).toBe('to log in, open https://xn--dp-goc.example/device');
    expect(lines).toContain(
      "note: that page is on xn--dp-goc.example, not on idp.example (the device authorization endpoint's host): open it only if xn--dp-goc.example is your identity provider's",
    );
    expect(lines.join('\n')).not.toContain('\u0456');
  });

  it('verification_uri_complete too', () => {
    const authorization = readDeviceAuthorization({
      ...good,
      verification_uri_complete: 'https://b\u00fccher.example/d?user_code=WDJB-MJHT',
    });
    expect(authorization.verificationUriComplete).toBe('https://xn--bcher-kva.example/d?user_code=WDJB-MJHT');
  });

  it('the same host as the endpoint: no note', () => {
    expect(promptLines(readDeviceAuthorization(good), 'https://idp.example/device/auth')).toEqual([
      'to log in, open https://idp.example/device',
      'and enter the code WDJB-MJHT (within 10 minutes; Ctrl-C cancels)',
    ]);
    expect(otherHostNote('https://IDP.example/x', 'https://idp.example:8443/y')).toBeUndefined();
  });
});

describe('the user_code', () => {
  it.each([
    ['WDJB-MJHT', true],
    ['12345678', true],
    ['a!~', true],
    ['x'.repeat(64), true],
    ['x'.repeat(65), false],
    ['', false],
    ['WDJB MJHT', false],
    ['WDJB\tMJHT', false],
    ['WDJB\u00a0MJHT', false],
    ['WDJ\u0412-MJHT', false],
    ['caf\u00e9', false],
    [42, false],
  ])('%j: %s', (code, ok) => {
    expect(isUserCode(code)).toBe(ok);
  });
});
