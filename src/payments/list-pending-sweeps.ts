import { requireShopAccess } from '../merchants/index.js';
import { formatDecimal } from '../money/index.js';
import type { Executor } from '../platform/database/database.js';
import type { PayoutStatus } from '../platform/database/schema.js';
import type { Principal } from '../platform/http/principal.js';
import { sumPendingSweeps } from './pending-sweeps.repository.js';

/**
 * Payout statuses in which nothing has left the address yet: the payouts
 * module's UNSENT_PAYOUT_STATUSES (its index does not export it; a unit test
 * keeps the two equal).
 */
export const UNSENT_STATUSES: readonly PayoutStatus[] = ['scheduled', 'waiting_gas', 'failed'];

export interface PendingSweepAmount {
  readonly chain_id: number;
  readonly token: string;
  readonly token_decimals: number;
  /** Base units. */
  readonly amount: string;
  readonly amount_decimal: string;
}

/** One shop's deposits waiting for a sweep: how many, and how much per token. */
export interface PendingSweepsView {
  readonly deposits: number;
  readonly amounts: readonly PendingSweepAmount[];
}

/**
 * Issue 25, Overview, "deposits waiting for a sweep": for each shop in
 * `shopIds` the principal may read, the deposits whose confirmed money is
 * still on their address — below the shop's sweep threshold, or in a payout
 * scheduled and not yet broadcast (LEDGER "Deposits"). Every shop is checked
 * with `requireShopAccess` (a shop the principal may not read is refused with
 * its code, as a route would); every shop asked for is in the answer, with 0
 * deposits when none waits.
 */
export async function listPendingSweeps(db: Executor, principal: Principal, shopIds: readonly string[]): Promise<Record<string, PendingSweepsView>> {
  const readable: string[] = [];
  for (const shopId of shopIds) readable.push((await requireShopAccess(db, principal, shopId, 'read')).shopId);
  const views = new Map<string, { deposits: number; amounts: PendingSweepAmount[] }>(readable.map((shopId) => [shopId, { deposits: 0, amounts: [] }]));
  for (const row of await sumPendingSweeps(db, readable, UNSENT_STATUSES)) {
    const view = views.get(row.shopId);
    if (view === undefined) continue;
    // A deposit has one token, so the per-token counts add up to the shop's deposits.
    view.deposits += row.deposits;
    view.amounts.push({
      chain_id: row.chainId,
      token: row.token,
      token_decimals: row.tokenDecimals,
      amount: row.amount.toString(),
      amount_decimal: formatDecimal(row.amount, row.tokenDecimals),
    });
  }
  return Object.fromEntries(views);
}
