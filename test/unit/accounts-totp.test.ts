import { generate } from 'otplib';
import { describe, expect, it } from 'vitest';
import {
  matchTotpStep,
  newRecoveryCode,
  newTotpSecret,
  normalizeRecoveryCode,
  normalizeTotpCode,
  recoveryCodeDigest,
  timeStepAt,
  totpSetupUri,
} from '../../src/factors/totp.js';
import { ConfigError, loadConfig } from '../../src/platform/config.js';
import { SecretBox } from '../../src/platform/crypto.js';

// Issue 10 item 4, decision 0012: RFC 6238 codes (30 s, 6 digits) within ±1
// step, once per step; recovery codes shown once and stored as keyed digests.

const secret = newTotpSecret();
const at = new Date('2026-11-23T12:00:10Z');
const codeAt = (steps: number) => generate({ secret, epoch: Math.floor(at.getTime() / 1000) + steps * 30 });

describe('TOTP model', () => {
  it('time steps are unix seconds / 30', () => {
    expect(timeStepAt(new Date(0))).toBe(0);
    expect(timeStepAt(new Date(29_999))).toBe(0);
    expect(timeStepAt(new Date(30_000))).toBe(1);
  });

  it('a code is six digits; spaces are ignored', () => {
    expect(normalizeTotpCode(' 123 456 ')).toBe('123456');
    for (const bad of ['12345', '1234567', 'abcdef', '12345a', '']) expect(normalizeTotpCode(bad)).toBeNull();
  });

  it('matches the current step and one either side, not two away', async () => {
    const current = timeStepAt(at);
    expect(await matchTotpStep(secret, await codeAt(0), at, null)).toBe(current);
    expect(await matchTotpStep(secret, await codeAt(-1), at, null)).toBe(current - 1);
    expect(await matchTotpStep(secret, await codeAt(1), at, null)).toBe(current + 1);
    expect(await matchTotpStep(secret, await codeAt(-2), at, null)).toBeNull();
    expect(await matchTotpStep(secret, await codeAt(2), at, null)).toBeNull();
  });

  it('refuses a step at or before the last one used (no replay)', async () => {
    const current = timeStepAt(at);
    expect(await matchTotpStep(secret, await codeAt(0), at, current)).toBeNull();
    expect(await matchTotpStep(secret, await codeAt(-1), at, current - 1)).toBeNull();
    expect(await matchTotpStep(secret, await codeAt(1), at, current)).toBe(current + 1);
  });

  it('the setup URI is otpauth://totp with the brand as issuer and the secret', () => {
    const uri = new URL(totpSetupUri('Acme', 'user-1', secret));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(uri.searchParams.get('issuer')).toBe('Acme');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(uri.pathname)).toBe('/Acme:user-1');
  });
});

describe('recovery codes', () => {
  it('look like xxxxx-xxxxx without ambiguous characters, and are distinct', () => {
    const codes = Array.from({ length: 200 }, newRecoveryCode);
    for (const code of codes) expect(code).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('are compared ignoring case, spaces and hyphens; digests are keyed and bound to the user', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const other = new SecretBox(Buffer.alloc(32, 8));
    expect(normalizeRecoveryCode(' AbCdE-fGhJk ')).toBe('abcdefghjk');
    const digest = recoveryCodeDigest(box, 'user-1', 'abcde-fghjk');
    expect(recoveryCodeDigest(box, 'user-1', 'ABCDE FGHJK')).toBe(digest);
    expect(recoveryCodeDigest(box, 'user-2', 'abcde-fghjk')).not.toBe(digest);
    expect(recoveryCodeDigest(other, 'user-1', 'abcde-fghjk')).not.toBe(digest);
    expect(digest).not.toContain('abcde');
  });
});

describe('MFA_FRESH_MINUTES', () => {
  it('defaults to 10 minutes; a whole number from 1 to 1440', () => {
    expect(loadConfig({}).mfaFreshMinutes).toBe(10);
    expect(loadConfig({ MFA_FRESH_MINUTES: '5' }).mfaFreshMinutes).toBe(5);
    for (const bad of ['0', '1441', '2.5', 'ten']) expect(() => loadConfig({ MFA_FRESH_MINUTES: bad })).toThrow(ConfigError);
  });
});
