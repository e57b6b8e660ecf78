import type { FilterObject, Selectable, Updateable } from 'kysely';
import { asId, asNullableId, type IssuanceId, type PayoutId, type ShopId, type TransferId } from '../platform/ids.js';
import type { Executor, Tx } from '../platform/database/database.js';
import type { Database, TransfersTable } from '../platform/database/schema.js';
import { issuanceEntry, type Transfer } from './issuance.js';

/** SQL for `transfers`: the ledger of incoming transfers. */

export type TransferPatch = Updateable<TransfersTable>;

export function toTransfer(row: Selectable<TransfersTable>): Transfer {
  return {
    id: asId(row.id),
    ...issuanceEntry(row),
    txHash: row.tx_hash,
    logIndex: row.log_index,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amount: BigInt(row.amount),
    status: row.status,
    disposition: row.disposition,
    payoutId: asNullableId(row.payout_id),
    confirmedEventId: asNullableId(row.confirmed_event_id),
    observedAt: row.observed_at,
    confirmedAt: row.confirmed_at,
    revertedAt: row.reverted_at,
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

/** Transfers with these column values; each caller names a unique key, so at most one row. */
function transfersWhere(executor: Executor, key: FilterObject<Database, 'transfers'>) {
  return executor.selectFrom('transfers').selectAll().where((eb) => eb.and(key));
}

export async function lockTransferByKey(trx: Tx, chainId: number, txHash: string, logIndex: number): Promise<Transfer | undefined> {
  const row = await transfersWhere(trx, { chain_id: chainId, tx_hash: txHash, log_index: logIndex }).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toTransfer(row);
}

/** The transfer whose transfer.confirmed event is `eventId`, within one shop. */
export async function findTransferByConfirmedEvent(executor: Executor, shopId: ShopId, eventId: string): Promise<Transfer | undefined> {
  const row = await transfersWhere(executor, { shop_id: shopId, confirmed_event_id: eventId }).executeTakeFirst();
  return row === undefined ? undefined : toTransfer(row);
}

export async function updateTransfer(trx: Tx, id: TransferId, patch: TransferPatch): Promise<void> {
  await trx.updateTable('transfers').set(patch).where('id', '=', id).execute();
}

/** Links confirmed transfers of an issuance not yet in any payout to `payoutId`. */
export async function attachUnsweptTransfers(trx: Tx, issuanceId: IssuanceId, payoutId: PayoutId): Promise<void> {
  await trx
    .updateTable('transfers')
    .set({ payout_id: payoutId })
    .where((eb) => eb.and({ issuance_id: issuanceId, status: 'confirmed', payout_id: null }))
    .where('disposition', 'in', ['credited', 'overpayment'])
    .execute();
}

/** Returns a cancelled payout's transfers to the unswept pool. */
export async function detachTransfers(trx: Tx, payoutId: PayoutId): Promise<void> {
  await trx.updateTable('transfers').set({ payout_id: null }).where('payout_id', '=', payoutId).execute();
}

/** Up to `limit` ids of the transfers a payout sweeps, oldest first. */
export async function listPayoutTransferIds(executor: Executor, payoutId: PayoutId, limit: number): Promise<string[]> {
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

