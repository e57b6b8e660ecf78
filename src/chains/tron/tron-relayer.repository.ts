import { sql } from 'kysely';
import type { Executor, Tx } from '../../platform/database/database.js';
import type { TronTables } from './tron.schema.js';

/** SQL for `tron_relayers`: one relayer per Tron network, its sealed key, and the TRX payouts in gas.wait need. */

const tron = (executor: Executor) => executor.withTables<TronTables>();

export async function insertTronRelayerIfAbsent(executor: Executor, row: { readonly chainId: number; readonly address: string; readonly sealedKey: string }): Promise<void> {
  await tron(executor)
    .insertInto('tron_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, trx_needed_sun: null })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
}

export async function upsertTronRelayer(executor: Executor, row: { readonly chainId: number; readonly address: string; readonly sealedKey: string }, now: Date): Promise<void> {
  await tron(executor)
    .insertInto('tron_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, trx_needed_sun: null, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column('chain_id').doUpdateSet({ address: row.address, sealed_key: row.sealedKey, updated_at: now }))
    .execute();
}

export async function findTronRelayerRow(executor: Executor, chainId: number): Promise<{ readonly chainId: number; readonly address: string; readonly sealedKey: string } | undefined> {
  const row = await tron(executor).selectFrom('tron_relayers').select(['chain_id', 'address', 'sealed_key']).where('chain_id', '=', chainId).executeTakeFirst();
  return row === undefined ? undefined : { chainId: row.chain_id, address: row.address, sealedKey: row.sealed_key };
}

/** A send found the relayer short of `neededSun` (gas.wait); the largest need is kept until covered. */
export async function noteTrxNeeded(executor: Executor, chainId: number, neededSun: bigint, now: Date): Promise<void> {
  await tron(executor)
    .updateTable('tron_relayers')
    .set({ trx_needed_sun: sql<string>`greatest(coalesce(trx_needed_sun, 0), ${neededSun.toString()}::numeric)`, updated_at: now })
    .where('chain_id', '=', chainId)
    .execute();
}

export async function findTrxNeeded(executor: Executor, chainId: number): Promise<{ readonly address: string; readonly neededSun: bigint } | undefined> {
  const row = await tron(executor)
    .selectFrom('tron_relayers')
    .select(['address', 'trx_needed_sun'])
    .where('chain_id', '=', chainId)
    .where('trx_needed_sun', 'is not', null)
    .executeTakeFirst();
  return row === undefined || row.trx_needed_sun === null ? undefined : { address: row.address, neededSun: BigInt(row.trx_needed_sun) };
}

/** Clears the need once `coveredSun` covers it; false when a larger need was noted meanwhile. */
export async function clearTrxNeeded(trx: Tx, chainId: number, coveredSun: bigint, now: Date): Promise<boolean> {
  const result = await tron(trx)
    .updateTable('tron_relayers')
    .set({ trx_needed_sun: null, updated_at: now })
    .where('chain_id', '=', chainId)
    .where('trx_needed_sun', '<=', coveredSun.toString())
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function isTronRelayerAddress(executor: Executor, address: string): Promise<boolean> {
  const row = await tron(executor).selectFrom('tron_relayers').select('chain_id').where('address', '=', address).limit(1).executeTakeFirst();
  return row !== undefined;
}
