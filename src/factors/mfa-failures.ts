import type { Tx } from '../platform/database/database.js';
import { revokeSession } from '../accounts/index.js';
import { countSessionMfaFailure, findSessionMfaFailures } from './mfa.repository.js';
import { MFA_MAX_FAILURES } from './totp.js';

/** Why a second-factor code was refused: `revoked` when the session used up its attempts. */
export type WrongCodeOutcome = { readonly kind: 'invalid_code' } | { readonly kind: 'revoked' };

/** True when the session has no attempt left (it is revoked by the last one, so this is a guard). */
export async function sessionOutOfMfaAttempts(trx: Tx, sessionId: string): Promise<boolean> {
  return (await findSessionMfaFailures(trx, sessionId)) >= MFA_MAX_FAILURES;
}

/**
 * Counts a wrong code against the session and, at MFA_MAX_FAILURES, revokes
 * it: guessing then needs a new sign-in with the primary factor. The caller
 * commits before refusing, so the count survives the refusal.
 */
export async function countWrongCode(trx: Tx, sessionId: string, now: Date): Promise<WrongCodeOutcome> {
  const failures = await countSessionMfaFailure(trx, sessionId);
  if (failures < MFA_MAX_FAILURES) return { kind: 'invalid_code' };
  await revokeSession(trx, sessionId, now);
  return { kind: 'revoked' };
}
