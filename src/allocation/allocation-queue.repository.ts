import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import { readQueueStats } from '../platform/database/queue-stats.repository.js';
import type { QueueStats } from '../platform/http/metrics.js';

/** The allocation queue for /metrics: issuances still registering (partial index `issuances_due_allocation`), and the most overdue one. */
export function readAllocationQueue(db: Executor, now: Date): Promise<QueueStats> {
  return readQueueStats(db, now, { table: 'issuances', dueColumn: 'next_allocation_at', pending: sql`status = 'registering'` });
}
