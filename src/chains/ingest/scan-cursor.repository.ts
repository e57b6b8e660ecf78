import { sql } from 'kysely';
import type { Db, Executor, Tx } from '../../platform/database/database.js';
import type { IngestTables } from './ingest.schema.js';

/**
 * The compare-and-set scan cursor of each network (and stream: see
 * `ingest.schema.ts`). It moves only in the transaction that records what
 * was read before it, so a failed read skips nothing.
 */
const tables = (executor: Executor) => executor.withTables<IngestTables>();
const tablesTx = (trx: Tx) => trx.withTables<IngestTables>();

/** Block-range sources read the whole chain: one stream. */
const WHOLE_CHAIN = '';

export interface ScanCursor {
  readonly nextBlock: bigint;
  readonly headBlock: bigint | null;
}

/** The cursor of `chainId`, created at `startBlock` on first use. */
export async function ensureScanCursor(db: Db, chainId: number, startBlock: bigint, now: Date): Promise<ScanCursor> {
  const existing = await findScanCursor(db, chainId);
  if (existing !== undefined) return existing;
  await tables(db)
    .insertInto('chain_scan_cursors')
    .values({ chain_id: String(chainId), stream: WHOLE_CHAIN, next_block: String(startBlock), head_block: null, after_id: null, updated_at: now })
    .onConflict((conflict) => conflict.columns(['chain_id', 'stream']).doNothing())
    .execute();
  const cursor = await findScanCursor(db, chainId);
  if (cursor === undefined) throw new Error(`ingest: no scan cursor for chain ${chainId}`);
  return cursor;
}

export async function findScanCursor(executor: Executor, chainId: number): Promise<ScanCursor | undefined> {
  const row = await tables(executor)
    .selectFrom('chain_scan_cursors')
    .select(['next_block', 'head_block'])
    .where('chain_id', '=', String(chainId))
    .where('stream', '=', WHOLE_CHAIN)
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
  // The key of the EVM watcher before the move, so that old and new processes exclude each other during an upgrade.
  const locked = await sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(hashtextextended(${`ivory.evm-watcher:${chainId}`}, 0)) as locked`.execute(trx);
  if (locked.rows[0]?.locked !== true) return false;
  const row = await tablesTx(trx)
    .selectFrom('chain_scan_cursors')
    .select('next_block')
    .where('chain_id', '=', String(chainId))
    .where('stream', '=', WHOLE_CHAIN)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined && BigInt(row.next_block) === expectedNextBlock;
}

export async function moveScanCursor(trx: Tx, chainId: number, nextBlock: bigint, headBlock: bigint, now: Date): Promise<void> {
  await tablesTx(trx)
    .updateTable('chain_scan_cursors')
    .set({ next_block: String(nextBlock), head_block: String(headBlock), updated_at: now })
    .where('chain_id', '=', String(chainId))
    .where('stream', '=', WHOLE_CHAIN)
    .execute();
}

/** What the operator's admin endpoint shows per network. */
export async function scanStatus(db: Db, chainId: number): Promise<{ readonly headBlock: bigint | null; readonly lastScannedBlock: bigint | null }> {
  const cursor = await findScanCursor(db, chainId);
  if (cursor === undefined) return { headBlock: null, lastScannedBlock: null };
  return { headBlock: cursor.headBlock, lastScannedBlock: cursor.nextBlock - 1n };
}
