import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { oneOfFilter } from '../platform/list-filters.js';
import { listActiveShops } from './merchants.repository.js';
import { requireMerchantAccess } from './require-shop-access.js';
import { shopRecord, type ShopRecord } from './shop.js';

/**
 * GET /merchants/{id}/shops: the active shops the principal may see (all, or
 * its granted ones, or a key's own); with `include_archived=true` the archived
 * ones too, each with its `archived_at` (decision 0038).
 */
export async function listShops(db: Executor, principal: Principal, merchantId: string, query: { readonly include_archived?: string } = {}): Promise<ShopRecord[]> {
  const access = await requireMerchantAccess(db, principal, merchantId, 'read');
  const includeArchived = query.include_archived === undefined ? false : oneOfFilter('include_archived', query.include_archived, ['true', 'false']) === 'true';
  return (await listActiveShops(db, access.merchantId, access.shopIds, includeArchived)).map(shopRecord);
}
