import type { Clock } from '../platform/clock.js';
import { constantTimeEqual, type SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { SessionPrincipal } from '../platform/http/principal.js';
import { findUser } from '../accounts/index.js';
import { countWrongCode, sessionOutOfMfaAttempts, type WrongCodeOutcome } from './mfa-failures.js';
import { listUnusedRecoveryCodes, lockTotpFactor, markSessionMfaPassed, useRecoveryCode } from './mfa.repository.js';
import { sessionUserView, type SessionUserView } from '../accounts/index.js';
import { recoveryCodeDigest } from './totp.js';

export interface RecoveryRedeemed {
  readonly user: SessionUserView;
  readonly recoveryCodesLeft: number;
}

type Outcome = { readonly kind: 'redeemed'; readonly result: RecoveryRedeemed } | WrongCodeOutcome | { readonly kind: 'invalid_state' };

/**
 * SPEC "Sign-in" POST /auth/recovery: a recovery code stands in for the
 * second factor in a session that already has the primary one (it is not a
 * login). Each code works once. The digest is compared with every unused
 * code of the user in constant time; wrong codes count against the session
 * as wrong TOTP codes do. Refusals: invalid_code, invalid_state (the user has
 * no second factor), unauthorized (the session's last attempt).
 */
export async function redeemRecoveryCode(
  deps: { readonly db: Db; readonly clock: Clock; readonly secrets: SecretBox },
  input: { readonly session: SessionPrincipal; readonly code: string },
): Promise<RecoveryRedeemed> {
  const { session } = input;
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const now = deps.clock.now();
    const factor = await lockTotpFactor(trx, session.userId);
    if (factor?.confirmedAt == null) return { kind: 'invalid_state' };
    if (await sessionOutOfMfaAttempts(trx, session.sessionId)) return { kind: 'revoked' };

    const digest = recoveryCodeDigest(deps.secrets, session.userId, input.code);
    const unused = await listUnusedRecoveryCodes(trx, session.userId);
    let matchedId: string | undefined;
    for (const candidate of unused) {
      if (constantTimeEqual(candidate.digest, digest) && matchedId === undefined) matchedId = candidate.id;
    }
    // Under the factor's row lock nobody else can use it first; the condition is a guard.
    if (matchedId === undefined || !(await useRecoveryCode(trx, matchedId, now))) return countWrongCode(trx, session.sessionId, now);

    await markSessionMfaPassed(trx, session.sessionId, now);
    const user = await findUser(trx, session.userId);
    if (user === undefined) throw new Error(`session ${session.sessionId} has no user`);
    return { kind: 'redeemed', result: { user: sessionUserView(user, now), recoveryCodesLeft: unused.length - 1 } };
  });
  if (outcome.kind === 'redeemed') return outcome.result;
  throw new IvoryError(outcome.kind === 'revoked' ? 'unauthorized' : outcome.kind);
}
