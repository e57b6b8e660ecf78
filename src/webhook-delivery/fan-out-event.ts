import type { Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import { groupOf, type AppendedEvent } from '../events/index.js';
import { insertDeliveries, listSubscribedEndpointIds, type NewDelivery } from './webhook-delivery.repository.js';

export type FannedOutEvent = AppendedEvent;

/**
 * One pending delivery for each enabled endpoint of the shop whose filters
 * select the event (its exact name or its group), due at once. Runs inside the
 * transaction that writes the event (ARCHITECTURE rule 1), so an event never
 * exists without its deliveries. Internal signals (`gas.wait`,
 * `sweep.failed`) are not event types, so no event ever matches them. Returns
 * how many deliveries were created.
 */
export const fanOutEvent = Object.assign((trx: Tx, event: FannedOutEvent): Promise<number> => fanOutEvents(trx, [event]), {
  /** The outbox's batch form (`appendEvents`): one endpoint read per (shop, type), one insert. */
  many: (trx: Tx, events: readonly FannedOutEvent[]) => fanOutEvents(trx, events),
});

async function fanOutEvents(trx: Tx, events: readonly FannedOutEvent[]): Promise<number> {
  const endpoints = new Map<string, string[]>();
  const deliveries: NewDelivery[] = [];
  for (const event of events) {
    const key = `${event.shopId} ${event.type}`;
    let endpointIds = endpoints.get(key);
    if (endpointIds === undefined) {
      endpointIds = await listSubscribedEndpointIds(trx, event.shopId, event.type, groupOf(event.type));
      endpoints.set(key, endpointIds);
    }
    for (const endpointId of endpointIds) deliveries.push({ id: newId(), eventId: event.id, endpointId, shopId: event.shopId, createdAt: event.createdAt });
  }
  await insertDeliveries(trx, deliveries);
  return deliveries.length;
}
