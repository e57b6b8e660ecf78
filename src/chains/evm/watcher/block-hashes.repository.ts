import type { Executor, Tx } from '../../../platform/database/database.js';
import type { Numeric } from '../../../platform/database/schema.js';

/**
 * Hashes of recently scanned blocks (`evm_block_hashes`): the EVM source's own
 * memory for its reorg check (`handle-reorg.ts`); the family-neutral cursor and
 * inbox live in `chains/ingest/`.
 */
type EvmBlockHashesTable = {
  chain_id: Numeric;
  block_number: Numeric;
  block_hash: string;
};
type BlockHashTables = { evm_block_hashes: EvmBlockHashesTable };

const tables = (executor: Executor) => executor.withTables<BlockHashTables>();
const tablesTx = (trx: Tx) => trx.withTables<BlockHashTables>();

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
