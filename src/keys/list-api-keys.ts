import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import { apiKeyRecord, type ApiKeyRecord } from './api-key.js';
import { listLiveKeys } from './api-keys.repository.js';

/** GET /shops/{id}/keys: the shop's non-revoked keys, without tokens; reading keys is integration work (developer and up, decision 0016). */
export async function listApiKeys(db: Executor, principal: Principal, shopId: string): Promise<ApiKeyRecord[]> {
  const { shop } = await requireShopAccess(db, principal, shopId, 'write');
  return (await listLiveKeys(db, shop.id)).map(apiKeyRecord);
}
