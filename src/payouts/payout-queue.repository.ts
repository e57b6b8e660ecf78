import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import { readQueueStats } from '../platform/database/queue-stats.repository.js';
import type { QueueStats } from '../platform/http/metrics.js';

/** The payout queue for /metrics: payouts not yet broadcast for good (partial index `payouts_due`), and the most overdue one. */
export function readPayoutQueue(db: Executor, now: Date): Promise<QueueStats> {
  return readQueueStats(db, now, { table: 'payouts', dueColumn: 'next_attempt_at', pending: sql`status in ('scheduled', 'waiting_gas', 'sending')` });
}
