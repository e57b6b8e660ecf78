import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireLiveEndpoint } from './find-endpoint.js';
import { failPendingDeliveries } from '../webhook-delivery/index.js';
import { updateEndpoint } from './webhooks.repository.js';

/**
 * DELETE /shops/{shop_id}/webhooks/{id}: a soft delete. The endpoint stops
 * receiving at once (its pending deliveries fail), no longer counts towards
 * the limit and disappears from the list; its delivery log stays.
 */
export async function deleteWebhookEndpoint(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  endpointId: string,
): Promise<{ id: string; deleted: true }> {
  const endpoint = await requireLiveEndpoint(trx, principal, shopId, endpointId, 'write');
  const now = clock.now();
  await failPendingDeliveries(trx, endpoint.id);
  await updateEndpoint(trx, endpoint.id, { deletedAt: now, enabled: false }, now);
  return { id: endpoint.id, deleted: true };
}
