import type { Selectable, Updateable } from 'kysely';
import { getAddress, type Address, type Hex } from 'viem';
import type { Executor, Tx } from '../../../platform/database/database.js';
import type { EvmPayoutTransactionsTable, EvmPayoutTransactionStatus, EvmTables } from '../relayer/index.js';

/**
 * SQL for `evm_payout_transactions` (every sweep transaction the relayer
 * signed, stored before its broadcast) and `evm_payout_members` (the payouts
 * each attempt sweeps: one for `sweep`, several for `sweepBatch`).
 */

export interface PayoutTransaction {
  readonly id: string;
  /**
   * The payouts this transaction sweeps, in the order of its call's terms:
   * one for a single sweep, several for a batch. Shared by every transaction
   * of the attempt (a fee bump replays the same call).
   */
  readonly payoutIds: readonly string[];
  readonly chainId: number;
  readonly relayer: Address;
  readonly nonce: bigint;
  /** 0 for the first signature of a nonce, n for its n-th fee bump. */
  readonly replacement: number;
  readonly rawTransaction: Hex;
  readonly txHash: Hex;
  readonly gasLimit: bigint;
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
  readonly status: EvmPayoutTransactionStatus;
  readonly createdAt: Date;
  readonly broadcastAt: Date | null;
  readonly minedBlockNumber: bigint | null;
  readonly minedBlockHash: Hex | null;
}

/** A block a transaction was seen in, with what its receipt said. */
export interface MinedIn {
  readonly blockNumber: bigint;
  readonly blockHash: Hex;
  readonly success: boolean;
  readonly gasUsed: bigint;
  readonly effectiveGasPrice: bigint;
}

const evm = (executor: Executor) => executor.withTables<EvmTables>();

function toPayoutTransaction(row: Selectable<EvmPayoutTransactionsTable>, payoutIds: readonly string[]): PayoutTransaction {
  return {
    id: row.id,
    payoutIds,
    chainId: row.chain_id,
    relayer: getAddress(row.relayer),
    nonce: BigInt(row.nonce),
    replacement: row.replacement,
    rawTransaction: row.raw_transaction as Hex,
    txHash: row.tx_hash as Hex,
    gasLimit: BigInt(row.gas_limit),
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    status: row.status,
    createdAt: row.created_at,
    broadcastAt: row.broadcast_at,
    minedBlockNumber: row.mined_block_number === null ? null : BigInt(row.mined_block_number),
    minedBlockHash: row.mined_block_hash as Hex | null,
  };
}

/** The attempt's key: one nonce of one relayer on one network. */
const attemptKey = (relayer: string, nonce: bigint | string) => `${getAddress(relayer)}:${nonce.toString()}`;

/** The rows with their attempts' members (two queries, whatever the number of rows). */
async function withMembers(executor: Executor, chainId: number, rows: readonly Selectable<EvmPayoutTransactionsTable>[]): Promise<PayoutTransaction[]> {
  if (rows.length === 0) return [];
  const nonces = [...new Set(rows.map((row) => row.nonce.toString()))];
  const members = await evm(executor)
    .selectFrom('evm_payout_members')
    .select(['relayer', 'nonce', 'payout_id'])
    .where('chain_id', '=', chainId)
    .where('nonce', 'in', nonces)
    .orderBy('position')
    .execute();
  const byAttempt = new Map<string, string[]>();
  for (const member of members) {
    const key = attemptKey(member.relayer, member.nonce);
    byAttempt.set(key, [...(byAttempt.get(key) ?? []), member.payout_id]);
  }
  return rows.map((row) => {
    const payoutIds = byAttempt.get(attemptKey(row.relayer, row.nonce)) ?? (row.payout_id === null ? [] : [row.payout_id]);
    if (payoutIds.length === 0) throw new Error(`payout transaction ${row.tx_hash} has no payout`);
    return toPayoutTransaction(row, payoutIds);
  });
}

/**
 * Stores a signed transaction; the first of an attempt (replacement 0) also
 * stores the attempt's members. In the signer's transaction, before the broadcast.
 */
export async function insertPayoutTransaction(trx: Tx, transaction: PayoutTransaction): Promise<void> {
  const [single, ...more] = transaction.payoutIds;
  if (single === undefined) throw new Error('a payout transaction sweeps at least one payout');
  await evm(trx)
    .insertInto('evm_payout_transactions')
    .values({
      id: transaction.id,
      payout_id: more.length === 0 ? single : null,
      chain_id: transaction.chainId,
      relayer: transaction.relayer,
      nonce: transaction.nonce,
      replacement: transaction.replacement,
      raw_transaction: transaction.rawTransaction,
      tx_hash: transaction.txHash,
      gas_limit: transaction.gasLimit,
      max_fee_per_gas: transaction.maxFeePerGas,
      max_priority_fee_per_gas: transaction.maxPriorityFeePerGas,
      status: transaction.status,
      created_at: transaction.createdAt,
      updated_at: transaction.createdAt,
    })
    .execute();
  if (transaction.replacement !== 0) return;
  await evm(trx)
    .insertInto('evm_payout_members')
    .values(
      transaction.payoutIds.map((payoutId, position) => ({
        chain_id: transaction.chainId,
        relayer: transaction.relayer,
        nonce: transaction.nonce,
        payout_id: payoutId,
        position,
      })),
    )
    .execute();
}

/** A payout's transactions, alone or in batches: newest attempt (highest nonce) and newest replacement first. */
export async function listPayoutTransactions(executor: Executor, chainId: number, payoutId: string): Promise<PayoutTransaction[]> {
  const rows = await evm(executor)
    .selectFrom('evm_payout_transactions as t')
    .innerJoin('evm_payout_members as m', (join) => join.onRef('m.chain_id', '=', 't.chain_id').onRef('m.relayer', '=', 't.relayer').onRef('m.nonce', '=', 't.nonce'))
    .selectAll('t')
    .where('t.chain_id', '=', chainId)
    .where('m.payout_id', '=', payoutId)
    .orderBy('t.nonce', 'desc')
    .orderBy('t.replacement', 'desc')
    .execute();
  return withMembers(executor, chainId, rows);
}

/**
 * What the tracker watches: transactions not yet settled (`pending`, `mined`),
 * and confirmed ones mined at or after `watchConfirmedFrom` (a reorg past the
 * depth can still take them away).
 */
export async function listTrackedTransactions(executor: Executor, chainId: number, watchConfirmedFrom: bigint, limit: number): Promise<PayoutTransaction[]> {
  const rows = await evm(executor)
    .selectFrom('evm_payout_transactions')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where((where) =>
      where.or([
        where('status', 'in', ['pending', 'mined']),
        where.and([where('status', '=', 'confirmed'), where('mined_block_number', '>=', watchConfirmedFrom.toString())]),
      ]),
    )
    .orderBy('nonce')
    .orderBy('replacement')
    .limit(limit)
    .execute();
  return withMembers(executor, chainId, rows);
}

export async function markBroadcast(executor: Executor, id: string, now: Date): Promise<void> {
  await evm(executor).updateTable('evm_payout_transactions').set({ broadcast_at: now, updated_at: now }).where('id', '=', id).execute();
}

/**
 * Moves one transaction from one of `from` to `to`, with what the chain said
 * of it (a block, or none after a reorg). Conditional, so that two processes
 * that saw the same thing change it once: true for the one that did.
 */
export async function moveTransaction(
  executor: Executor,
  id: string,
  from: readonly EvmPayoutTransactionStatus[],
  to: EvmPayoutTransactionStatus,
  now: Date,
  minedIn: MinedIn | null | undefined,
): Promise<boolean> {
  const patch: Updateable<EvmPayoutTransactionsTable> = { status: to, updated_at: now };
  if (minedIn === null) {
    Object.assign(patch, { mined_block_number: null, mined_block_hash: null, receipt_status: null, gas_used: null, effective_gas_price: null, confirmed_at: null });
  } else if (minedIn !== undefined) {
    Object.assign(patch, {
      mined_block_number: minedIn.blockNumber.toString(),
      mined_block_hash: minedIn.blockHash,
      receipt_status: minedIn.success ? 'success' : 'reverted',
      gas_used: minedIn.gasUsed.toString(),
      effective_gas_price: minedIn.effectiveGasPrice.toString(),
    });
  }
  if (to === 'confirmed') patch.confirmed_at = now;
  const result = await evm(executor)
    .updateTable('evm_payout_transactions')
    .set(patch)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The other transactions of an attempt (same relayer and nonce) in one of `from` become `to`. */
export async function moveSiblings(
  executor: Executor,
  transaction: PayoutTransaction,
  from: readonly EvmPayoutTransactionStatus[],
  to: EvmPayoutTransactionStatus,
  now: Date,
): Promise<void> {
  await evm(executor)
    .updateTable('evm_payout_transactions')
    .set({ status: to, updated_at: now })
    .where('chain_id', '=', transaction.chainId)
    .where('relayer', '=', transaction.relayer)
    .where('nonce', '=', transaction.nonce.toString())
    .where('id', '!=', transaction.id)
    .where('status', 'in', [...from])
    .execute();
}

/** The transactions signed for one nonce of the relayer (an attempt and its fee bumps), newest first. */
export async function listAttempt(executor: Executor, chainId: number, relayer: Address, nonce: bigint): Promise<PayoutTransaction[]> {
  const rows = await evm(executor)
    .selectFrom('evm_payout_transactions')
    .selectAll()
    .where('chain_id', '=', chainId)
    .where('relayer', '=', relayer)
    .where('nonce', '=', nonce.toString())
    .orderBy('replacement', 'desc')
    .execute();
  return withMembers(executor, chainId, rows);
}
