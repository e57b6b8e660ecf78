import type { Executor, Tx } from '../../platform/database/database.js';
import type { IngestTables } from './ingest.schema.js';

const tables = (executor: Executor) => executor.withTables<IngestTables>();

/** A range of already scanned blocks being read again (issue 22 item 5). */
export interface Rescan {
  readonly chainId: number;
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  /** The first block not read again yet. */
  readonly nextBlock: bigint;
}

/** False when the network already has a rescan in progress (nothing is written). */
export async function insertRescan(trx: Tx, rescan: Omit<Rescan, 'nextBlock'>, now: Date): Promise<boolean> {
  const inserted = await tables(trx)
    .insertInto('chain_rescans')
    .values({ chain_id: String(rescan.chainId), from_block: String(rescan.fromBlock), to_block: String(rescan.toBlock), next_block: String(rescan.fromBlock), requested_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function findRescan(executor: Executor, chainId: number): Promise<Rescan | undefined> {
  const row = await tables(executor).selectFrom('chain_rescans').selectAll().where('chain_id', '=', String(chainId)).executeTakeFirst();
  return row === undefined ? undefined : rescanOf(row);
}

export async function listRescans(executor: Executor): Promise<Rescan[]> {
  return (await tables(executor).selectFrom('chain_rescans').selectAll().execute()).map(rescanOf);
}

/**
 * Compare-and-set: the rescan moves past `nextBlock` only if it still starts
 * there (one reader per network); past its last block it is done and goes.
 */
export async function advanceRescan(trx: Tx, rescan: Rescan, nextBlock: bigint, now: Date): Promise<boolean> {
  if (nextBlock > rescan.toBlock) {
    const deleted = await tables(trx).deleteFrom('chain_rescans').where('chain_id', '=', String(rescan.chainId)).where('next_block', '=', String(rescan.nextBlock)).executeTakeFirst();
    return Number(deleted.numDeletedRows) === 1;
  }
  const updated = await tables(trx)
    .updateTable('chain_rescans')
    .set({ next_block: String(nextBlock), updated_at: now })
    .where('chain_id', '=', String(rescan.chainId))
    .where('next_block', '=', String(rescan.nextBlock))
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

function rescanOf(row: { chain_id: string; from_block: string; to_block: string; next_block: string }): Rescan {
  return { chainId: Number(row.chain_id), fromBlock: BigInt(row.from_block), toBlock: BigInt(row.to_block), nextBlock: BigInt(row.next_block) };
}
