import type { Executor } from '../platform/database/database.js';

/**
 * When every merchant the user holds a grant on is blocked by operator staff,
 * the reason of the most recent block; otherwise (no grant, or one merchant
 * not blocked) undefined. One indexed read (grants_user) per session request.
 */
export async function findBlockOfEveryMerchant(db: Executor, userId: string): Promise<{ reason: string } | undefined> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('merchants', 'merchants.id', 'grants.merchant_id')
    .select(['merchants.blocked_at', 'merchants.blocked_reason'])
    .where('grants.user_id', '=', userId)
    .execute();
  if (rows.length === 0 || rows.some((row) => row.blocked_at === null)) return undefined;
  const latest = rows.reduce((best, row) => ((row.blocked_at ?? 0) > (best.blocked_at ?? 0) ? row : best));
  return { reason: latest.blocked_reason ?? '' };
}
