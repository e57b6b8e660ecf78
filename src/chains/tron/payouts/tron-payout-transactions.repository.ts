import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../platform/database/database.js';
import type { TronPayoutTransactionStatus, TronTables } from '../tron.schema.js';

/** SQL for `tron_payout_transactions`: every transaction signed for a payout, stored before it is broadcast. */

export interface TronPayoutTransaction {
  readonly id: string;
  readonly payoutId: string;
  readonly chainId: number;
  readonly relayer: string;
  readonly txId: string;
  readonly rawDataHex: string;
  readonly signature: string;
  /** ms since the epoch, the clock of block timestamps. */
  readonly expiration: bigint;
  readonly feeLimit: bigint;
  readonly status: TronPayoutTransactionStatus;
  readonly receiptResult: string | null;
  readonly broadcastAt: Date | null;
}

export interface TronReceiptDetails {
  readonly blockNumber: bigint | null;
  readonly receiptResult: string | null;
  readonly energyUsed: bigint | null;
  readonly feeSun: bigint | null;
}

const tron = (executor: Executor) => executor.withTables<TronTables>();

type Row = {
  id: string;
  payout_id: string;
  chain_id: number;
  relayer: string;
  tx_id: string;
  raw_data_hex: string;
  signature: string;
  expiration: string;
  fee_limit: string;
  status: TronPayoutTransactionStatus;
  receipt_result: string | null;
  broadcast_at: Date | null;
};

const COLUMNS = ['id', 'payout_id', 'chain_id', 'relayer', 'tx_id', 'raw_data_hex', 'signature', 'expiration', 'fee_limit', 'status', 'receipt_result', 'broadcast_at'] as const;

const toTransaction = (row: Row): TronPayoutTransaction => ({
  id: row.id,
  payoutId: row.payout_id,
  chainId: row.chain_id,
  relayer: row.relayer,
  txId: row.tx_id,
  rawDataHex: row.raw_data_hex,
  signature: row.signature,
  expiration: BigInt(row.expiration),
  feeLimit: BigInt(row.fee_limit),
  status: row.status,
  receiptResult: row.receipt_result,
  broadcastAt: row.broadcast_at,
});

/** The payout's transactions, oldest first. */
export async function listTronPayoutTransactions(executor: Executor, chainId: number, payoutId: string): Promise<TronPayoutTransaction[]> {
  const rows = await tron(executor)
    .selectFrom('tron_payout_transactions')
    .select(COLUMNS)
    .where('chain_id', '=', chainId)
    .where('payout_id', '=', payoutId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toTransaction);
}

/** The network's transactions whose fate is not known yet: signed (maybe broadcast) or landed above the solidified block. */
export async function listOpenTronPayoutTransactions(executor: Executor, chainId: number, limit = 500): Promise<TronPayoutTransaction[]> {
  const rows = await tron(executor)
    .selectFrom('tron_payout_transactions')
    .select(COLUMNS)
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['signed', 'landed'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map(toTransaction);
}

export async function insertTronPayoutTransaction(
  executor: Executor,
  row: Omit<TronPayoutTransaction, 'id' | 'status' | 'receiptResult' | 'broadcastAt'>,
  now: Date,
): Promise<TronPayoutTransaction> {
  const id = randomUUID();
  await tron(executor)
    .insertInto('tron_payout_transactions')
    .values({
      id,
      payout_id: row.payoutId,
      chain_id: row.chainId,
      relayer: row.relayer,
      tx_id: row.txId,
      raw_data_hex: row.rawDataHex,
      signature: row.signature,
      expiration: row.expiration,
      fee_limit: row.feeLimit,
      status: 'signed',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { ...row, id, status: 'signed', receiptResult: null, broadcastAt: null };
}

export async function markTronBroadcast(executor: Executor, id: string, now: Date): Promise<void> {
  await tron(executor).updateTable('tron_payout_transactions').set({ broadcast_at: now, updated_at: now }).where('id', '=', id).execute();
}

/** Moves a transaction from one of `from` to `to`; false when another process moved it first. */
export async function moveTronPayoutTransaction(
  executor: Executor,
  id: string,
  from: readonly TronPayoutTransactionStatus[],
  to: TronPayoutTransactionStatus,
  now: Date,
  details?: TronReceiptDetails,
): Promise<boolean> {
  const result = await tron(executor)
    .updateTable('tron_payout_transactions')
    .set({
      status: to,
      updated_at: now,
      ...(details === undefined
        ? {}
        : { block_number: details.blockNumber, receipt_result: details.receiptResult, energy_used: details.energyUsed, fee_sun: details.feeSun }),
    })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
