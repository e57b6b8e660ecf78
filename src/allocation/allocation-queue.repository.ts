import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { QueueStats } from '../platform/http/metrics.js';

/** The allocation queue for /metrics: issuances still registering (partial index `issuances_due_allocation`), and the most overdue one. */
export async function readAllocationQueue(db: Executor, now: Date): Promise<QueueStats> {
  const { rows } = await sql<{ depth: string; oldest: Date | null }>`
    select count(*) as depth, min(next_allocation_at) filter (where next_allocation_at <= ${now}) as oldest
    from issuances where status = 'registering'`.execute(db);
  const oldest = rows[0]?.oldest ?? null;
  return { depth: Number(rows[0]?.depth ?? 0), oldestDueSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000) };
}
