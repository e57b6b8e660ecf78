import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireLiveEndpoint } from './find-endpoint.js';
import { failPendingDeliveries } from '../webhook-delivery/index.js';
import { updateEndpoint, type EndpointChanges } from './webhooks.repository.js';
import { endpointView, validateEndpointUrl, validateFilters, type EndpointView } from './webhook-endpoint.js';

export interface UpdateEndpointInput {
  readonly url?: string;
  readonly filters?: readonly string[];
  readonly enabled?: boolean;
}

/**
 * PATCH /shops/{shop_id}/webhooks/{id}: omitted fields stay as they are.
 *
 * Disabling fails the endpoint's pending deliveries (nothing is sent to a
 * disabled endpoint, and nothing waits for it indefinitely; `recover` re-queues
 * them after re-enabling). Re-enabling clears the reason and the failure
 * streak, so an endpoint the worker disabled starts afresh.
 */
export async function updateWebhookEndpoint(
  trx: Tx,
  deps: { readonly clock: Clock; readonly allowPrivate: boolean },
  principal: Principal,
  shopId: string,
  endpointId: string,
  input: UpdateEndpointInput,
): Promise<EndpointView> {
  const endpoint = await requireLiveEndpoint(trx, principal, shopId, endpointId, 'write');
  const now = deps.clock.now();
  let changes: EndpointChanges = {};
  if (input.url !== undefined) changes = { ...changes, url: validateEndpointUrl(input.url, deps.allowPrivate) };
  if (input.filters !== undefined) changes = { ...changes, filters: validateFilters(input.filters) };
  if (input.enabled === false && endpoint.enabled) {
    changes = { ...changes, enabled: false, disabledReason: 'manual', disabledAt: now };
    await failPendingDeliveries(trx, endpoint.id);
  } else if (input.enabled === true && !endpoint.enabled) {
    changes = { ...changes, enabled: true, disabledReason: null, disabledAt: null, failingSince: null };
  }
  return endpointView(await updateEndpoint(trx, endpoint.id, changes, now), now);
}
