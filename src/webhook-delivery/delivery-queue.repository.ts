import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import { readQueueStats } from '../platform/database/queue-stats.repository.js';
import type { QueueStats } from '../platform/http/metrics.js';

/** The delivery queue for /metrics: pending deliveries, and how overdue the oldest due one is (partial index `webhook_deliveries_due`). */
export function readDeliveryQueue(db: Executor, now: Date): Promise<QueueStats> {
  return readQueueStats(db, now, { table: 'webhook_deliveries', dueColumn: 'next_attempt_at', pending: sql`status = 'pending'` });
}
