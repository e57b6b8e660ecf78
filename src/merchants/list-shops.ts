import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { listActiveShops } from './merchants.repository.js';
import { requireMerchantAccess } from './require-shop-access.js';
import { shopRecord, type ShopRecord } from './shop.js';

/** GET /merchants/{id}/shops: the active shops the principal may see (all, or its granted ones, or a key's own). */
export async function listShops(db: Executor, principal: Principal, merchantId: string): Promise<ShopRecord[]> {
  const access = await requireMerchantAccess(db, principal, merchantId, 'read');
  return (await listActiveShops(db, access.merchantId, access.shopIds)).map(shopRecord);
}
