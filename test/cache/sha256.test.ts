import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex, sha256Hex } from '../../src/cache/sha256.js';

const reference = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

describe('sha256Hex', () => {
  it.each([
    ['the empty string', ''],
    ['"abc" (the FIPS 180-4 example)', 'abc'],
    ['a 448-bit message that needs a second padding block', 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'],
    ['55 bytes, the most that fits with its padding in one block', 'x'.repeat(55)],
    ['56 bytes, the first length that spills into a second block', 'x'.repeat(56)],
    ['64 bytes, exactly one block of data', 'y'.repeat(64)],
    ['multi-byte UTF-8', 'tökén ✓ 🔑'],
  ])('matches node:crypto on %s', (_name, input) => {
    expect(sha256Hex(input)).toBe(reference(input));
  });

  it('matches node:crypto on random inputs of every length up to 300 bytes', () => {
    for (let length = 0; length <= 300; length++) {
      const data = randomBytes(length);
      expect(sha256Hex(data)).toBe(reference(data));
    }
  });

  it('gives the well-known digest of "abc"', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('hmacSha256Hex', () => {
  const referenceHmac = (key: Uint8Array, data: string | Uint8Array) =>
    createHmac('sha256', key).update(data).digest('hex');

  it('gives the RFC 4231 test case 2 value', () => {
    expect(hmacSha256Hex(Buffer.from('Jefe'), 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('matches node:crypto for keys shorter than, equal to and longer than a block, and any message', () => {
    for (const keyLength of [0, 1, 32, 63, 64, 65, 131]) {
      for (const messageLength of [0, 1, 55, 64, 200]) {
        const key = randomBytes(keyLength);
        const message = randomBytes(messageLength);
        expect(hmacSha256Hex(key, message)).toBe(referenceHmac(key, message));
      }
    }
  });
});
