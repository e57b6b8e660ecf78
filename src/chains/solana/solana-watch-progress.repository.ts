import type { Executor } from '../../platform/database/database.js';
import type { SolanaTables } from './solana.schema.js';

/** SQL for `solana_watch_progress` (migration 202611300400_solana_operations): the network status's last_scanned_block on Solana. */

const solana = (executor: Executor) => executor.withTables<SolanaTables>();

/** Records a complete watcher pass that began at finalized slot `slot`; never moves backwards (two processes may race). */
export async function noteScannedFinalizedSlot(executor: Executor, chainId: number, slot: bigint, now: Date): Promise<void> {
  await solana(executor)
    .insertInto('solana_watch_progress')
    .values({ chain_id: chainId, scanned_finalized_slot: slot.toString(), updated_at: now })
    .onConflict((conflict) =>
      conflict
        .column('chain_id')
        .doUpdateSet({ scanned_finalized_slot: slot.toString(), updated_at: now })
        .where('solana_watch_progress.scanned_finalized_slot', '<', slot.toString()),
    )
    .execute();
}

export async function findScannedFinalizedSlot(executor: Executor, chainId: number): Promise<bigint | null> {
  const row = await solana(executor).selectFrom('solana_watch_progress').select('scanned_finalized_slot').where('chain_id', '=', chainId).executeTakeFirst();
  return row === undefined ? null : BigInt(row.scanned_finalized_slot);
}
