import { requireShopAccess } from '../merchants/index.js';
import { formatDecimal } from '../money/index.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import type { PendingSweepAmount } from './list-pending-sweeps.js';
import { sumReceivedSince } from './received-totals.repository.js';

const DAY_MS = 86_400_000;

/** What one shop received in the last 7 and 30 days, per token. */
export interface ReceivedTotalsView {
  readonly last_7_days: readonly PendingSweepAmount[];
  readonly last_30_days: readonly PendingSweepAmount[];
}

/**
 * Issue 25, Overview, "money received in the last 7 and 30 days per token":
 * for each shop in `shopIds` the principal may read (`requireShopAccess`, a
 * refusal with its code), the confirmed incoming transfers recorded since
 * `now` minus 7 and minus 30 days, summed per token — the whole history, not
 * a page of it.
 */
export async function listReceivedTotals(db: Executor, principal: Principal, shopIds: readonly string[], now: Date): Promise<Record<string, ReceivedTotalsView>> {
  const readable: string[] = [];
  for (const shopId of shopIds) readable.push((await requireShopAccess(db, principal, shopId, 'read')).shopId);
  const [week, month] = await Promise.all([7, 30].map((days) => sumReceivedSince(db, readable, new Date(now.getTime() - days * DAY_MS))));
  const byShop = (rows: Awaited<ReturnType<typeof sumReceivedSince>>, shopId: string) =>
    rows
      .filter((row) => row.shopId === shopId)
      .map((row) => ({ chain_id: row.chainId, token: row.token, token_decimals: row.tokenDecimals, amount: row.amount.toString(), amount_decimal: formatDecimal(row.amount, row.tokenDecimals) }));
  return Object.fromEntries(readable.map((shopId) => [shopId, { last_7_days: byShop(week ?? [], shopId), last_30_days: byShop(month ?? [], shopId) }]));
}
