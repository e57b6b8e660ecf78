import { sql } from 'kysely';
import type { Executor, Tx } from '../../../platform/database/database.js';
import type { EvmTables } from './relayer.schema.js';

/** SQL for `evm_relayers`: one relayer account per network, its sealed key and its nonce. */

export interface RelayerRow {
  readonly chainId: number;
  /** Checksummed 0x address. */
  readonly address: string;
  readonly sealedKey: string;
  readonly nextNonce: bigint;
}

const evm = (executor: Executor) => executor.withTables<EvmTables>();
const evmTx = (trx: Tx) => trx.withTables<EvmTables>();

type Row = { chain_id: number; address: string; sealed_key: string; next_nonce: string };
const toRelayer = (row: Row): RelayerRow => ({
  chainId: row.chain_id,
  address: row.address,
  sealedKey: row.sealed_key,
  nextNonce: BigInt(row.next_nonce),
});

/** Inserts the relayer unless the network has one already (a racing process won): the caller reads back. */
export async function insertRelayerIfAbsent(executor: Executor, row: { chainId: number; address: string; sealedKey: string }): Promise<void> {
  await evm(executor)
    .insertInto('evm_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, next_nonce: '0' })
    .onConflict((conflict) => conflict.column('chain_id').doNothing())
    .execute();
}

export async function findRelayer(executor: Executor, chainId: number): Promise<RelayerRow | undefined> {
  const row = await evm(executor)
    .selectFrom('evm_relayers')
    .select(['chain_id', 'address', 'sealed_key', 'next_nonce'])
    .where('chain_id', '=', chainId)
    .executeTakeFirst();
  return row === undefined ? undefined : toRelayer(row);
}

/**
 * A send found the relayer short of `neededWei` (gas.wait). The largest need
 * is kept until the balance covers it, so one funding wakes every waiting payout.
 */
export async function noteGasNeeded(executor: Executor, chainId: number, neededWei: bigint, now: Date): Promise<void> {
  await evm(executor)
    .updateTable('evm_relayers')
    .set({ gas_needed_wei: sql<string>`greatest(gas_needed_wei, ${neededWei.toString()}::numeric)`, updated_at: now })
    .where('chain_id', '=', chainId)
    .execute();
}

/** The relayer and what payouts in gas.wait need it to hold, in one read; undefined when none waits. */
export async function findGasNeeded(executor: Executor, chainId: number): Promise<{ readonly address: string; readonly neededWei: bigint } | undefined> {
  const row = await evm(executor)
    .selectFrom('evm_relayers')
    .select(['address', 'gas_needed_wei'])
    .where('chain_id', '=', chainId)
    .where('gas_needed_wei', 'is not', null)
    .executeTakeFirst();
  return row === undefined || row.gas_needed_wei === null ? undefined : { address: row.address, neededWei: BigInt(row.gas_needed_wei) };
}

/** Clears the need once a balance of `coveredWei` covers it; false when a larger need was noted meanwhile. */
export async function clearGasNeeded(trx: Tx, chainId: number, coveredWei: bigint, now: Date): Promise<boolean> {
  const result = await evmTx(trx)
    .updateTable('evm_relayers')
    .set({ gas_needed_wei: null, updated_at: now })
    .where('chain_id', '=', chainId)
    .where('gas_needed_wei', '<=', coveredWei.toString())
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The relayer row locked until the transaction ends: whoever holds it is the only one signing on that network. */
export async function lockRelayer(trx: Tx, chainId: number): Promise<RelayerRow | undefined> {
  const row = await evmTx(trx)
    .selectFrom('evm_relayers')
    .select(['chain_id', 'address', 'sealed_key', 'next_nonce'])
    .where('chain_id', '=', chainId)
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : toRelayer(row);
}

export async function setNextNonce(trx: Tx, chainId: number, nextNonce: bigint, now: Date): Promise<void> {
  await evmTx(trx).updateTable('evm_relayers').set({ next_nonce: nextNonce.toString(), updated_at: now }).where('chain_id', '=', chainId).execute();
}

/** Gives back `nonce` when it is still the last one taken (nothing signed since): a transaction the node refused outright. */
export async function releaseNonce(trx: Tx, chainId: number, nonce: bigint, now: Date): Promise<void> {
  await evmTx(trx)
    .updateTable('evm_relayers')
    .set({ next_nonce: nonce.toString(), updated_at: now })
    .where('chain_id', '=', chainId)
    .where('next_nonce', '=', (nonce + 1n).toString())
    .execute();
}

/** Inserts or replaces the network's key; the nonce restarts (it is raised to the chain's own count before each signature). */
export async function upsertRelayerKey(trx: Tx, row: { chainId: number; address: string; sealedKey: string }, now: Date): Promise<void> {
  await evmTx(trx)
    .insertInto('evm_relayers')
    .values({ chain_id: row.chainId, address: row.address, sealed_key: row.sealedKey, next_nonce: '0', created_at: now, updated_at: now })
    .onConflict((conflict) =>
      conflict.column('chain_id').doUpdateSet({ address: row.address, sealed_key: row.sealedKey, next_nonce: '0', updated_at: now }),
    )
    .execute();
}

/**
 * Takes (or keeps) the right to track the network's payout transactions until
 * `until`: granted when nobody holds it, when the holder's lease ran out, or
 * to the holder itself. True when granted.
 */
export async function claimTrackerLease(executor: Executor, chainId: number, owner: string, now: Date, until: Date): Promise<boolean> {
  const result = await evm(executor)
    .updateTable('evm_relayers')
    .set({ tracker_owner: owner, tracker_lease_until: until })
    .where('chain_id', '=', chainId)
    .where((where) =>
      where.or([where('tracker_lease_until', 'is', null), where('tracker_lease_until', '<', now), where('tracker_owner', '=', owner)]),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Whether the network's relayer has transactions whose nonce is not settled yet (signed, unmined or below depth). */
export async function hasOpenTransactions(executor: Executor, chainId: number): Promise<boolean> {
  const row = await evm(executor)
    .selectFrom('evm_payout_transactions')
    .select('id')
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['pending', 'mined'])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives the tracking right back at the end of a run, so that another process need not wait for the lease to run out. */
export async function releaseTrackerLease(executor: Executor, chainId: number, owner: string): Promise<void> {
  await evm(executor)
    .updateTable('evm_relayers')
    .set({ tracker_owner: null, tracker_lease_until: null })
    .where('chain_id', '=', chainId)
    .where('tracker_owner', '=', owner)
    .execute();
}
