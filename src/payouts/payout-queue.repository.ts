import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { QueueStats } from '../platform/http/metrics.js';

/** The payout queue for /metrics: payouts not yet broadcast for good (partial index `payouts_due`), and the most overdue one. */
export async function readPayoutQueue(db: Executor, now: Date): Promise<QueueStats> {
  const { rows } = await sql<{ depth: string; oldest: Date | null }>`
    select count(*) as depth, min(next_attempt_at) filter (where next_attempt_at <= ${now}) as oldest
    from payouts where status in ('scheduled', 'waiting_gas', 'sending')`.execute(db);
  const oldest = rows[0]?.oldest ?? null;
  return { depth: Number(rows[0]?.depth ?? 0), oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) };
}
