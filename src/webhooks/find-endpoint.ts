import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess, type AccessNeed } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import { findLiveEndpoint, type EndpointRow } from './webhooks.repository.js';

/**
 * The shop gate, then the endpoint locked for the rest of the transaction:
 * unknown, deleted or another shop's endpoint is 404 `not_found`.
 */
export async function requireLiveEndpoint(
  trx: Executor,
  principal: Principal,
  shopId: string,
  endpointId: string,
  need: AccessNeed,
): Promise<EndpointRow> {
  const access = await requireShopAccess(trx, principal, shopId, need);
  const endpoint = isUuid(endpointId) ? await findLiveEndpoint(trx, access.shopId, endpointId, { lock: true }) : undefined;
  if (endpoint === undefined) throw new IvoryError('not_found');
  return endpoint;
}
