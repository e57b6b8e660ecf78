import { sql } from 'kysely';
import type { Tx } from '../platform/database/database.js';
import { toIssuance, type Issuance } from '../issuances/index.js';

/** SQL of address allocation: the lease on `registering` issuances (`issuances.allocation_attempts`, `next_allocation_at`). */

/** How long a claimed issuance stays hidden: `stepMs` × its attempts so far, at most `maxMs`. */
export interface AllocationLease {
  readonly stepMs: number;
  readonly maxMs: number;
}

/**
 * Claims issuances waiting for an address (SKIP LOCKED: workers never share a
 * row) and hides each for its `lease`, so the adapter is asked after commit and
 * a failing one is retried less and less often; a worker that dies mid-way
 * leaves the row to be claimed again when its lease runs out.
 */
export async function leaseDueAllocations(trx: Tx, now: Date, lease: AllocationLease, limit: number): Promise<Issuance[]> {
  const claimed = await claimDueAllocations(trx, now, limit);
  if (claimed.length === 0) return claimed;
  await trx
    .updateTable('issuances')
    .set({
      allocation_attempts: sql`allocation_attempts + 1`,
      next_allocation_at: sql`${now}::timestamptz + least(${lease.stepMs} * (allocation_attempts + 1), ${lease.maxMs}) * interval '1 millisecond'`,
    })
    .where('id', 'in', claimed.map((issuance) => issuance.id))
    .execute();
  return claimed;
}

/** Due registering issuances, locked FOR UPDATE SKIP LOCKED. */
async function claimDueAllocations(trx: Tx, now: Date, limit: number): Promise<Issuance[]> {
  const rows = await trx
    .selectFrom('issuances')
    .selectAll()
    .where('status', '=', 'registering')
    .where('next_allocation_at', '<=', now)
    .orderBy('next_allocation_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map(toIssuance);
}

