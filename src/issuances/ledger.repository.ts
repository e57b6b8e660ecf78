import type { Selectable, Updateable } from 'kysely';
import type { Executor, Tx } from '../platform/database/database.js';
import type { PayoutsTable, TransfersTable } from '../platform/database/schema.js';
import { UNSENT_PAYOUT_STATUSES, type Payout, type Transfer } from './issuance.js';

/** SQL for `transfers` (the ledger) and `payouts` (the payout queue). */

export type TransferPatch = Updateable<TransfersTable>;
export type PayoutPatch = Updateable<PayoutsTable>;

export function toTransfer(row: Selectable<TransfersTable>): Transfer {
  return {
    id: row.id,
    issuanceId: row.issuance_id,
    shopId: row.shop_id,
    sandbox: row.sandbox,
    chainId: row.chain_id,
    token: row.token,
    txHash: row.tx_hash,
    logIndex: row.log_index,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amount: BigInt(row.amount),
    status: row.status,
    disposition: row.disposition,
    payoutId: row.payout_id,
    confirmedEventId: row.confirmed_event_id,
    observedAt: row.observed_at,
    confirmedAt: row.confirmed_at,
    revertedAt: row.reverted_at,
    createdAt: row.created_at,
  };
}

export function toPayout(row: Selectable<PayoutsTable>): Payout {
  return {
    id: row.id,
    issuanceId: row.issuance_id,
    shopId: row.shop_id,
    sandbox: row.sandbox,
    chainId: row.chain_id,
    token: row.token,
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
    feeTerms: { bps: row.fee_bps, minimum: BigInt(row.fee_minimum), maximum: BigInt(row.fee_maximum) },
    txHash: row.tx_hash,
    sentAt: row.sent_at,
    confirmedAt: row.confirmed_at,
    failedAt: row.failed_at,
    cancelledAt: row.cancelled_at,
    createdAt: row.created_at,
  };
}

/**
 * Inserts a transfer by its natural key (network, tx hash, log index). Returns
 * false when that key is already stored: a repeat delivery, credited no twice.
 */
export async function insertTransferOnce(trx: Tx, transfer: Transfer): Promise<boolean> {
  const inserted = await trx
    .insertInto('transfers')
    .values({
      id: transfer.id,
      issuance_id: transfer.issuanceId,
      shop_id: transfer.shopId,
      sandbox: transfer.sandbox,
      chain_id: transfer.chainId,
      token: transfer.token,
      tx_hash: transfer.txHash,
      log_index: transfer.logIndex,
      from_address: transfer.fromAddress,
      to_address: transfer.toAddress,
      amount: transfer.amount,
      status: transfer.status,
      disposition: transfer.disposition,
      payout_id: transfer.payoutId,
      confirmed_event_id: transfer.confirmedEventId,
      observed_at: transfer.observedAt,
      confirmed_at: transfer.confirmedAt,
      reverted_at: transfer.revertedAt,
      created_at: transfer.createdAt,
    })
    .onConflict((conflict) => conflict.columns(['chain_id', 'tx_hash', 'log_index']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

export async function lockTransferByKey(trx: Tx, chainId: number, txHash: string, logIndex: number): Promise<Transfer | undefined> {
  const row = await trx
    .selectFrom('transfers')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('tx_hash', '=', txHash)
    .where('log_index', '=', logIndex)
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toTransfer(row);
}

/** The transfer whose transfer.confirmed event is `eventId`, within one shop. */
export async function findTransferByConfirmedEvent(executor: Executor, shopId: string, eventId: string): Promise<Transfer | undefined> {
  const row = await executor
    .selectFrom('transfers')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('confirmed_event_id', '=', eventId)
    .executeTakeFirst();
  return row === undefined ? undefined : toTransfer(row);
}

export async function updateTransfer(trx: Tx, id: string, patch: TransferPatch): Promise<void> {
  await trx.updateTable('transfers').set(patch).where('id', '=', id).execute();
}

/** Links confirmed transfers of an issuance not yet in any payout to `payoutId`. */
export async function attachUnsweptTransfers(trx: Tx, issuanceId: string, payoutId: string): Promise<void> {
  await trx
    .updateTable('transfers')
    .set({ payout_id: payoutId })
    .where('issuance_id', '=', issuanceId)
    .where('status', '=', 'confirmed')
    .where('payout_id', 'is', null)
    .where('disposition', 'in', ['credited', 'overpayment'])
    .execute();
}

/** Returns a cancelled payout's transfers to the unswept pool. */
export async function detachTransfers(trx: Tx, payoutId: string): Promise<void> {
  await trx.updateTable('transfers').set({ payout_id: null }).where('payout_id', '=', payoutId).execute();
}

/** Up to `limit` ids of the transfers a payout sweeps, oldest first. */
export async function listPayoutTransferIds(executor: Executor, payoutId: string, limit: number): Promise<string[]> {
  const rows = await executor
    .selectFrom('transfers')
    .select('id')
    .where('payout_id', '=', payoutId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function insertPayout(trx: Tx, payout: Payout): Promise<void> {
  await trx
    .insertInto('payouts')
    .values({
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
    })
    .execute();
}

export async function lockPayout(trx: Tx, id: string): Promise<Payout | undefined> {
  const row = await trx.selectFrom('payouts').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

/** The issuance's newest payout that has not left the address (at most one exists). */
export async function lockUnsentPayout(trx: Tx, issuanceId: string): Promise<Payout | undefined> {
  const row = await trx
    .selectFrom('payouts')
    .selectAll()
    .where('issuance_id', '=', issuanceId)
    .where('status', 'in', [...UNSENT_PAYOUT_STATUSES])
    .orderBy('created_at', 'desc')
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

/** The invoice's payout that is still live (not cancelled or reverted), newest first. */
export async function lockCurrentPayout(trx: Tx, issuanceId: string): Promise<Payout | undefined> {
  const row = await trx
    .selectFrom('payouts')
    .selectAll()
    .where('issuance_id', '=', issuanceId)
    .where('status', 'not in', ['cancelled', 'reverted'])
    .orderBy('created_at', 'desc')
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

export async function updatePayout(trx: Tx, id: string, now: Date, patch: PayoutPatch): Promise<void> {
  await trx.updateTable('payouts').set({ ...patch, updated_at: now }).where('id', '=', id).execute();
}

/** SPEC `payout_tx_hash`: the latest confirmed outgoing transfer to the recipient. */
export async function latestConfirmedPayoutTxHash(executor: Executor, issuanceId: string): Promise<string | null> {
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

export async function findPayoutById(executor: Executor, id: string): Promise<Payout | undefined> {
  const row = await executor.selectFrom('payouts').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toPayout(row);
}

/** The payout.confirmed event of a payout, which payout.reverted references; null before confirmation. */
export async function findPayoutConfirmedEventId(executor: Executor, id: string): Promise<string | null> {
  const row = await executor.selectFrom('payouts').select('confirmed_event_id').where('id', '=', id).executeTakeFirst();
  return row?.confirmed_event_id ?? null;
}
