import { describe, expect, it } from 'vitest';
import { keptTransports, normalizePasskeyName, relyingPartyOf } from '../../src/factors/passkeys.js';
import { cborEncode } from '../support/software-authenticator.js';

// Issue 10, item 5: the pure rules of passkeys, and the test authenticator's
// CBOR encoder against RFC 8949 Appendix A vectors (what the API tests rely on).

describe('relying party from PUBLIC_URL', () => {
  it('RP id is the host name without port; origin keeps scheme and port', () => {
    expect(relyingPartyOf('https://pay.example.com')).toEqual({ rpId: 'pay.example.com', origin: 'https://pay.example.com' });
    expect(relyingPartyOf('http://localhost:3000/some/path')).toEqual({ rpId: 'localhost', origin: 'http://localhost:3000' });
  });
});

describe('passkey names (SPEC invalid_name: empty or too long)', () => {
  it('trims; refuses empty, over 64 characters and control characters', () => {
    expect(normalizePasskeyName('  Laptop ')).toBe('Laptop');
    expect(normalizePasskeyName('é'.repeat(64))).toBe('é'.repeat(64));
    expect(normalizePasskeyName('x'.repeat(65))).toBeNull();
    expect(normalizePasskeyName('   ')).toBeNull();
    expect(normalizePasskeyName('a\nb')).toBeNull();
    expect(normalizePasskeyName('a\u0085b')).toBeNull();
  });
});

describe('transport hints', () => {
  it('keeps known names once, drops the rest', () => {
    expect(keptTransports(['usb', 'internal', 'usb', 'carrier-pigeon', 3])).toEqual(['usb', 'internal']);
    expect(keptTransports('usb')).toEqual([]);
    expect(keptTransports(undefined)).toEqual([]);
  });
});

describe('CBOR encoder of the software authenticator (RFC 8949 Appendix A)', () => {
  const hex = (value: Parameters<typeof cborEncode>[0]) => cborEncode(value).toString('hex');
  it('integers', () => {
    expect(hex(0)).toBe('00');
    expect(hex(23)).toBe('17');
    expect(hex(24)).toBe('1818');
    expect(hex(1000)).toBe('1903e8');
    expect(hex(1000000)).toBe('1a000f4240');
    expect(hex(-1)).toBe('20');
    expect(hex(-7)).toBe('26');
    expect(hex(-100)).toBe('3863');
    expect(hex(-1000)).toBe('3903e7');
  });
  it('text, byte strings, arrays and maps', () => {
    expect(hex('')).toBe('60');
    expect(hex('IETF')).toBe('6449455446');
    expect(hex('ü')).toBe('62c3bc');
    expect(hex(Uint8Array.from([1, 2, 3, 4]))).toBe('4401020304');
    expect(hex([1, [2, 3]])).toBe('8201820203');
    expect(hex(new Map())).toBe('a0');
    expect(hex(new Map<number | string, number>([[1, 2], [3, 4]]))).toBe('a201020304');
    expect(hex(new Map<string, number | number[]>([['a', 1], ['b', [2, 3]]]))).toBe('a26161016162820203');
  });
});
