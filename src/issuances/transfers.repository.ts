import type { FilterObject, Selectable, Updateable } from 'kysely';
import { sql } from 'kysely';
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


/** The natural key as one string, for maps over a batch. */
export function transferKey(key: { readonly chainId: number; readonly txHash: string; readonly logIndex: number }): string {
  return `${key.chainId}:${key.txHash}:${key.logIndex}`;
}

/** Transfers stored under these natural keys, locked (the batch entry's counterpart of `lockTransferByKey`). */
export async function lockTransfersByKeys(
  trx: Tx,
  keys: readonly { readonly chainId: number; readonly txHash: string; readonly logIndex: number }[],
): Promise<Map<string, Transfer>> {
  if (keys.length === 0) return new Map();
  const rows = await trx
    .selectFrom('transfers')
    .selectAll()
    .where(
      sql<boolean>`(chain_id, tx_hash, log_index) in (select * from unnest(${keys.map((key) => key.chainId)}::bigint[], ${keys.map((key) => key.txHash)}::text[], ${keys.map((key) => key.logIndex)}::int[]))`,
    )
    .forUpdate()
    .execute();
  return new Map(rows.map((row) => [transferKey({ chainId: row.chain_id, txHash: row.tx_hash, logIndex: row.log_index }), toTransfer(row)]));
}

/**
 * Inserts new transfers, already in their final state, with one `unnest`
 * statement. Answers how many were inserted: a key stored meanwhile by
 * another transaction is skipped (the caller must then give up its batch).
 */
export async function insertTransfers(trx: Tx, transfers: readonly Transfer[]): Promise<number> {
  if (transfers.length === 0) return 0;
  const column = <T>(pick: (transfer: Transfer) => T) => transfers.map(pick);
  const time = (value: Date | null) => (value === null ? null : value.toISOString());
  const result = await sql`
    insert into transfers (id, issuance_id, shop_id, sandbox, chain_id, token, tx_hash, log_index, from_address, to_address, amount,
      status, disposition, payout_id, confirmed_event_id, observed_at, confirmed_at, reverted_at, created_at)
    select * from unnest(
      ${column((t) => t.id)}::uuid[], ${column((t) => t.issuanceId)}::uuid[], ${column((t) => t.shopId)}::uuid[], ${column((t) => t.sandbox)}::bool[],
      ${column((t) => t.chainId)}::bigint[], ${column((t) => t.token)}::text[], ${column((t) => t.txHash)}::text[], ${column((t) => t.logIndex)}::int[],
      ${column((t) => t.fromAddress)}::text[], ${column((t) => t.toAddress)}::text[], ${column((t) => t.amount.toString())}::numeric[],
      ${column((t) => t.status)}::text[], ${column((t) => t.disposition)}::text[], ${column((t) => t.payoutId)}::uuid[], ${column((t) => t.confirmedEventId)}::uuid[],
      ${column((t) => time(t.observedAt))}::timestamptz[], ${column((t) => time(t.confirmedAt))}::timestamptz[], ${column((t) => time(t.revertedAt))}::timestamptz[],
      ${column((t) => t.createdAt.toISOString())}::timestamptz[])
    on conflict (chain_id, tx_hash, log_index) do nothing`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/** Writes the ledger's state of stored transfers (status, disposition, payout, confirmation) in one statement. */
export async function updateTransfers(trx: Tx, transfers: readonly Transfer[]): Promise<void> {
  if (transfers.length === 0) return;
  const time = (value: Date | null) => (value === null ? null : value.toISOString());
  await sql`
    update transfers set status = batch.status, disposition = batch.disposition, payout_id = batch.payout_id,
      confirmed_event_id = batch.confirmed_event_id, confirmed_at = batch.confirmed_at
    from unnest(${transfers.map((t) => t.id)}::uuid[], ${transfers.map((t) => t.status)}::text[], ${transfers.map((t) => t.disposition)}::text[],
      ${transfers.map((t) => t.payoutId)}::uuid[], ${transfers.map((t) => t.confirmedEventId)}::uuid[], ${transfers.map((t) => time(t.confirmedAt))}::timestamptz[])
      as batch(id, status, disposition, payout_id, confirmed_event_id, confirmed_at)
    where transfers.id = batch.id`.execute(trx);
}

/** `attachUnsweptTransfers` for many (issuance, payout) pairs in one statement. */
export async function attachUnsweptTransfersMany(trx: Tx, pairs: readonly { readonly issuanceId: IssuanceId; readonly payoutId: PayoutId }[]): Promise<void> {
  if (pairs.length === 0) return;
  // Each issuance's transfers are found by their own probe of `transfers_issuance`,
  // whatever the statistics say: after a burst of inserts they lag (PGlite's until
  // its next analyze), and a join of the table against the pairs was planned as a
  // scan of every transfer against every pair (2 s per batch at 50,000 rows in the
  // catch-up bench on PostgreSQL; 100 ms on PGlite with an `any` filter before the join).
  await sql`
    with target as materialized (
      select unswept.id, pair.payout_id
      from unnest(${pairs.map((pair) => pair.issuanceId)}::uuid[], ${pairs.map((pair) => pair.payoutId)}::uuid[]) as pair(issuance_id, payout_id)
      cross join lateral (
        select transfers.id from transfers
        where transfers.issuance_id = pair.issuance_id and transfers.status = 'confirmed' and transfers.payout_id is null
          and transfers.disposition in ('credited', 'overpayment')
        offset 0 -- keeps the probe per pair: pulled up, it was planned as the join above again
      ) as unswept
    )
    update transfers set payout_id = target.payout_id from target
    -- Repeated so that a row changed since the probe's snapshot is checked again (the issuance lock keeps writers out today).
    where transfers.id = target.id and transfers.status = 'confirmed' and transfers.payout_id is null`.execute(trx);
}
