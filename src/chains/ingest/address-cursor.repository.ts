import type { Executor, Tx } from '../../platform/database/database.js';
import type { IngestTables } from './ingest.schema.js';

/**
 * Per-address cursors of `chain_scan_cursors` (stream = the address): the
 * newest transaction id read for it (`after_id`). A compare-and-set in the
 * transaction that records what was read, like the whole-chain cursor.
 */
const tables = (executor: Executor) => executor.withTables<IngestTables>();

/** The stream's cursor: null when the address was never read (or holds nothing yet). */
export async function findAddressCursor(executor: Executor, chainId: number, stream: string): Promise<string | null> {
  const row = await tables(executor).selectFrom('chain_scan_cursors').select('after_id').where('chain_id', '=', String(chainId)).where('stream', '=', stream).executeTakeFirst();
  return row?.after_id ?? null;
}

/** Moves the cursor from `expected` to `next`; false when another process moved it first (the caller's read is discarded). */
export async function moveAddressCursor(trx: Tx, chainId: number, stream: string, expected: string | null, next: string | null, now: Date): Promise<boolean> {
  await tables(trx)
    .insertInto('chain_scan_cursors')
    .values({ chain_id: String(chainId), stream, next_block: '0', head_block: null, after_id: null, updated_at: now })
    .onConflict((conflict) => conflict.columns(['chain_id', 'stream']).doNothing())
    .execute();
  const row = await tables(trx).selectFrom('chain_scan_cursors').select('after_id').where('chain_id', '=', String(chainId)).where('stream', '=', stream).forUpdate().executeTakeFirst();
  if (row === undefined || row.after_id !== expected) return false;
  if (next !== expected) {
    await tables(trx).updateTable('chain_scan_cursors').set({ after_id: next, updated_at: now }).where('chain_id', '=', String(chainId)).where('stream', '=', stream).execute();
  }
  return true;
}
