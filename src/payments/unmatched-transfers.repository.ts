import type { IngestTables } from '../chains/index.js';
import type { Executor } from '../platform/database/database.js';
import type { ShopId } from '../platform/ids.js';

/**
 * Transfers of a catalogue token to one of Ivory's payment addresses that no
 * issuance can take (issue 22 item 5): today, a token other than the
 * issuance's own, which the chain watcher records in its inbox with
 * `credited = false` and never tells the ledger. Paused deposits and cancelled
 * or expired invoices are not here: the ledger credits those (LEDGER).
 */
export interface UnmatchedTransferRecord {
  readonly chainId: number;
  readonly txHash: string;
  readonly logIndex: number;
  readonly blockNumber: bigint;
  /** The payment address that received it. */
  readonly address: string;
  readonly token: string;
  readonly amount: bigint;
  /** observed, confirmed, or reverted (a reorg took it away). */
  readonly status: string;
  readonly issuanceId: string;
  readonly shopId: string;
  readonly merchantId: string;
  readonly observedAt: Date;
}

/**
 * A keyset position, newest first: the (observed_at, chain_id, block_number,
 * tx_hash, log_index) of the last row read. Transfers seen in one pass share
 * `observed_at`; within a network the block orders them as the chain did.
 */
export interface UnmatchedKey {
  readonly observedAt: Date;
  readonly chainId: number;
  readonly blockNumber: bigint;
  readonly txHash: string;
  readonly logIndex: number;
}

export async function listUnmatchedTransfers(
  executor: Executor,
  filter: { readonly shopId?: ShopId; readonly chainId?: number },
  page: { readonly after: UnmatchedKey | undefined; readonly limit: number },
): Promise<UnmatchedTransferRecord[]> {
  let query = executor
    .withTables<IngestTables>()
    .selectFrom('chain_transfers as t')
    .innerJoin('issuances as i', 'i.id', 't.issuance_id')
    .select([
      't.chain_id',
      't.tx_id',
      't.position',
      't.block_number',
      't.to_address',
      't.token',
      't.amount',
      't.status',
      't.issuance_id',
      't.observed_at',
      'i.shop_id',
      'i.merchant_id',
    ])
    .where('t.credited', '=', false);
  if (filter.shopId !== undefined) query = query.where('i.shop_id', '=', filter.shopId);
  if (filter.chainId !== undefined) query = query.where('t.chain_id', '=', String(filter.chainId));
  const after = page.after;
  if (after !== undefined) {
    query = query.where((eb) =>
      eb(
        eb.refTuple('t.observed_at', 't.chain_id', 't.block_number', 't.tx_id', 't.position'),
        '<',
        eb.tuple(after.observedAt, String(after.chainId), String(after.blockNumber), after.txHash, after.logIndex),
      ),
    );
  }
  const rows = await query
    .orderBy('t.observed_at', 'desc')
    .orderBy('t.chain_id', 'desc')
    .orderBy('t.block_number', 'desc')
    .orderBy('t.tx_id', 'desc')
    .orderBy('t.position', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((row) => ({
    chainId: Number(row.chain_id),
    txHash: row.tx_id,
    logIndex: row.position,
    blockNumber: BigInt(row.block_number),
    address: row.to_address,
    token: row.token,
    amount: BigInt(row.amount),
    status: row.status,
    issuanceId: row.issuance_id,
    shopId: row.shop_id,
    merchantId: row.merchant_id,
    observedAt: new Date(row.observed_at),
  }));
}
