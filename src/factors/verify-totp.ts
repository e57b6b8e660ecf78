import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import { inTransaction, type Db } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { meetsMfaRequirement, type SessionPrincipal } from '../platform/http/principal.js';
import { findUser } from '../accounts/index.js';
import { countWrongCode, sessionOutOfMfaAttempts, type WrongCodeOutcome } from './mfa-failures.js';
import { confirmPendingTotpSecret, lockTotpFactor, markSessionMfaPassed, recordTotpStep, replaceRecoveryCodes } from './mfa.repository.js';
import { sessionUserView, type SessionUserView } from '../accounts/index.js';
import { RECOVERY_CODE_COUNT, matchTotpStep, newRecoveryCode, normalizeTotpCode, recoveryCodeDigest } from './totp.js';

export interface VerifyTotpDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly mfaFreshWindowMs: number;
}

export interface TotpVerified {
  readonly user: SessionUserView;
  /** Only when confirming an enrollment: shown once, stored as digests. */
  readonly recoveryCodes?: readonly string[];
}

type Outcome =
  | { readonly kind: 'verified'; readonly result: TotpVerified }
  | WrongCodeOutcome
  | { readonly kind: 'invalid_state' }
  | { readonly kind: 'mfa_required' };

/**
 * SPEC "Sign-in" POST /auth/totp/verify. Without `enroll`: the session passes
 * the user's second factor (`mfa_at` = now). With `enroll`: the pending
 * secret becomes the factor and ten new recovery codes replace any earlier
 * ones; replacing a confirmed factor needs a fresh confirmation (factor
 * change). A code is accepted once (its time step is stored), within ±1
 * step; wrong codes count against the session (mfa-failures.ts).
 * Refusals: invalid_code, invalid_state (nothing to verify or confirm),
 * mfa_required, unauthorized (the session's last attempt).
 */
export async function verifyTotp(
  deps: VerifyTotpDeps,
  input: { readonly session: SessionPrincipal; readonly code: string; readonly enroll: boolean },
): Promise<TotpVerified> {
  const { session } = input;
  const outcome = await inTransaction(deps.db, async (trx): Promise<Outcome> => {
    const now = deps.clock.now();
    const factor = await lockTotpFactor(trx, session.userId);
    const sealed = input.enroll ? factor?.pendingSecretSealed : factor?.confirmedAt == null ? null : factor.secretSealed;
    if (factor === undefined || sealed === null || sealed === undefined) return { kind: 'invalid_state' };
    if (input.enroll && factor.confirmedAt !== null && !meetsMfaRequirement(session, 'fresh', now, deps.mfaFreshWindowMs)) {
      return { kind: 'mfa_required' };
    }
    if (await sessionOutOfMfaAttempts(trx, session.sessionId)) return { kind: 'revoked' };

    const code = normalizeTotpCode(input.code);
    const lastUsedStep = input.enroll ? null : factor.lastUsedStep;
    const step = code === null ? null : await matchTotpStep(deps.secrets.open(sealed), code, now, lastUsedStep);
    if (step === null) return countWrongCode(trx, session.sessionId, now);

    let recoveryCodes: string[] | undefined;
    if (input.enroll) {
      await confirmPendingTotpSecret(trx, session.userId, now, step);
      recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
      const digests = recoveryCodes.map((plain) => ({ id: newId(), digest: recoveryCodeDigest(deps.secrets, session.userId, plain) }));
      await replaceRecoveryCodes(trx, session.userId, digests, now);
    } else {
      await recordTotpStep(trx, session.userId, step);
    }
    await markSessionMfaPassed(trx, session.sessionId, now);
    const user = await findUser(trx, session.userId);
    if (user === undefined) throw new Error(`session ${session.sessionId} has no user`);
    const result = { user: sessionUserView(user, now), ...(recoveryCodes === undefined ? {} : { recoveryCodes }) };
    return { kind: 'verified', result };
  });
  if (outcome.kind === 'verified') return outcome.result;
  throw new IvoryError(outcome.kind === 'revoked' ? 'unauthorized' : outcome.kind);
}
