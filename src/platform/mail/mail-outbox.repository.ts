import type { Db, Executor } from '../database/database.js';

export interface ClaimedMail {
  readonly id: string;
  readonly recipient: string;
  readonly subject: string;
  /** Null only if a row was erased by hand; such a row is given up. */
  readonly bodySealed: string | null;
  /** Attempts so far, this one included. */
  readonly attempts: number;
  readonly expiresAt: Date | null;
}

export async function insertMail(
  db: Executor,
  mail: { id: string; recipient: string; subject: string; bodySealed: string; createdAt: Date; expiresAt: Date | null },
): Promise<void> {
  await db
    .insertInto('mail_outbox')
    .values({
      id: mail.id,
      recipient: mail.recipient,
      subject: mail.subject,
      body_sealed: mail.bodySealed,
      next_attempt_at: mail.createdAt,
      expires_at: mail.expiresAt,
      created_at: mail.createdAt,
    })
    .execute();
}

/**
 * Claims up to `limit` due messages in one statement: rows locked by another
 * worker are skipped, and a claimed row's next attempt moves to `leaseUntil`,
 * so that it comes back by itself if this worker dies before recording.
 */
export async function claimDueMail(db: Db, claim: { now: Date; leaseUntil: Date; limit: number }): Promise<ClaimedMail[]> {
  const rows = await db
    .updateTable('mail_outbox')
    .set((eb) => ({ attempts: eb('attempts', '+', 1), next_attempt_at: claim.leaseUntil }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('mail_outbox')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', claim.now)
        .orderBy('next_attempt_at')
        .limit(claim.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'recipient', 'subject', 'body_sealed', 'attempts', 'expires_at'])
    .execute();
  return rows.map((row) => ({
    id: row.id,
    recipient: row.recipient,
    subject: row.subject,
    bodySealed: row.body_sealed,
    attempts: row.attempts,
    expiresAt: row.expires_at,
  }));
}

/** Sent: the sealed body is erased, it is needed no more. */
export async function markMailSent(db: Executor, id: string, at: Date): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'sent', sent_at: at, body_sealed: null, next_attempt_at: null, last_error: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export async function rescheduleMail(db: Executor, id: string, nextAttemptAt: Date, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ next_attempt_at: nextAttemptAt, last_error: error })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Given up (attempts spent, or expired): the sealed body is erased. */
export async function failMail(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('mail_outbox')
    .set({ status: 'failed', body_sealed: null, next_attempt_at: null, last_error: error })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}
