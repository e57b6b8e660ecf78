import type { Executor } from '../platform/database/database.js';
import type { DeliveryStatus } from '../platform/database/schema.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireShopAccess } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import { decodeTimeKey, encodeTimeKey } from '../platform/page-cursor.js';
import { DELIVERY_STATUSES, deliveryView, isDeliveryStatus, type DeliveryView, type Page } from './delivery.js';
import { listDeliveries as queryDeliveries } from './webhooks.repository.js';

export interface DeliveryListQuery {
  readonly cursor?: string;
  readonly limit?: string;
  readonly event_id?: string;
  readonly endpoint_id?: string;
  readonly status?: string;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/**
 * GET /shops/{shop_id}/deliveries: newest first, each with its attempts;
 * filters by event, endpoint and status; keyset pagination on
 * (created_at, id), so pages stay stable while new deliveries arrive.
 */
export async function listDeliveries(
  db: Executor,
  principal: Principal,
  shopId: string,
  query: DeliveryListQuery,
): Promise<Page<DeliveryView>> {
  const access = await requireShopAccess(db, principal, shopId, 'read');
  const limit = parsePageSize(query.limit);
  const after = query.cursor === undefined ? undefined : decodeTimeKey(query.cursor);
  const eventId = optionalUuid(query.event_id, 'event_id');
  const endpointId = optionalUuid(query.endpoint_id, 'endpoint_id');
  let status: DeliveryStatus | undefined;
  if (query.status !== undefined) {
    if (!isDeliveryStatus(query.status)) throw fieldError('invalid_request', 'status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    status = query.status;
  }
  const rows = await queryDeliveries(db, access.shopId, { eventId, endpointId, status, after, limit: limit + 1 });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(deliveryView),
    next_cursor: rows.length > limit && last !== undefined ? encodeTimeKey({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

export function parsePageSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAGE_SIZE) {
    // The bounds as numbers too, as the page lists have always given them.
    throw new IvoryError('invalid_request', { field: 'limit', reason: `must be a whole number from 1 to ${MAX_PAGE_SIZE}`, minimum: 1, maximum: MAX_PAGE_SIZE });
  }
  return Number(value);
}

/** A filter id that is not a UUID names nothing; refused rather than silently matching nothing. */
function optionalUuid(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isUuid(value)) throw fieldError('invalid_request', field, 'must be a UUID');
  return value;
}
