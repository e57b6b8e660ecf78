import { randomInt } from 'node:crypto';
import type { SecretBox } from '../platform/crypto.js';
import type { MailMessage } from '../platform/mail/mail.js';

/** How long an e-mailed code can be used (issue 10: short-lived). */
export const EMAIL_CODE_LIFETIME_MS = 10 * 60 * 1000;
/** Wrong codes a challenge survives; at this many it is dead, the right code included. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** Starts allowed per address within the window (issue 10: starts are throttled per address). */
export const EMAIL_STARTS_PER_WINDOW = 5;
export const EMAIL_START_WINDOW_MS = 15 * 60 * 1000;

const CODE = /^\d{6}$/;

/** Six uniformly random decimal digits from the system CSPRNG. */
export function newEmailCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

export function isEmailCodeShape(code: string): boolean {
  return CODE.test(code);
}

/**
 * What is stored of a code: keyed by SECRET_KEY (a million codes are no
 * obstacle to brute force of a plain hash) and bound to its challenge, so a
 * digest says nothing about another challenge's code.
 */
export function emailCodeDigest(secrets: SecretBox, challengeId: string, code: string): string {
  return secrets.digest('email-sign-in-code', `${challengeId}:${code}`);
}

export function emailCodeMessage(brand: string, to: string, code: string): MailMessage {
  const minutes = EMAIL_CODE_LIFETIME_MS / 60_000;
  return {
    to,
    subject: `Your ${brand} sign-in code`,
    text: [
      `Your ${brand} sign-in code is ${code}`,
      '',
      `It works once, for ${minutes} minutes. If you did not ask to sign in, ignore this message: nobody can sign in without the code.`,
    ].join('\n'),
  };
}
