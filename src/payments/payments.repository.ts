import { sql, type ExpressionBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import type { Database, PayoutStatus } from '../platform/database/schema.js';
import type { TransferDisposition, TransferStatus } from '../issuances/index.js';
import { shownPayoutStatus, type ShownPayoutStatus } from '../payouts/index.js';

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
  /** A transfer's status; a payout's as the history shows it (`simulated` for a sandbox payout, `shownPayoutStatus`). */
  readonly status: TransferStatus | ShownPayoutStatus;
  /** Recorded on a sandbox shop: simulated, no money moved. */
  readonly sandbox: boolean;
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

/**
 * Which rows of the history (decision 0038), every condition on both tables
 * alike; an empty object is the whole history. Statuses are those the history
 * shows: `simulated` is a sandbox payout in an unsent queue status.
 */
export interface PaymentWhere {
  /** An issuance, or a group standing for all its options. */
  readonly issuanceId?: string;
  readonly type?: PaymentType;
  readonly status?: TransferStatus | ShownPayoutStatus;
  readonly chainId?: number;
  /** Any of these spellings. */
  readonly tokens?: readonly string[];
  /** RFC 3339 text, exclusive bounds on created_at. */
  readonly createdAfter?: string;
  readonly createdBefore?: string;
}

export interface PaymentPageQuery {
  /** `newest`: descending, rows before `after`; `oldest`: ascending, rows after it. */
  readonly order: 'newest' | 'oldest';
  readonly after: PaymentKey | undefined;
  readonly limit: number;
  readonly where?: PaymentWhere;
  /**
   * The payout statuses in which nothing has left the address (the payouts
   * module's), needed only for a `status` filter: a sandbox payout in one of
   * them is shown `simulated`.
   */
  readonly unsentStatuses?: readonly PayoutStatus[];
}

const TRANSFER_STATUS_VALUES: readonly string[] = ['observed', 'confirmed', 'reverted'] satisfies readonly TransferStatus[];

export async function listShopPayments(executor: Executor, shopId: ShopId, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const type = query.where?.type;
  const [transfers, payouts] = await Promise.all([
    type === 'payout' ? [] : listTransfers(executor, shopId, query),
    type === 'transfer' ? [] : listPayouts(executor, shopId, query),
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

/** The columns both tables give under the same names; each table is aliased `row`. */
const COMMON_COLUMNS = [
  'row.id',
  'row.issuance_id',
  'i.public_id',
  'i.external_id',
  'row.chain_id',
  'row.token',
  'row.status',
  'row.sandbox',
  'row.tx_hash',
  'row.created_at',
  'row.confirmed_at',
] as const;

async function listTransfers(executor: Executor, shopId: ShopId, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const status = query.where?.status;
  // A payout-only status names no transfer.
  if (status !== undefined && !TRANSFER_STATUS_VALUES.includes(status)) return [];
  let select = executor
    .selectFrom('transfers as row')
    .innerJoin('issuances as i', 'i.id', 'row.issuance_id')
    .select([...COMMON_COLUMNS, 'i.token_decimals', 'row.amount', 'row.disposition'])
    .where('row.shop_id', '=', shopId)
    .where((eb) => commonConditions(eb, query.where ?? {}));
  if (status !== undefined) select = select.where('row.status', '=', status as TransferStatus);
  const rows = await keysetPage(select, query).execute();
  return rows.map((row) =>
    toPaymentRecord('transfer', row, { status: row.status, amount: row.amount, disposition: row.disposition, fee: null, toRecipient: null, toOperator: null }),
  );
}

async function listPayouts(executor: Executor, shopId: ShopId, query: PaymentPageQuery): Promise<PaymentRecord[]> {
  const status = query.where?.status;
  let select = executor
    .selectFrom('payouts as row')
    .innerJoin('issuances as i', 'i.id', 'row.issuance_id')
    .select([...COMMON_COLUMNS, 'row.token_decimals', 'row.gross', 'row.fee', 'row.to_recipient', 'row.to_operator'])
    .where('row.shop_id', '=', shopId)
    .where((eb) => commonConditions(eb, query.where ?? {}));
  if (status !== undefined) {
    // The stored status that shows as `status` (shownPayoutStatus, read backwards).
    const unsent = query.unsentStatuses ?? [];
    if (status === 'simulated') select = select.where('row.sandbox', '=', true).where('row.status', 'in', [...unsent]);
    else if (unsent.includes(status as PayoutStatus)) select = select.where('row.sandbox', '=', false).where('row.status', '=', status as PayoutStatus);
    else if (status === 'observed') return [];
    else select = select.where('row.status', '=', status);
  }
  const rows = await keysetPage(select, query).execute();
  return rows.map((row) =>
    toPaymentRecord('payout', row, {
      status: shownPayoutStatus(row.status, row.sandbox),
      // What left the address: to_recipient + to_operator.
      amount: row.gross,
      disposition: null,
      fee: BigInt(row.fee),
      toRecipient: BigInt(row.to_recipient),
      toOperator: BigInt(row.to_operator),
    }),
  );
}

type EntryTables = Database & { row: Database['transfers'] | Database['payouts']; i: Database['issuances'] };

/** The conditions both tables take alike, on the table aliased `row` joined to its issuance `i`. */
function commonConditions(eb: ExpressionBuilder<EntryTables, 'row' | 'i'>, where: PaymentWhere) {
  const conditions = [];
  if (where.issuanceId !== undefined) {
    // The issuance itself, or the options of the group it names; read through each table's (issuance_id, …) index.
    const id = where.issuanceId;
    conditions.push(eb('row.issuance_id', 'in', eb.selectFrom('issuances as named').select('named.id').where((inner) => inner.or([inner('named.id', '=', id), inner('named.group_id', '=', id)]))));
  }
  if (where.chainId !== undefined) conditions.push(eb('row.chain_id', '=', where.chainId));
  if (where.tokens !== undefined) conditions.push(eb('row.token', 'in', [...where.tokens]));
  if (where.createdAfter !== undefined) conditions.push(sql<SqlBool>`${sql.ref('row.created_at')} > cast(${where.createdAfter} as timestamptz)`);
  if (where.createdBefore !== undefined) conditions.push(sql<SqlBool>`${sql.ref('row.created_at')} < cast(${where.createdBefore} as timestamptz)`);
  return eb.and(conditions);
}

/** The keyset bound, order and limit of one page, on the table aliased `row`. */
function keysetPage<DB, TB extends keyof DB, O>(
  select: SelectQueryBuilder<DB, TB, O>,
  query: PaymentPageQuery,
): SelectQueryBuilder<DB, TB, O> {
  const direction = query.order === 'newest' ? 'desc' : 'asc';
  const key = sql`(${sql.ref('row.created_at')}, ${sql.ref('row.id')})`;
  const { after } = query;
  const bounded =
    after === undefined ? select : select.where(sql<boolean>`${key} ${sql.raw(direction === 'desc' ? '<' : '>')} (${after.createdAt}, ${after.id})`);
  return bounded
    .orderBy(sql.ref('row.created_at'), direction)
    .orderBy(sql.ref('row.id'), direction)
    .limit(query.limit);
}

interface CommonRow {
  readonly id: string;
  readonly issuance_id: string;
  readonly public_id: string;
  readonly external_id: string | null;
  readonly chain_id: number;
  readonly token: string;
  readonly token_decimals: number;
  readonly sandbox: boolean;
  readonly tx_hash: string | null;
  readonly created_at: Date;
  readonly confirmed_at: Date | null;
}

type OwnFields = Pick<PaymentRecord, 'status' | 'disposition' | 'fee' | 'toRecipient' | 'toOperator'> & { readonly amount: string };

function toPaymentRecord(type: PaymentType, row: CommonRow, own: OwnFields): PaymentRecord {
  return {
    type,
    id: row.id,
    issuanceId: row.issuance_id,
    publicId: row.public_id,
    externalId: row.external_id,
    chainId: row.chain_id,
    token: row.token,
    tokenDecimals: row.token_decimals,
    sandbox: row.sandbox,
    txHash: row.tx_hash,
    createdAt: row.created_at,
    confirmedAt: row.confirmed_at,
    ...own,
    amount: BigInt(own.amount),
  };
}
