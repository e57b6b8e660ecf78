import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';

export interface EmailChallengeRow {
  readonly id: string;
  readonly subject: string;
  readonly address: string;
  readonly codeDigest: string;
  readonly attempts: number;
  readonly expiresAt: Date;
  readonly consumedAt: Date | null;
}

/**
 * Serialises starts for one address until the transaction ends, so that
 * concurrent starts cannot all pass the throttle's count.
 */
export async function lockEmailSubject(db: Executor, subject: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`email-sign-in:${subject}`}, 0))`.execute(db);
}

/** Starts for the address since `since`, and the oldest of them (when the window frees up). */
export async function countEmailChallengesSince(
  db: Executor,
  subject: string,
  since: Date,
): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('email_challenges')
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('created_at').as('oldest')])
    .where('subject', '=', subject)
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : new Date(row.oldest) };
}

export async function insertEmailChallenge(
  db: Executor,
  challenge: { id: string; subject: string; address: string; codeDigest: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('email_challenges')
    .values({
      id: challenge.id,
      subject: challenge.subject,
      address: challenge.address,
      code_digest: challenge.codeDigest,
      created_at: challenge.createdAt,
      expires_at: challenge.expiresAt,
    })
    .execute();
}

/** The challenge under a row lock: concurrent verifications of one challenge run one at a time. */
export async function lockEmailChallenge(db: Executor, challengeId: string): Promise<EmailChallengeRow | undefined> {
  return db
    .selectFrom('email_challenges')
    .select(['id', 'subject', 'address', 'code_digest as codeDigest', 'attempts', 'expires_at as expiresAt', 'consumed_at as consumedAt'])
    .where('id', '=', challengeId)
    .forUpdate()
    .executeTakeFirst();
}

export async function countWrongEmailCode(db: Executor, challengeId: string): Promise<void> {
  await db
    .updateTable('email_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', challengeId)
    .execute();
}

export async function consumeEmailChallenge(db: Executor, challengeId: string, at: Date): Promise<void> {
  await db.updateTable('email_challenges').set({ consumed_at: at }).where('id', '=', challengeId).execute();
}
