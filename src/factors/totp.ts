import { randomBytes } from 'node:crypto';
import { generate, generateSecret, generateURI } from 'otplib';
import { constantTimeEqual, type SecretBox } from '../platform/crypto.js';

/** RFC 6238 defaults that every authenticator app understands: SHA-1, 6 digits, 30 s. */
export const TOTP_PERIOD_SECONDS = 30;
/** A code of the previous or next time step is accepted too (clock drift, slow typing). */
export const TOTP_WINDOW_STEPS = 1;
/** Wrong codes (TOTP and recovery) one session may give; the last one revokes it (decision 0012). */
export const MFA_MAX_FAILURES = 5;
export const RECOVERY_CODE_COUNT = 10;

export function timeStepAt(at: Date): number {
  return Math.floor(at.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** A code as typed, spaces removed; null unless it is six digits. */
export function normalizeTotpCode(code: string): string | null {
  const compact = code.replace(/\s+/g, '');
  return /^\d{6}$/.test(compact) ? compact : null;
}

/** A fresh Base32 secret of 20 random bytes (otplib's default, RFC 4226's recommendation). */
export function newTotpSecret(): string {
  return generateSecret();
}

/** The `otpauth://totp/…` setup URI, issuer = the operator's brand. */
export function totpSetupUri(brand: string, accountLabel: string, secret: string): string {
  return generateURI({ issuer: brand, label: accountLabel, secret, period: TOTP_PERIOD_SECONDS });
}

/**
 * The time step, within ±TOTP_WINDOW_STEPS of `now` and later than
 * `lastUsedStep`, whose code is `code`; null when none is. Every step of the
 * window is computed and compared in constant time, so the time taken does
 * not tell which step (if any) matched. Refusing steps up to `lastUsedStep`
 * is what makes a code usable once.
 */
export async function matchTotpStep(secret: string, code: string, now: Date, lastUsedStep: number | null): Promise<number | null> {
  const current = timeStepAt(now);
  let matched: number | null = null;
  for (let step = current - TOTP_WINDOW_STEPS; step <= current + TOTP_WINDOW_STEPS; step += 1) {
    const expected = await generate({ secret, epoch: step * TOTP_PERIOD_SECONDS, period: TOTP_PERIOD_SECONDS });
    const equal = constantTimeEqual(expected, code);
    if (equal && matched === null && (lastUsedStep === null || step > lastUsedStep)) matched = step;
  }
  return matched;
}

const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no 0/o, 1/l/i

/** A recovery code shown once: `xxxxx-xxxxx`, about 49 bits. */
export function newRecoveryCode(): string {
  const bytes = randomBytes(10);
  const characters = [...bytes].map((byte) => RECOVERY_ALPHABET[byte % RECOVERY_ALPHABET.length]);
  return `${characters.slice(0, 5).join('')}-${characters.slice(5).join('')}`;
}

/** Case, spaces and hyphens do not matter when a recovery code is typed back. */
export function normalizeRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]+/g, '');
}

/**
 * Only a keyed digest of a recovery code is stored, bound to its user: a
 * leaked table cannot be brute-forced without SECRET_KEY.
 */
export function recoveryCodeDigest(secrets: SecretBox, userId: string, code: string): string {
  return secrets.digest('recovery-code', `${userId}:${normalizeRecoveryCode(code)}`);
}
