import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import type { SealedSecretBody } from './one-time-secret.js';
import { newWebhookSecret } from '../webhook-delivery/index.js';
import { countLiveEndpoints, insertEndpoint } from './webhooks.repository.js';
import { MAX_ENDPOINTS_PER_SHOP, endpointView, validateEndpointUrl, validateFilters, type EndpointView } from './webhook-endpoint.js';

export interface CreateEndpointInput {
  readonly url: string;
  readonly filters: readonly string[];
}

/**
 * SPEC "Webhooks", POST /shops/{shop_id}/webhooks: registers an endpoint with a
 * new secret, stored sealed. The shop row stays locked until commit, so two
 * concurrent registrations cannot both take the tenth place.
 */
export async function createWebhookEndpoint(
  trx: Tx,
  deps: { readonly clock: Clock; readonly secrets: SecretBox; readonly allowPrivate: boolean },
  principal: Principal,
  shopId: string,
  input: CreateEndpointInput,
): Promise<EndpointView & SealedSecretBody> {
  const access = await requireShopAccess(trx, principal, shopId, 'write', { lock: true });
  const url = validateEndpointUrl(input.url, deps.allowPrivate);
  const filters = validateFilters(input.filters);
  if ((await countLiveEndpoints(trx, access.shopId)) >= MAX_ENDPOINTS_PER_SHOP) {
    throw new IvoryError('webhook_limit_reached', { limit: MAX_ENDPOINTS_PER_SHOP });
  }
  const now = deps.clock.now();
  const secretSealed = deps.secrets.seal(newWebhookSecret());
  const endpoint = await insertEndpoint(trx, { id: newId(), shopId: access.shopId, url, filters, secretSealed, now });
  return { ...endpointView(endpoint, now), secret_sealed: secretSealed };
}
