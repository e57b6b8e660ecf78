import { randomUUID } from 'node:crypto';
import type { Executor } from '../../../platform/database/database.js';
import type { SolanaPayoutTransactionStatus, SolanaTables } from '../solana.schema.js';

/** SQL for `solana_payout_transactions`: every transaction signed for a payout, stored before it is broadcast. */

export interface SolanaPayoutTransaction {
  readonly id: string;
  readonly payoutId: string;
  readonly chainId: number;
  readonly signature: string;
  readonly wireBase64: string;
  /** The blockhash's expiry, a block height. */
  readonly lastValidBlockHeight: bigint;
  readonly status: SolanaPayoutTransactionStatus;
  readonly broadcastAt: Date | null;
}

const solana = (executor: Executor) => executor.withTables<SolanaTables>();

const COLUMNS = ['id', 'payout_id', 'chain_id', 'signature', 'wire_base64', 'last_valid_block_height', 'status', 'broadcast_at'] as const;

type Row = {
  id: string;
  payout_id: string;
  chain_id: number;
  signature: string;
  wire_base64: string;
  last_valid_block_height: string;
  status: SolanaPayoutTransactionStatus;
  broadcast_at: Date | null;
};

const toTransaction = (row: Row): SolanaPayoutTransaction => ({
  id: row.id,
  payoutId: row.payout_id,
  chainId: Number(row.chain_id),
  signature: row.signature,
  wireBase64: row.wire_base64,
  lastValidBlockHeight: BigInt(row.last_valid_block_height),
  status: row.status,
  broadcastAt: row.broadcast_at,
});

/** The payout's transactions, oldest first. */
export async function listSolanaPayoutTransactions(executor: Executor, chainId: number, payoutId: string): Promise<SolanaPayoutTransaction[]> {
  const rows = await solana(executor)
    .selectFrom('solana_payout_transactions')
    .select(COLUMNS)
    .where('chain_id', '=', chainId)
    .where('payout_id', '=', payoutId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toTransaction);
}

/** The network's transactions whose fate is not known yet. */
export async function listOpenSolanaPayoutTransactions(executor: Executor, chainId: number, limit = 256): Promise<SolanaPayoutTransaction[]> {
  const rows = await solana(executor)
    .selectFrom('solana_payout_transactions')
    .select(COLUMNS)
    .where('chain_id', '=', chainId)
    .where('status', 'in', ['signed', 'landed'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map(toTransaction);
}

export async function insertSolanaPayoutTransaction(
  executor: Executor,
  row: Pick<SolanaPayoutTransaction, 'payoutId' | 'chainId' | 'signature' | 'wireBase64' | 'lastValidBlockHeight'> & { readonly issuanceId: string },
  now: Date,
): Promise<SolanaPayoutTransaction> {
  const id = randomUUID();
  await solana(executor)
    .insertInto('solana_payout_transactions')
    .values({
      id,
      payout_id: row.payoutId,
      issuance_id: row.issuanceId,
      chain_id: row.chainId,
      signature: row.signature,
      wire_base64: row.wireBase64,
      last_valid_block_height: row.lastValidBlockHeight,
      status: 'signed',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return { payoutId: row.payoutId, chainId: row.chainId, signature: row.signature, wireBase64: row.wireBase64, lastValidBlockHeight: row.lastValidBlockHeight, id, status: 'signed', broadcastAt: null };
}

export async function markSolanaBroadcast(executor: Executor, id: string, now: Date): Promise<void> {
  await solana(executor).updateTable('solana_payout_transactions').set({ broadcast_at: now, updated_at: now }).where('id', '=', id).execute();
}

/** Moves a transaction from one of `from` to `to`; false when another process moved it first. */
export async function moveSolanaPayoutTransaction(
  executor: Executor,
  id: string,
  from: readonly SolanaPayoutTransactionStatus[],
  to: SolanaPayoutTransactionStatus,
  now: Date,
  details?: { readonly slot: bigint | null; readonly feeLamports: bigint | null; readonly error: string | null },
): Promise<boolean> {
  const result = await solana(executor)
    .updateTable('solana_payout_transactions')
    .set({ status: to, updated_at: now, ...(details === undefined ? {} : { slot: details.slot, fee_lamports: details.feeLamports, error: details.error }) })
    .where('id', '=', id)
    .where('status', 'in', from)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
