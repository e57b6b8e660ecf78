import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { PayoutStatus } from '../platform/database/schema.js';

/** Money of one token that sits on a shop's deposit addresses and has not been swept yet. */
export interface PendingSweepRow {
  readonly shopId: string;
  readonly chainId: number;
  readonly token: string;
  readonly tokenDecimals: number;
  /** Deposits of this token holding such money. */
  readonly deposits: number;
  /** Base units. */
  readonly amount: bigint;
}

/**
 * Per shop and token: the deposits whose confirmed money has not left their
 * address yet, and how much. Two places hold it (LEDGER "Deposits"): the
 * deposit's `unswept` balance, still below the sweep threshold, and the gross
 * of its payouts in `unsentStatuses` (scheduled, not broadcast). A deposit
 * counts once whatever holds its money. Sandbox payouts are never counted: one
 * never leaves its address (it is `simulated`, LEDGER "Sandbox"), so it is not
 * waiting for anything.
 */
export async function sumPendingSweeps(db: Executor, shopIds: readonly string[], unsentStatuses: readonly PayoutStatus[]): Promise<PendingSweepRow[]> {
  if (shopIds.length === 0) return [];
  const balances = db
    .selectFrom('issuances')
    .select(['id as issuance_id', 'shop_id', 'chain_id', 'token', 'token_decimals', 'unswept as amount'])
    .where('kind', '=', 'deposit')
    .where('shop_id', 'in', shopIds)
    .where('unswept', '>', '0');
  const queued = db
    .selectFrom('payouts')
    .innerJoin('issuances', 'issuances.id', 'payouts.issuance_id')
    .select(['issuances.id as issuance_id', 'issuances.shop_id', 'issuances.chain_id', 'issuances.token', 'issuances.token_decimals', 'payouts.gross as amount'])
    .where('issuances.kind', '=', 'deposit')
    .where('payouts.shop_id', 'in', shopIds)
    .where('payouts.sandbox', '=', false)
    .where('payouts.status', 'in', unsentStatuses);
  const rows = await db
    .selectFrom(balances.unionAll(queued).as('waiting'))
    .select([
      'waiting.shop_id',
      'waiting.chain_id',
      'waiting.token',
      'waiting.token_decimals',
      sql<string>`count(distinct ${sql.ref('waiting.issuance_id')})`.as('deposits'),
      sql<string>`sum(${sql.ref('waiting.amount')})`.as('amount'),
    ])
    .groupBy(['waiting.shop_id', 'waiting.chain_id', 'waiting.token', 'waiting.token_decimals'])
    .orderBy('waiting.shop_id')
    .orderBy('waiting.chain_id')
    .orderBy('waiting.token')
    .execute();
  return rows.map((row) => ({
    shopId: row.shop_id,
    chainId: Number(row.chain_id),
    token: row.token,
    tokenDecimals: row.token_decimals,
    deposits: Number(row.deposits),
    amount: BigInt(row.amount),
  }));
}
