import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decryptApiKey,
  encryptApiKey,
  generateApiKey,
  hashApiKey,
  keyHint,
  looksLikeApiKey,
  safeEqual,
} from '../../src/domain/agents/apiKeys.js';

const secret = randomBytes(32);

/** Flips one bit of the base64url part `index` (1 iv, 2 tag, 3 ciphertext) of a stored key. */
function tamper(stored: string, index: number): string {
  const parts = stored.split(':');
  const bytes = Buffer.from(parts[index]!, 'base64url');
  bytes[0] = bytes[0]! ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join(':');
}

describe('API keys', () => {
  it('are hr_ plus 64 hex characters, and all different', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^hr_[0-9a-f]{64}$/);
      expect(looksLikeApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('looksLikeApiKey refuses short, unprefixed and huge values', () => {
    expect(looksLikeApiKey('hr_short')).toBe(false);
    expect(looksLikeApiKey(`xx_${'a'.repeat(64)}`)).toBe(false);
    expect(looksLikeApiKey(`hr_${'a'.repeat(300)}`)).toBe(false);
  });

  it('the look-up hash is a stable SHA-256 hex digest', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(hashApiKey(key)).not.toBe(hashApiKey(generateApiKey()));
    // The FIPS 180-2 test vector: the hash is plain SHA-256 of the UTF-8 key.
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('the hint shows the prefix and the last four characters only', () => {
    const key = generateApiKey();
    expect(keyHint(key)).toBe(`${key.slice(0, 7)}...${key.slice(-4)}`);
    expect(keyHint(key)).not.toContain(key.slice(7, -4));
  });

  it('encrypt/decrypt round trip, with a fresh IV each time', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (key) => {
        expect(decryptApiKey(encryptApiKey(key, secret), secret)).toBe(key);
      }),
    );
    const key = generateApiKey();
    const a = encryptApiKey(key, secret);
    const b = encryptApiKey(key, secret);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^v1:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(a).not.toContain(key);
    expect(a).not.toContain(key.slice(3, 20));
  });

  it.each([
    [1, 'the IV'],
    [2, 'the tag'],
    [3, 'the ciphertext'],
  ])('a change to %s part (%s) makes decryption throw', (index) => {
    const stored = encryptApiKey(generateApiKey(), secret);
    expect(() => decryptApiKey(tamper(stored, index), secret)).toThrow();
  });

  it('the wrong secret, another version or a malformed value throws', () => {
    const stored = encryptApiKey(generateApiKey(), secret);
    expect(() => decryptApiKey(stored, randomBytes(32))).toThrow();
    expect(() => decryptApiKey(stored.replace(/^v1:/, 'v2:'), secret)).toThrow();
    expect(() => decryptApiKey('v1:abc', secret)).toThrow();
    expect(() => decryptApiKey('', secret)).toThrow();
    const [v, iv, tag, ct] = stored.split(':');
    expect(() => decryptApiKey([v, iv, tag, ct!.slice(0, -2)].join(':'), secret)).toThrow();
  });

  it('safeEqual compares exactly', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});
