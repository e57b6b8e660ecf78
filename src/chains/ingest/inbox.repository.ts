import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/database/database.js';
import type { InboxStatus, IngestTables, LedgerStatus } from './ingest.schema.js';

/**
 * The transfer inbox (`chain_transfers`): every transfer of a catalogue token
 * to a watched address that a source read, by natural key (network,
 * transaction id, position), and the queue of what the ledger still has to be
 * told (`ledger_due`). The ledger (`transfers`, module issuances) hears of
 * these only through the `TransferLedger` port.
 */
const tables = (executor: Executor) => executor.withTables<IngestTables>();
const tablesTx = (trx: Tx) => trx.withTables<IngestTables>();

/**
 * A transfer as the inbox keeps it. `txHash` is the transaction id and
 * `logIndex` the position (named as in the ledger port, `ChainTransfer`):
 * see the migration 202611280010 for the Solana encoding.
 */
export interface WatchedTransfer {
  readonly chainId: number;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  readonly blockHash: string;
  readonly token: string;
  readonly fromAddress: string;
  readonly toAddress: string;
  readonly amount: bigint;
  readonly issuanceId: string;
  readonly status: InboxStatus;
  readonly credited: boolean;
  readonly ledgerStatus: LedgerStatus | null;
}

const INSERT_CHUNK = 1_000;

/**
 * Records first sightings. A key seen before (a rescan, or a transaction
 * re-mined in another block after a reorg) keeps its row and status and takes
 * the new block; a key already dropped or reverted stays so (see the report
 * in `handle-reorg.ts`).
 */
export async function upsertTransfers(trx: Tx, transfers: readonly WatchedTransfer[], now: Date): Promise<void> {
  for (let start = 0; start < transfers.length; start += INSERT_CHUNK) {
    const chunk = transfers.slice(start, start + INSERT_CHUNK);
    await tablesTx(trx)
      .insertInto('chain_transfers')
      .values(
        chunk.map((transfer) => ({
          chain_id: String(transfer.chainId),
          tx_id: transfer.txHash,
          position: transfer.logIndex,
          block_number: String(transfer.blockNumber),
          block_hash: transfer.blockHash,
          token: transfer.token,
          from_address: transfer.fromAddress,
          to_address: transfer.toAddress,
          amount: String(transfer.amount),
          issuance_id: transfer.issuanceId,
          status: transfer.status,
          credited: transfer.credited,
          ledger_status: null,
          ledger_due: transfer.credited,
          observed_at: now,
          updated_at: now,
        })),
      )
      .onConflict((conflict) =>
        conflict
          .columns(['chain_id', 'tx_id', 'position'])
          .doUpdateSet({ block_number: (eb) => eb.ref('excluded.block_number'), block_hash: (eb) => eb.ref('excluded.block_hash'), updated_at: now })
          .where('chain_transfers.status', 'in', ['observed', 'confirmed']),
      )
      .execute();
  }
}

/** Observed transfers at or below `confirmableBlock` become confirmed; returns how many. */
export async function confirmTransfers(trx: Tx, chainId: number, confirmableBlock: bigint, now: Date): Promise<number> {
  const result = await tablesTx(trx)
    .updateTable('chain_transfers')
    .set((eb) => ({ status: 'confirmed', ledger_due: eb.ref('credited'), updated_at: now }))
    .where('chain_id', '=', String(chainId))
    .where('status', '=', 'observed')
    .where('block_number', '<=', String(confirmableBlock))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Observed and confirmed transfers in blocks above `blockNumber`: what a reorg there may have removed. */
export async function listTransfersAbove(executor: Executor, chainId: number, blockNumber: bigint): Promise<WatchedTransfer[]> {
  const rows = await tables(executor)
    .selectFrom('chain_transfers')
    .selectAll()
    .where('chain_id', '=', String(chainId))
    .where('block_number', '>', String(blockNumber))
    .where('status', 'in', ['observed', 'confirmed'])
    .orderBy('block_number')
    .orderBy('position')
    .execute();
  return rows.map(toWatchedTransfer);
}

/** A transfer whose transaction now sits in another block: same key, same status. */
export async function moveTransfer(trx: Tx, transfer: WatchedTransfer, block: { readonly number: bigint; readonly hash: string }, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('chain_transfers')
    .set({ block_number: String(block.number), block_hash: block.hash, updated_at: now })
    .where('chain_id', '=', String(transfer.chainId))
    .where('tx_id', '=', transfer.txHash)
    .where('position', '=', transfer.logIndex)
    .where('status', 'in', ['observed', 'confirmed'])
    .execute();
}

/** A transfer that vanished in a reorg: observed → dropped, confirmed → reverted. */
export async function markVanished(trx: Tx, transfer: WatchedTransfer, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('chain_transfers')
    .set((eb) => ({ status: transfer.status === 'observed' ? 'dropped' : 'reverted', ledger_due: eb.ref('credited'), updated_at: now }))
    .where('chain_id', '=', String(transfer.chainId))
    .where('tx_id', '=', transfer.txHash)
    .where('position', '=', transfer.logIndex)
    .where('status', '=', transfer.status)
    .execute();
}

/** Whether any transfer waits for the ledger: one cheap probe before the workers start. */
export async function hasLedgerDue(executor: Executor, chainId: number): Promise<boolean> {
  const row = await tables(executor)
    .selectFrom('chain_transfers')
    .select('position')
    .where('chain_id', '=', String(chainId))
    .where('ledger_due', '=', true)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Claims a batch of transfers the ledger has not yet been told about, oldest
 * block first, in one of `partitions` disjoint slices by issuance (so parallel
 * workers never contend for one issuance and each issuance's transfers keep
 * their chain order). SKIP LOCKED: a row another worker holds is left to it.
 */
export async function claimLedgerDue(
  trx: Tx,
  chainId: number,
  slice: { readonly partition: number; readonly partitions: number },
  limit: number,
): Promise<WatchedTransfer[]> {
  let query = tablesTx(trx)
    .selectFrom('chain_transfers')
    .selectAll()
    .where('chain_id', '=', String(chainId))
    .where('ledger_due', '=', true);
  if (slice.partitions > 1) {
    query = query.where(sql<number>`mod(abs(hashtext(issuance_id::text)::int8), ${slice.partitions})`, '=', slice.partition);
  }
  const rows = await query.orderBy('block_number').orderBy('position').limit(limit).forUpdate().skipLocked().execute();
  return rows.map(toWatchedTransfer);
}

export async function markLedgerTold(trx: Tx, told: readonly { readonly transfer: WatchedTransfer; readonly ledgerStatus: LedgerStatus | null }[], now: Date): Promise<void> {
  if (told.length === 0) return;
  // One statement for the whole batch, whatever the statuses (issue 22: writes in sets).
  await sql`
    update chain_transfers set ledger_status = told.ledger_status, ledger_due = false, updated_at = ${now}
    from unnest(${told.map(({ transfer }) => String(transfer.chainId))}::int8[], ${told.map(({ transfer }) => transfer.txHash)}::text[],
      ${told.map(({ transfer }) => transfer.logIndex)}::int[], ${told.map(({ ledgerStatus }) => ledgerStatus)}::text[])
      as told(chain_id, tx_id, position, ledger_status)
    where chain_transfers.chain_id = told.chain_id and chain_transfers.tx_id = told.tx_id and chain_transfers.position = told.position`.execute(trx);
}

/** Every transfer the watcher recorded for an issuance, credited or not, in chain order. */
export async function listIssuanceChainTransfers(executor: Executor, issuanceId: string): Promise<WatchedTransfer[]> {
  const rows = await tables(executor)
    .selectFrom('chain_transfers')
    .selectAll()
    .where('issuance_id', '=', issuanceId)
    .orderBy('block_number')
    .orderBy('position')
    .execute();
  return rows.map(toWatchedTransfer);
}

type TransferRow = {
  chain_id: string;
  tx_id: string;
  position: number;
  block_number: string;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  amount: string;
  issuance_id: string;
  status: InboxStatus;
  credited: boolean;
  ledger_status: LedgerStatus | null;
};

function toWatchedTransfer(row: TransferRow): WatchedTransfer {
  return {
    chainId: Number(row.chain_id),
    txHash: row.tx_id,
    logIndex: row.position,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash,
    token: row.token,
    fromAddress: row.from_address,
    toAddress: row.to_address,
    amount: BigInt(row.amount),
    issuanceId: row.issuance_id,
    status: row.status,
    credited: row.credited,
    ledgerStatus: row.ledger_status,
  };
}

/** The network's transfers still observed (neither final nor gone), oldest first. */
export async function listObservedTransfers(executor: Executor, chainId: number, limit = 1_000): Promise<WatchedTransfer[]> {
  const rows = await tables(executor)
    .selectFrom('chain_transfers')
    .selectAll()
    .where('chain_id', '=', String(chainId))
    .where('status', '=', 'observed')
    .orderBy('block_number')
    .orderBy('position')
    .limit(limit)
    .execute();
  return rows.map(toWatchedTransfer);
}

/** One observed transfer at the final depth: confirmed, and due to the ledger if credited. */
export async function confirmTransfer(trx: Tx, transfer: WatchedTransfer, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('chain_transfers')
    .set((eb) => ({ status: 'confirmed', ledger_due: eb.ref('credited'), updated_at: now }))
    .where('chain_id', '=', String(transfer.chainId))
    .where('tx_id', '=', transfer.txHash)
    .where('position', '=', transfer.logIndex)
    .where('status', '=', 'observed')
    .execute();
}
