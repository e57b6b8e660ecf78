import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../../../platform/database/database.js';
import type { EvmTransferStatus, EvmWatcherTables, LedgerStatus } from './watcher.schema.js';

/**
 * The watcher's SQL (migrations/202611230010_evm_watcher.sql). Its tables are
 * typed in `watcher.schema.ts` and joined onto the shared `Database` here, so
 * the shared schema file needs no edit.
 */
const tables = (executor: Executor) => executor.withTables<EvmWatcherTables>();
const tablesTx = (trx: Tx) => trx.withTables<EvmWatcherTables>();

/** A transfer as the watcher keeps it. */
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
  readonly status: EvmTransferStatus;
  readonly credited: boolean;
  readonly ledgerStatus: LedgerStatus | null;
}

export interface ScanCursor {
  readonly nextBlock: bigint;
  readonly headBlock: bigint | null;
}

/** The cursor of `chainId`, created at `startBlock` on first use. */
export async function ensureScanCursor(db: Db, chainId: number, startBlock: bigint, now: Date): Promise<ScanCursor> {
  const existing = await findScanCursor(db, chainId);
  if (existing !== undefined) return existing;
  await tables(db)
    .insertInto('evm_scan_cursors')
    .values({ chain_id: String(chainId), next_block: String(startBlock), head_block: null, updated_at: now })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
  const cursor = await findScanCursor(db, chainId);
  if (cursor === undefined) throw new Error(`evm watcher: no scan cursor for chain ${chainId}`);
  return cursor;
}

export async function findScanCursor(executor: Executor, chainId: number): Promise<ScanCursor | undefined> {
  const row = await tables(executor)
    .selectFrom('evm_scan_cursors')
    .select(['next_block', 'head_block'])
    .where('chain_id', '=', String(chainId))
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { nextBlock: BigInt(row.next_block), headBlock: row.head_block === null ? null : BigInt(row.head_block) };
}

/**
 * One scanner per network across processes: a transaction-scoped advisory lock
 * keyed by the chain id, tried (never waited for), then the cursor row locked
 * and compared with what the caller scanned from. False: another process got
 * there first, and the caller's results must be discarded.
 */
export async function claimScanCommit(trx: Tx, chainId: number, expectedNextBlock: bigint): Promise<boolean> {
  const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${`ivory.evm-watcher:${chainId}`}, 0)) as locked`.execute(trx);
  if (locked.rows[0]?.locked !== true) return false;
  const row = await tablesTx(trx)
    .selectFrom('evm_scan_cursors')
    .select('next_block')
    .where('chain_id', '=', String(chainId))
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined && BigInt(row.next_block) === expectedNextBlock;
}

export async function moveScanCursor(trx: Tx, chainId: number, nextBlock: bigint, headBlock: bigint, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('evm_scan_cursors')
    .set({ next_block: String(nextBlock), head_block: String(headBlock), updated_at: now })
    .where('chain_id', '=', String(chainId))
    .execute();
}

export async function findBlockHash(executor: Executor, chainId: number, blockNumber: bigint): Promise<string | undefined> {
  const row = await tables(executor)
    .selectFrom('evm_block_hashes')
    .select('block_hash')
    .where('chain_id', '=', String(chainId))
    .where('block_number', '=', String(blockNumber))
    .executeTakeFirst();
  return row?.block_hash;
}

/** Stored hashes at or below `atMost`, newest first. */
export async function listBlockHashes(executor: Executor, chainId: number, atMost: bigint): Promise<{ blockNumber: bigint; blockHash: string }[]> {
  const rows = await tables(executor)
    .selectFrom('evm_block_hashes')
    .select(['block_number', 'block_hash'])
    .where('chain_id', '=', String(chainId))
    .where('block_number', '<=', String(atMost))
    .orderBy('block_number', 'desc')
    .execute();
  return rows.map((row) => ({ blockNumber: BigInt(row.block_number), blockHash: row.block_hash }));
}

export async function saveBlockHashes(trx: Tx, chainId: number, hashes: ReadonlyMap<bigint, string>): Promise<void> {
  if (hashes.size === 0) return;
  await tablesTx(trx)
    .insertInto('evm_block_hashes')
    .values([...hashes].map(([blockNumber, blockHash]) => ({ chain_id: String(chainId), block_number: String(blockNumber), block_hash: blockHash })))
    .onConflict((conflict) => conflict.columns(['chain_id', 'block_number']).doUpdateSet({ block_hash: (eb) => eb.ref('excluded.block_hash') }))
    .execute();
}

/** Forgets hashes above a reorg's common ancestor, and those older than the reorg window. */
export async function deleteBlockHashes(trx: Tx, chainId: number, range: { readonly above?: bigint; readonly below?: bigint }): Promise<void> {
  let query = tablesTx(trx).deleteFrom('evm_block_hashes').where('chain_id', '=', String(chainId));
  if (range.above !== undefined) query = query.where('block_number', '>', String(range.above));
  if (range.below !== undefined) query = query.where('block_number', '<', String(range.below));
  await query.execute();
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
      .insertInto('evm_transfers')
      .values(
        chunk.map((transfer) => ({
          chain_id: String(transfer.chainId),
          tx_hash: transfer.txHash,
          log_index: transfer.logIndex,
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
          .columns(['chain_id', 'tx_hash', 'log_index'])
          .doUpdateSet({ block_number: (eb) => eb.ref('excluded.block_number'), block_hash: (eb) => eb.ref('excluded.block_hash'), updated_at: now })
          .where('evm_transfers.status', 'in', ['observed', 'confirmed']),
      )
      .execute();
  }
}

/** Observed transfers at or below `confirmableBlock` become confirmed; returns how many. */
export async function confirmTransfers(trx: Tx, chainId: number, confirmableBlock: bigint, now: Date): Promise<number> {
  const result = await tablesTx(trx)
    .updateTable('evm_transfers')
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
    .selectFrom('evm_transfers')
    .selectAll()
    .where('chain_id', '=', String(chainId))
    .where('block_number', '>', String(blockNumber))
    .where('status', 'in', ['observed', 'confirmed'])
    .orderBy('block_number')
    .orderBy('log_index')
    .execute();
  return rows.map(toWatchedTransfer);
}

/** A transfer whose transaction now sits in another block: same key, same status. */
export async function moveTransfer(trx: Tx, transfer: WatchedTransfer, block: { readonly number: bigint; readonly hash: string }, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('evm_transfers')
    .set({ block_number: String(block.number), block_hash: block.hash, updated_at: now })
    .where('chain_id', '=', String(transfer.chainId))
    .where('tx_hash', '=', transfer.txHash)
    .where('log_index', '=', transfer.logIndex)
    .where('status', 'in', ['observed', 'confirmed'])
    .execute();
}

/** A transfer that vanished in a reorg: observed → dropped, confirmed → reverted. */
export async function markVanished(trx: Tx, transfer: WatchedTransfer, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('evm_transfers')
    .set((eb) => ({ status: transfer.status === 'observed' ? 'dropped' : 'reverted', ledger_due: eb.ref('credited'), updated_at: now }))
    .where('chain_id', '=', String(transfer.chainId))
    .where('tx_hash', '=', transfer.txHash)
    .where('log_index', '=', transfer.logIndex)
    .where('status', '=', transfer.status)
    .execute();
}

/** Whether any transfer waits for the ledger: one cheap probe before the workers start. */
export async function hasLedgerDue(executor: Executor, chainId: number): Promise<boolean> {
  const row = await tables(executor)
    .selectFrom('evm_transfers')
    .select('log_index')
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
    .selectFrom('evm_transfers')
    .selectAll()
    .where('chain_id', '=', String(chainId))
    .where('ledger_due', '=', true);
  if (slice.partitions > 1) {
    query = query.where(sql<number>`mod(abs(hashtext(issuance_id::text)::int8), ${slice.partitions})`, '=', slice.partition);
  }
  const rows = await query.orderBy('block_number').orderBy('log_index').limit(limit).forUpdate().skipLocked().execute();
  return rows.map(toWatchedTransfer);
}

export async function markLedgerTold(trx: Tx, told: readonly { readonly transfer: WatchedTransfer; readonly ledgerStatus: LedgerStatus | null }[], now: Date): Promise<void> {
  if (told.length === 0) return;
  const byStatus = new Map<LedgerStatus | null, WatchedTransfer[]>();
  for (const { transfer, ledgerStatus } of told) byStatus.set(ledgerStatus, [...(byStatus.get(ledgerStatus) ?? []), transfer]);
  for (const [ledgerStatus, transfers] of byStatus) {
    await tablesTx(trx)
      .updateTable('evm_transfers')
      .set({ ledger_status: ledgerStatus, ledger_due: false, updated_at: now })
      .where('chain_id', '=', String(transfers[0]?.chainId))
      .where(sql<boolean>`(tx_hash, log_index) in (${sql.join(transfers.map((transfer) => sql`(${transfer.txHash}, ${transfer.logIndex})`))})`)
      .execute();
  }
}

/** What the operator's admin endpoint shows per network. */
export async function scanStatus(db: Db, chainId: number): Promise<{ readonly headBlock: bigint | null; readonly lastScannedBlock: bigint | null }> {
  const cursor = await findScanCursor(db, chainId);
  if (cursor === undefined) return { headBlock: null, lastScannedBlock: null };
  return { headBlock: cursor.headBlock, lastScannedBlock: cursor.nextBlock - 1n };
}

/** Every transfer the watcher recorded for an issuance, credited or not, in chain order. */
export async function listIssuanceChainTransfers(executor: Executor, issuanceId: string): Promise<WatchedTransfer[]> {
  const rows = await tables(executor)
    .selectFrom('evm_transfers')
    .selectAll()
    .where('issuance_id', '=', issuanceId)
    .orderBy('block_number')
    .orderBy('log_index')
    .execute();
  return rows.map(toWatchedTransfer);
}

type TransferRow = {
  chain_id: string;
  tx_hash: string;
  log_index: number;
  block_number: string;
  block_hash: string;
  token: string;
  from_address: string;
  to_address: string;
  amount: string;
  issuance_id: string;
  status: EvmTransferStatus;
  credited: boolean;
  ledger_status: LedgerStatus | null;
};

function toWatchedTransfer(row: TransferRow): WatchedTransfer {
  return {
    chainId: Number(row.chain_id),
    txHash: row.tx_hash,
    logIndex: row.log_index,
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
