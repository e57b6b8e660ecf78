import { sql, type Selectable, type Updateable } from 'kysely';
import type { IssuanceId, PayoutId } from '../platform/ids.js';
import { asId } from '../platform/ids.js';
import type { Executor, Tx } from '../platform/database/database.js';
import type { PayoutsTable } from '../platform/database/schema.js';
import { UNSENT_PAYOUT_STATUSES, type Payout, type PayoutStatus } from './payout.js';
import { units18 } from '../money/index.js';
import { issuanceEntry } from '../issuances/index.js';

/** SQL for `payouts`: the payout rows and their queue. */

export type PayoutPatch = Updateable<PayoutsTable>;

export function toPayout(row: Selectable<PayoutsTable>): Payout {
  return {
    id: asId(row.id),
    ...issuanceEntry(row),
    tokenDecimals: row.token_decimals,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    gross: BigInt(row.gross),
    fee: BigInt(row.fee),
    toRecipient: BigInt(row.to_recipient),
    toOperator: BigInt(row.to_operator),
    recipient: row.recipient,
    feeTerms: { bps: row.fee_bps, minimum: units18(BigInt(row.fee_minimum)), maximum: units18(BigInt(row.fee_maximum)) },
    txHash: row.tx_hash,
    sentAt: row.sent_at,
    confirmedAt: row.confirmed_at,
    failedAt: row.failed_at,
    cancelledAt: row.cancelled_at,
    createdAt: row.created_at,
  };
}

export async function insertPayout(trx: Tx, payout: Payout): Promise<void> {
  await insertPayouts(trx, [payout]);
}

/** Many payout rows in one statement (the batch ledger entry). */
export async function insertPayouts(trx: Tx, payouts: readonly Payout[]): Promise<void> {
  if (payouts.length === 0) return;
  await trx
    .insertInto('payouts')
    .values(
      payouts.map((payout) => ({
        id: payout.id,
        issuance_id: payout.issuanceId,
        shop_id: payout.shopId,
        sandbox: payout.sandbox,
        chain_id: payout.chainId,
        token: payout.token,
        token_decimals: payout.tokenDecimals,
        status: payout.status,
        attempts: payout.attempts,
        next_attempt_at: payout.nextAttemptAt,
        last_error: payout.lastError,
        gross: payout.gross,
        fee: payout.fee,
        to_recipient: payout.toRecipient,
        to_operator: payout.toOperator,
        recipient: payout.recipient,
        fee_bps: payout.feeTerms.bps,
        fee_minimum: payout.feeTerms.minimum,
        fee_maximum: payout.feeTerms.maximum,
        tx_hash: payout.txHash,
        sent_at: payout.sentAt,
        confirmed_at: payout.confirmedAt,
        failed_at: payout.failedAt,
        cancelled_at: payout.cancelledAt,
        created_at: payout.createdAt,
        updated_at: payout.createdAt,
      })),
    )
    .execute();
}

export async function lockPayout(trx: Tx, id: PayoutId): Promise<Payout | undefined> {
  const row = await trx.selectFrom('payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

/** The issuance's newest payout that has not left the address (at most one exists). */
export async function lockUnsentPayout(trx: Tx, issuanceId: IssuanceId): Promise<Payout | undefined> {
  return lockNewestPayout(trx, issuanceId, 'in', UNSENT_PAYOUT_STATUSES);
}

/** The invoice's payout that is still live (not cancelled or reverted), newest first. */
export async function lockCurrentPayout(trx: Tx, issuanceId: IssuanceId): Promise<Payout | undefined> {
  return lockNewestPayout(trx, issuanceId, 'not in', ['cancelled', 'reverted']);
}

async function lockNewestPayout(
  trx: Tx,
  issuanceId: string,
  operator: 'in' | 'not in',
  statuses: readonly PayoutStatus[],
): Promise<Payout | undefined> {
  const row = await trx
    .selectFrom('payouts')
    .selectAll()
    .where('issuance_id', '=', issuanceId)
    .where('status', operator, [...statuses])
    .orderBy('created_at', 'desc')
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

export async function updatePayout(trx: Tx, id: PayoutId, now: Date, patch: PayoutPatch): Promise<void> {
  await trx.updateTable('payouts').set({ ...patch, updated_at: now }).where('id', '=', id).execute();
}

/** SPEC `payout_tx_hash`: the latest confirmed outgoing transfer to the recipient. */
export async function latestConfirmedPayoutTxHash(executor: Executor, issuanceId: IssuanceId): Promise<string | null> {
  const row = await executor
    .selectFrom('payouts')
    .select('tx_hash')
    .where('issuance_id', '=', issuanceId)
    .where('status', '=', 'confirmed')
    .where('tx_hash', 'is not', null)
    .orderBy('confirmed_at', 'desc')
    .executeTakeFirst();
  return row?.tx_hash ?? null;
}

/**
 * `latestConfirmedPayoutTxHash` for a page of issuances in one query, by
 * `payouts_issuance`: issuances without a confirmed payout are absent.
 */
export async function latestConfirmedPayoutTxHashes(executor: Executor, issuanceIds: readonly IssuanceId[]): Promise<ReadonlyMap<IssuanceId, string>> {
  if (issuanceIds.length === 0) return new Map();
  const rows = await executor
    .selectFrom('payouts')
    .distinctOn('issuance_id')
    .select(['issuance_id', 'tx_hash'])
    .where('issuance_id', 'in', [...issuanceIds])
    .where('status', '=', 'confirmed')
    .where('tx_hash', 'is not', null)
    .orderBy('issuance_id')
    .orderBy('confirmed_at', 'desc')
    .execute();
  return new Map(rows.flatMap((row) => (row.tx_hash === null ? [] : [[asId<IssuanceId>(row.issuance_id), row.tx_hash] as const])));
}

export async function findPayoutById(executor: Executor, id: PayoutId): Promise<Payout | undefined> {
  const row = await executor.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

/** The payout.confirmed event of a payout, which payout.reverted references; null before confirmation. */
export async function findPayoutConfirmedEventId(executor: Executor, id: PayoutId): Promise<string | null> {
  const row = await executor.selectFrom('payouts').select('confirmed_event_id').where('id', '=', id).executeTakeFirst();
  return row?.confirmed_event_id ?? null;
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
export async function leasePayouts(trx: Tx, ids: readonly PayoutId[], now: Date, leaseUntil: Date): Promise<void> {
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
export async function postponePayouts(trx: Tx, ids: readonly PayoutId[], now: Date, until: Date): Promise<void> {
  if (ids.length === 0) return;
  await trx.updateTable('payouts').set({ next_attempt_at: until, updated_at: now }).where('id', 'in', [...ids]).execute();
}

/** Live payouts of a network parked until its relayer can pay gas (`gas.wait`): what the operator should fund. */
/** Live payouts of `chainId` in gas.wait become due now (their fee payer was funded). Answers how many. */
export async function wakeWaitingGasPayouts(executor: Executor, chainId: number, now: Date): Promise<number> {
  const result = await executor
    .updateTable('payouts')
    .set({ next_attempt_at: now })
    .where('chain_id', '=', chainId)
    .where('sandbox', '=', false)
    .where('status', '=', 'waiting_gas')
    .where('next_attempt_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function countWaitingGasPayouts(executor: Executor, chainId: number): Promise<number> {
  const row = await executor
    .selectFrom('payouts')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('chain_id', '=', chainId)
    .where('sandbox', '=', false)
    .where('status', '=', 'waiting_gas')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
