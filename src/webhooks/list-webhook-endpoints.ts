import type { Clock } from '../platform/clock.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import { listLiveEndpoints } from './webhooks.repository.js';
import { endpointView, type EndpointView } from './webhook-endpoint.js';

/** The shop's endpoints that are not deleted, oldest first; disabled ones show why. */
export async function listWebhookEndpoints(db: Executor, clock: Clock, principal: Principal, shopId: string): Promise<EndpointView[]> {
  const access = await requireShopAccess(db, principal, shopId, 'read');
  const now = clock.now();
  return (await listLiveEndpoints(db, access.shopId)).map((endpoint) => endpointView(endpoint, now));
}
