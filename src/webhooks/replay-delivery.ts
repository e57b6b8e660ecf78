import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import { deliveryView, type DeliveryView } from './delivery.js';
import { lockDeliveryForReplay, requeueDelivery } from '../webhook-delivery/index.js';
import { findDelivery } from './webhooks.repository.js';

/**
 * POST /shops/{shop_id}/deliveries/{id}/replay (SPEC "Webhooks"): the delivery
 * is queued again, due now, whatever its status. The worker sends the event's
 * stored bytes under the same event id with a new attempt id; no event is
 * created. Nothing is sent from the request itself (ARCHITECTURE rule 1).
 * A delivery whose endpoint is disabled or deleted cannot be replayed
 * (`invalid_state`): nothing would be sent.
 */
export async function replayDelivery(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  deliveryId: string,
): Promise<DeliveryView> {
  const access = await requireShopAccess(trx, principal, shopId, 'write');
  const found = isUuid(deliveryId) ? await lockDeliveryForReplay(trx, access.shopId, deliveryId) : undefined;
  if (found === undefined) throw new IvoryError('not_found');
  if (found.endpointDeleted) throw new IvoryError('invalid_state', { reason: 'endpoint_deleted' });
  if (!found.endpointEnabled) throw new IvoryError('invalid_state', { reason: 'endpoint_disabled' });
  await requeueDelivery(trx, deliveryId, clock.now());
  const delivery = await findDelivery(trx, access.shopId, deliveryId);
  if (delivery === undefined) throw new Error(`delivery ${deliveryId} vanished inside its own transaction`);
  return deliveryView(delivery);
}
