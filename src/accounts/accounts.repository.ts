import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { Database, IdentitiesTable } from '../platform/database/schema.js';

type Provider = IdentitiesTable['provider'];

// ---- users -----------------------------------------------------------------

export interface UserRow {
  readonly id: string;
  readonly onboardedAt: Date | null;
  /** The user has a confirmed second factor (TOTP or a passkey). */
  readonly mfaEnrolled: boolean;
}

/** `mfaEnrolled`: whether the user of `users.id` has a confirmed second factor (TOTP or a passkey). */
function mfaEnrolled(eb: ExpressionBuilder<Database, 'users'>) {
  return eb
    .or([
      eb.exists(
        eb
          .selectFrom('totp_factors')
          .select('totp_factors.user_id')
          .whereRef('totp_factors.user_id', '=', 'users.id')
          .where('totp_factors.confirmed_at', 'is not', null),
      ),
      eb.exists(eb.selectFrom('passkeys').select('passkeys.user_id').whereRef('passkeys.user_id', '=', 'users.id')),
    ])
    .$castTo<boolean>()
    .as('mfaEnrolled');
}

function userColumns(eb: ExpressionBuilder<Database, 'users'>) {
  return ['id', 'onboarded_at as onboardedAt', mfaEnrolled(eb)] as const;
}

export async function insertUser(db: Executor, user: { id: string; createdAt: Date }): Promise<void> {
  await db.insertInto('users').values({ id: user.id, created_at: user.createdAt }).execute();
}

/** Undoes `insertUser` inside the transaction that lost a race for an identity. */
export async function deleteUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
}

export async function findUser(db: Executor, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(userColumns).where('id', '=', userId).executeTakeFirst();
}

/** Reads the user under a row lock, so that one user's onboardings run one at a time. */
export async function lockUser(db: Executor, userId: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').select(userColumns).where('id', '=', userId).forUpdate().executeTakeFirst();
}

export async function markUserOnboarded(db: Executor, userId: string, at: Date): Promise<void> {
  await db.updateTable('users').set({ onboarded_at: at }).where('id', '=', userId).execute();
}

// ---- identities ------------------------------------------------------------

export async function findIdentityOwner(db: Executor, provider: Provider, subject: string): Promise<string | undefined> {
  const row = await db.selectFrom('identities').select('user_id').where((eb) => eb.and({ provider, subject })).executeTakeFirst();
  return row?.user_id;
}

export async function userHasIdentityOf(db: Executor, userId: string, provider: Provider): Promise<boolean> {
  const row = await db.selectFrom('identities').select('id').where((eb) => eb.and({ user_id: userId, provider })).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Links an identity; false when (provider, subject) already belongs to
 * someone. On PostgreSQL a concurrent uncommitted link of the same subject is
 * waited for, so the loser sees false instead of a unique violation.
 */
export async function insertIdentity(
  db: Executor,
  identity: { id: string; userId: string; provider: Provider; subject: string; label: string; createdAt: Date },
): Promise<boolean> {
  const inserted = await db
    .insertInto('identities')
    .values({
      id: identity.id,
      user_id: identity.userId,
      provider: identity.provider,
      subject: identity.subject,
      label: identity.label,
      created_at: identity.createdAt,
    })
    .onConflict((conflict) => conflict.columns(['provider', 'subject']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

// ---- sessions --------------------------------------------------------------

export interface LiveSessionRow {
  readonly sessionId: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly expiresAt: Date;
  readonly mfaAt: Date | null;
  readonly mfaEnrolled: boolean;
  readonly userBlockedAt: Date | null;
  readonly userBlockedReason: string | null;
}

/** The session with this token hash if it is neither revoked nor expired at `now`. */
export async function findLiveSession(db: Executor, tokenHash: string, now: Date): Promise<LiveSessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select((eb) => [
      'sessions.id as sessionId',
      'sessions.user_id as userId',
      'sessions.csrf_token as csrfToken',
      'sessions.expires_at as expiresAt',
      'sessions.mfa_at as mfaAt',
      'users.blocked_at as userBlockedAt',
      'users.blocked_reason as userBlockedReason',
      mfaEnrolled(eb),
    ])
    .where((eb) => eb.and({ 'sessions.token_hash': tokenHash, 'sessions.revoked_at': null }))
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertSession(
  db: Executor,
  session: { id: string; userId: string; tokenHash: string; csrfToken: string; method: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      id: session.id,
      user_id: session.userId,
      token_hash: session.tokenHash,
      csrf_token: session.csrfToken,
      method: session.method,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    })
    .execute();
}

export async function revokeSession(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: at }).where((eb) => eb.and({ id: sessionId, revoked_at: null })).execute();
}

// ---- wallet challenges -----------------------------------------------------

export interface WalletChallengeRow {
  readonly id: string;
  readonly address: string;
  readonly message: string;
}

/** A challenge that can still be used at `now`: neither consumed nor expired. */
function usableAt(eb: ExpressionBuilder<Database, 'wallet_challenges'>, now: Date) {
  return eb.and([eb('consumed_at', 'is', null), eb('expires_at', '>', now)]);
}

export async function insertWalletChallenge(
  db: Executor,
  challenge: { id: string; address: string; chainId: number; nonce: string; message: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('wallet_challenges')
    .values({
      id: challenge.id,
      address: challenge.address,
      chain_id: challenge.chainId,
      nonce: challenge.nonce,
      message: challenge.message,
      created_at: challenge.createdAt,
      expires_at: challenge.expiresAt,
    })
    .execute();
}

/** The challenge of this id if it is neither consumed nor expired at `now`. */
export async function findUsableWalletChallenge(db: Executor, challengeId: string, now: Date): Promise<WalletChallengeRow | undefined> {
  return db
    .selectFrom('wallet_challenges')
    .select(['id', 'address', 'message'])
    .where('id', '=', challengeId)
    .where((eb) => usableAt(eb, now))
    .executeTakeFirst();
}

/**
 * Marks the challenge used if it is unused and unexpired at `now`; false
 * otherwise. The condition is what makes a challenge single-use: of two
 * concurrent verifications, the second waits on the row lock and then finds
 * `consumed_at` set.
 */
export async function consumeWalletChallenge(db: Executor, challengeId: string, now: Date): Promise<boolean> {
  const consumed = await db
    .updateTable('wallet_challenges')
    .set({ consumed_at: now })
    .where('id', '=', challengeId)
    .where((eb) => usableAt(eb, now))
    .returning('id')
    .executeTakeFirst();
  return consumed !== undefined;
}
