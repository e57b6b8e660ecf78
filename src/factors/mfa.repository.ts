import type { Executor } from '../platform/database/database.js';

// ---- TOTP ------------------------------------------------------------------

export interface TotpFactorRow {
  readonly userId: string;
  readonly secretSealed: string | null;
  readonly confirmedAt: Date | null;
  readonly pendingSecretSealed: string | null;
  readonly lastUsedStep: number | null;
}

export async function findTotpFactor(db: Executor, userId: string): Promise<TotpFactorRow | undefined> {
  const row = await db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row === undefined ? undefined : toTotpFactor(row);
}

/** Reads the user's factor under a row lock: one user's second-factor checks run one at a time. */
export async function lockTotpFactor(db: Executor, userId: string): Promise<TotpFactorRow | undefined> {
  const row = await db.selectFrom('totp_factors').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toTotpFactor(row);
}

function toTotpFactor(row: {
  user_id: string;
  secret_sealed: string | null;
  confirmed_at: Date | null;
  pending_secret_sealed: string | null;
  last_used_step: string | null;
}): TotpFactorRow {
  return {
    userId: row.user_id,
    secretSealed: row.secret_sealed,
    confirmedAt: row.confirmed_at,
    pendingSecretSealed: row.pending_secret_sealed,
    lastUsedStep: row.last_used_step === null ? null : Number(row.last_used_step),
  };
}

/** Sets (or replaces) the pending secret; a confirmed secret stays in force until the pending one is confirmed. */
export async function savePendingTotpSecret(db: Executor, userId: string, sealed: string, at: Date): Promise<void> {
  await db
    .insertInto('totp_factors')
    .values({ user_id: userId, pending_secret_sealed: sealed, pending_created_at: at, created_at: at })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet({ pending_secret_sealed: sealed, pending_created_at: at }))
    .execute();
}

/** The pending secret becomes the user's factor; `step` (the confirming code's) cannot be used again. */
export async function confirmPendingTotpSecret(db: Executor, userId: string, at: Date, step: number): Promise<void> {
  await db
    .updateTable('totp_factors')
    .set((eb) => ({
      secret_sealed: eb.ref('pending_secret_sealed'),
      pending_secret_sealed: null,
      pending_created_at: null,
      confirmed_at: at,
      last_used_step: String(step),
    }))
    .where('user_id', '=', userId)
    .execute();
}

export async function recordTotpStep(db: Executor, userId: string, step: number): Promise<void> {
  await db.updateTable('totp_factors').set({ last_used_step: String(step) }).where('user_id', '=', userId).execute();
}

// ---- recovery codes ----------------------------------------------------------

/** The user's recovery codes become exactly these (earlier ones, used or not, stop working). */
export async function replaceRecoveryCodes(db: Executor, userId: string, codes: readonly { id: string; digest: string }[], at: Date): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
  await db
    .insertInto('recovery_codes')
    .values(codes.map((code) => ({ id: code.id, user_id: userId, code_digest: code.digest, created_at: at })))
    .execute();
}

export async function listUnusedRecoveryCodes(db: Executor, userId: string): Promise<{ id: string; digest: string }[]> {
  const rows = await db
    .selectFrom('recovery_codes')
    .select(['id', 'code_digest'])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, digest: row.code_digest }));
}

/** Marks the code used if it still was unused; false otherwise. */
export async function useRecoveryCode(db: Executor, codeId: string, at: Date): Promise<boolean> {
  const used = await db
    .updateTable('recovery_codes')
    .set({ used_at: at })
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return used !== undefined;
}

// ---- the MFA state of sessions ---------------------------------------------

export async function findSessionMfaFailures(db: Executor, sessionId: string): Promise<number> {
  const row = await db.selectFrom('sessions').select('mfa_failures').where('id', '=', sessionId).executeTakeFirst();
  return row?.mfa_failures ?? 0;
}

/** Counts one wrong code against the session; returns the new count. */
export async function countSessionMfaFailure(db: Executor, sessionId: string): Promise<number> {
  const row = await db
    .updateTable('sessions')
    .set((eb) => ({ mfa_failures: eb('mfa_failures', '+', 1) }))
    .where('id', '=', sessionId)
    .returning('mfa_failures')
    .executeTakeFirst();
  return row?.mfa_failures ?? 0;
}

/** The session has passed its user's second factor at `at` (SPEC `mfa_at`); wrong guesses are forgiven. */
export async function markSessionMfaPassed(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ mfa_at: at, mfa_failures: 0 }).where('id', '=', sessionId).execute();
}
