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

/**
 * The adapter answered that the address is not usable yet (`AddressPending`):
 * asked again at `at`, and the attempt just leased is not counted, so waiting
 * for a chain does not grow the back-off meant for failures.
 */
export async function postponeAllocation(trx: Tx, issuanceId: string, at: Date): Promise<void> {
  await trx
    .updateTable('issuances')
    .set({ next_allocation_at: at, allocation_attempts: sql`greatest(allocation_attempts - 1, 0)` })
    .where('id', '=', issuanceId)
    .where('status', '=', 'registering')
    .execute();
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

