import { listMerchants } from '../accounts/index.js';
import { listShops } from '../merchants/index.js';
import { listPendingSweeps, listReceivedTotals, type PendingSweepsView, type ReceivedTotalsView } from '../payments/index.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';

/** The Overview's server-read figures, by shop id. */
export interface OverviewFigures {
  readonly pending_sweeps: Record<string, PendingSweepsView>;
  readonly received: Record<string, ReceivedTotalsView>;
}

/**
 * What the Overview shows that no route of the API answers (decision 0034):
 * per shop the person may read, in every merchant they belong to, the
 * deposits waiting for a sweep and the money received in the last 7 and 30
 * days. Read on the server through the payments use cases, behind the same
 * access gate as a route; the page carries it as data.
 */
export async function overviewFigures(db: Executor, principal: Principal, now: Date): Promise<OverviewFigures> {
  const shopIds: string[] = [];
  for (const merchant of await listMerchants(db, principal)) {
    for (const shop of await listShops(db, principal, merchant.id)) shopIds.push(shop.id);
  }
  return { pending_sweeps: await listPendingSweeps(db, principal, shopIds), received: await listReceivedTotals(db, principal, shopIds, now) };
}
