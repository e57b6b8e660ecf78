import type { Executor } from '../platform/database/database.js';
import type { TransferDisposition, TransferStatus } from '../issuances/index.js';
import type { PayoutStatus } from '../payouts/index.js';

/**
 * The payment history of a shop: its incoming transfers and its payouts as one
 * list ordered by (created_at, id). Each table is read through its
 * `(shop_id, created_at desc, id desc)` index with the same keyset bound and
 * limit, and the two pages are merged here: the first `limit` rows of the
 * merge are exactly the first `limit` rows of the union, because each table
 * contributes at most `limit` of them. Two queries a page, whatever its size.
 */

export type PaymentType = 'transfer' | 'payout';

export interface PaymentRecord {
  readonly type: PaymentType;
  readonly id: string;
  readonly issuanceId: string;
  readonly publicId: string;
  readonly externalId: string | null;
  readonly chainId: number;
  readonly token: string;
  readonly tokenDecimals: number;
  /** A transfer's amount; a payout's gross (what left the address: to_recipient + to_operator). */
  readonly amount: bigint;
  readonly status: TransferStatus | PayoutStatus;
  /** Transfers only (null until confirmed). */
  readonly disposition: TransferDisposition | null;
  readonly txHash: string | null;
  /** Payouts only. */
  readonly fee: bigint | null;
  readonly toRecipient: bigint | null;
  readonly toOperator: bigint | null;
  readonly createdAt: Date;
  readonly confirmedAt: Date | null;
}

/** A keyset position: the (created_at, id) of the last row already read. */
export interface PaymentKey {
  readonly createdAt: Date;
  readonly id: string;
}

export interface PaymentPageQuery {
  /** `newest`: descending, rows before `after`; `oldest`: ascending, rows after it. */
  readonly order: 'newest' | 'oldest';
  readonly after: PaymentKey | undefined;
  readonly limit: number;
}

export async function listShopPayments(executor: Executor, shopId: string, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const [transfers, payouts] = await Promise.all([
    listTransfers(executor, shopId, query),
    listPayouts(executor, shopId, query),
  ]);
  const direction = query.order === 'newest' ? -1 : 1;
  return [...transfers, ...payouts].sort((a, b) => direction * compareKeys(a, b)).slice(0, query.limit);
}

/**
 * The order PostgreSQL gives (timestamptz, uuid): uuid compares by its bytes,
 * which for the lower-case canonical text is the text order.
 */
export function compareKeys(a: PaymentKey, b: PaymentKey): number {
  const byTime = a.createdAt.getTime() - b.createdAt.getTime();
  if (byTime !== 0) return byTime;
  const left = a.id.toLowerCase();
  const right = b.id.toLowerCase();
  return left < right ? -1 : left > right ? 1 : 0;
}

async function listTransfers(executor: Executor, shopId: string, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const descending = query.order === 'newest';
  let select = executor
    .selectFrom('transfers as t')
    .innerJoin('issuances as i', 'i.id', 't.issuance_id')
    .select([
      't.id',
      't.issuance_id',
      'i.public_id',
      'i.external_id',
      't.chain_id',
      't.token',
      'i.token_decimals',
      't.amount',
      't.status',
      't.disposition',
      't.tx_hash',
      't.created_at',
      't.confirmed_at',
    ])
    .where('t.shop_id', '=', shopId);
  const { after } = query;
  if (after !== undefined) {
    select = select.where((eb) => eb(eb.refTuple('t.created_at', 't.id'), descending ? '<' : '>', eb.tuple(after.createdAt, after.id)));
  }
  const rows = await select
    .orderBy('t.created_at', descending ? 'desc' : 'asc')
    .orderBy('t.id', descending ? 'desc' : 'asc')
    .limit(query.limit)
    .execute();
  return rows.map((row) => ({
    type: 'transfer',
    id: row.id,
    issuanceId: row.issuance_id,
    publicId: row.public_id,
    externalId: row.external_id,
    chainId: row.chain_id,
    token: row.token,
    tokenDecimals: row.token_decimals,
    amount: BigInt(row.amount),
    status: row.status,
    disposition: row.disposition,
    txHash: row.tx_hash,
    fee: null,
    toRecipient: null,
    toOperator: null,
    createdAt: row.created_at,
    confirmedAt: row.confirmed_at,
  }));
}

async function listPayouts(executor: Executor, shopId: string, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const descending = query.order === 'newest';
  let select = executor
    .selectFrom('payouts as p')
    .innerJoin('issuances as i', 'i.id', 'p.issuance_id')
    .select([
      'p.id',
      'p.issuance_id',
      'i.public_id',
      'i.external_id',
      'p.chain_id',
      'p.token',
      'p.token_decimals',
      'p.gross',
      'p.fee',
      'p.to_recipient',
      'p.to_operator',
      'p.status',
      'p.tx_hash',
      'p.created_at',
      'p.confirmed_at',
    ])
    .where('p.shop_id', '=', shopId);
  const { after } = query;
  if (after !== undefined) {
    select = select.where((eb) => eb(eb.refTuple('p.created_at', 'p.id'), descending ? '<' : '>', eb.tuple(after.createdAt, after.id)));
  }
  const rows = await select
    .orderBy('p.created_at', descending ? 'desc' : 'asc')
    .orderBy('p.id', descending ? 'desc' : 'asc')
    .limit(query.limit)
    .execute();
  return rows.map((row) => ({
    type: 'payout',
    id: row.id,
    issuanceId: row.issuance_id,
    publicId: row.public_id,
    externalId: row.external_id,
    chainId: row.chain_id,
    token: row.token,
    tokenDecimals: row.token_decimals,
    amount: BigInt(row.gross),
    status: row.status,
    disposition: null,
    txHash: row.tx_hash,
    fee: BigInt(row.fee),
    toRecipient: BigInt(row.to_recipient),
    toOperator: BigInt(row.to_operator),
    createdAt: row.created_at,
    confirmedAt: row.confirmed_at,
  }));
}
