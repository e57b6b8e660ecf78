import { sql, type RawBuilder } from 'kysely';
import type { QueueStats } from '../http/metrics.js';
import type { Executor } from './database.js';

/**
 * A work queue's figures for /metrics, for any table that keeps its pending
 * rows with a due time: how many rows are pending, and how long the most
 * overdue one has been due. `pending` is the condition of the queue's partial
 * index, so the count reads that index only.
 */
export async function readQueueStats(
  db: Executor,
  now: Date,
  queue: { readonly table: string; readonly dueColumn: string; readonly pending: RawBuilder<unknown> },
): Promise<QueueStats> {
  const { rows } = await sql<{ depth: string; oldest: Date | null }>`
    select count(*) as depth, min(${sql.ref(queue.dueColumn)}) filter (where ${sql.ref(queue.dueColumn)} <= ${now}) as oldest
    from ${sql.table(queue.table)} where ${queue.pending}`.execute(db);
  const oldest = rows[0]?.oldest ?? null;
  return { depth: Number(rows[0]?.depth ?? 0), oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) };
}
