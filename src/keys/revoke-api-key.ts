import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import { lockLiveKey, markKeyRevoked } from './api-keys.repository.js';
import { noteApiKeysChanged } from './api-keys-changed.js';

/**
 * DELETE /shops/{id}/keys/{key_id}: the key stops working at once and no longer
 * counts against the limit. Revoking is final; an unknown or already revoked
 * key is 404 `not_found` (a retry with the same Idempotency-Key gets the stored 200).
 */
export async function revokeApiKey(trx: Tx, clock: Clock, principal: Principal, shopId: string, keyId: string): Promise<void> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner');
  const key = isUuid(keyId) ? await lockLiveKey(trx, shop.id, keyId) : undefined;
  if (key === undefined) throw new IvoryError('not_found');
  await markKeyRevoked(trx, key.id, clock.now());
  await noteApiKeysChanged(trx, key.id);
}
