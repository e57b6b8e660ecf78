import type { Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import { groupOf, type AppendedEvent } from '../events/index.js';
import { insertDeliveries, listSubscribedEndpointIds } from './webhook-delivery.repository.js';

export type FannedOutEvent = AppendedEvent;

/**
 * One pending delivery for each enabled endpoint of the shop whose filters
 * select the event (its exact name or its group), due at once. Runs inside the
 * transaction that writes the event (ARCHITECTURE rule 1), so an event never
 * exists without its deliveries. Internal signals (`gas.wait`,
 * `sweep.failed`) are not event types, so no event ever matches them. Returns
 * how many deliveries were created.
 */
export async function fanOutEvent(trx: Tx, event: FannedOutEvent): Promise<number> {
  const endpointIds = await listSubscribedEndpointIds(trx, event.shopId, event.type, groupOf(event.type));
  await insertDeliveries(
    trx,
    endpointIds.map((endpointId) => ({
      id: newId(),
      eventId: event.id,
      endpointId,
      shopId: event.shopId,
      createdAt: event.createdAt,
    })),
  );
  return endpointIds.length;
}
