import { listMerchants } from '../accounts/index.js';
import { listShops } from '../merchants/index.js';
import { listPendingSweeps, type PendingSweepsView } from '../payments/index.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';

/**
 * What the Overview shows that no route of the API answers (decision 0034):
 * per shop the person may read, in every merchant they belong to, the
 * deposits waiting for a sweep. Read on the server through the payments use
 * case, behind the same access gate as a route; the page carries it as data.
 */
export async function overviewFigures(db: Executor, principal: Principal): Promise<Record<string, PendingSweepsView>> {
  const shopIds: string[] = [];
  for (const merchant of await listMerchants(db, principal)) {
    for (const shop of await listShops(db, principal, merchant.id)) shopIds.push(shop.id);
  }
  return listPendingSweeps(db, principal, shopIds);
}
