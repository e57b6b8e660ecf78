import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';

/** Confirmed incoming money of one token a shop received since an instant. */
export interface ReceivedTotalRow {
  readonly shopId: string;
  readonly chainId: number;
  readonly token: string;
  readonly tokenDecimals: number;
  /** Base units. */
  readonly amount: bigint;
}

/**
 * Per shop and token: the sum of the shop's incoming transfers that stand
 * confirmed and were recorded at or after `since` — every disposition
 * (credited, overpayment, late, duplicate: money that arrived), never an
 * observed or reverted one. Read through `transfers_shop` (shop_id, created_at).
 */
export async function sumReceivedSince(db: Executor, shopIds: readonly string[], since: Date): Promise<ReceivedTotalRow[]> {
  if (shopIds.length === 0) return [];
  const rows = await db
    .selectFrom('transfers')
    .innerJoin('issuances', 'issuances.id', 'transfers.issuance_id')
    .select([
      'transfers.shop_id',
      'transfers.chain_id',
      'transfers.token',
      'issuances.token_decimals',
      sql<string>`sum(${sql.ref('transfers.amount')})`.as('amount'),
    ])
    .where('transfers.shop_id', 'in', shopIds)
    .where('transfers.created_at', '>=', since)
    .where('transfers.status', '=', 'confirmed')
    .groupBy(['transfers.shop_id', 'transfers.chain_id', 'transfers.token', 'issuances.token_decimals'])
    .orderBy('transfers.shop_id')
    .orderBy('transfers.chain_id')
    .orderBy('transfers.token')
    .execute();
  return rows.map((row) => ({ shopId: row.shop_id, chainId: Number(row.chain_id), token: row.token, tokenDecimals: row.token_decimals, amount: BigInt(row.amount) }));
}
