import { sql } from 'kysely';
import type { Executor, Tx } from '../platform/database/database.js';
import type { IssuanceStatus } from '../platform/database/schema.js';
import type { Issuance, Payout } from './issuance.js';
import { toIssuance } from './issuances.repository.js';
import { toPayout } from './ledger.repository.js';

/** SQL of the issuance workers' queues: allocation, expiry, payouts, and the operator block's sweep. */

/**
 * Claims issuances waiting for an address (SKIP LOCKED: workers never share a
 * row) and hides each for `leaseStepMs` × its attempts so far (capped at
 * `leaseMaxMs`), so the adapter is asked after commit and a failing one is
 * retried less and less often; a worker that dies mid-way leaves the row to be
 * claimed again when its lease runs out.
 */
export async function leaseDueAllocations(
  trx: Tx,
  now: Date,
  lease: { readonly stepMs: number; readonly maxMs: number },
  limit: number,
): Promise<Issuance[]> {
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

/** Ids of ungrouped invoices past expiry and still unpaid, not yet cancelled. */
export async function listDueInvoiceExpiries(executor: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await executor
    .selectFrom('issuances')
    .select('id')
    .where('kind', '=', 'invoice')
    .where('group_id', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('funded_at', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function listDueGroupExpiries(executor: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await executor
    .selectFrom('issuance_groups')
    .select('id')
    .where('kind', '=', 'invoice')
    .where('cancelled_at', 'is', null)
    .where('paid_issuance_id', 'is', null)
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** Everything of a merchant that an operator block must close: ungrouped issuances and groups. */
export async function listMerchantOpenIssuances(
  executor: Executor,
  merchantId: string,
): Promise<{ issuanceIds: string[]; groupIds: string[] }> {
  const issuances = await executor
    .selectFrom('issuances')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('group_id', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', '=', 'invoice'), eb('cancelled_at', 'is', null), eb('status', 'in', ['registering', 'open'] as IssuanceStatus[])]),
        eb.and([eb('kind', '=', 'deposit'), eb('disabled_at', 'is', null)]),
      ]),
    )
    .execute();
  const groups = await executor
    .selectFrom('issuance_groups')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', '=', 'invoice'), eb('cancelled_at', 'is', null), eb('paid_issuance_id', 'is', null)]),
        eb.and([eb('kind', '=', 'deposit'), eb('disabled_at', 'is', null)]),
      ]),
    )
    .execute();
  return { issuanceIds: issuances.map((row) => row.id), groupIds: groups.map((row) => row.id) };
}

/**
 * Due live payouts, locked FOR UPDATE SKIP LOCKED (workers never share a row):
 * scheduled or waiting for gas, or `sending` whose lease ran out (a worker
 * died mid-send). Sandbox payouts never have a next attempt (LEDGER "Sandbox");
 * the `sandbox` test is the backstop.
 */
export async function claimDuePayouts(trx: Tx, now: Date, limit: number): Promise<Payout[]> {
  const rows = await trx
    .selectFrom('payouts')
    .selectAll()
    .where('status', 'in', ['scheduled', 'waiting_gas', 'sending'])
    .where('next_attempt_at', '<=', now)
    .where('sandbox', '=', false)
    .orderBy('next_attempt_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map(toPayout);
}

/**
 * Marks claimed payouts `sending` until `leaseUntil`, which is also the lease's
 * token: the worker records a non-broadcast outcome only while the row still
 * holds it. A send whose lease ran out counts as a failed attempt.
 */
export async function leasePayouts(trx: Tx, ids: readonly string[], now: Date, leaseUntil: Date): Promise<void> {
  if (ids.length === 0) return;
  await trx
    .updateTable('payouts')
    .set({
      status: 'sending',
      next_attempt_at: leaseUntil,
      attempts: sql<number>`case when status = 'sending' then attempts + 1 else attempts end`,
      last_error: sql<string | null>`case when status = 'sending' then 'send attempt did not finish within its lease' else last_error end`,
      updated_at: now,
    })
    .where('id', 'in', [...ids])
    .execute();
}

/** Puts claimed payouts back without an attempt (no adapter can send them yet). */
export async function postponePayouts(trx: Tx, ids: readonly string[], now: Date, until: Date): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable('payouts').set({ next_attempt_at: until, updated_at: now }).where('id', 'in', [...ids]).execute();
}
