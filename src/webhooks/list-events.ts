import type { Executor } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { uuidFilter } from '../platform/list-filters.js';
import type { Principal } from '../platform/http/principal.js';
import { EVENT_GROUPS, isEventType } from '../events/index.js';
import { requireShopAccess } from '../merchants/index.js';
import { decodeSequenceKey, encodeSequenceKey } from '../platform/page-cursor.js';
import { DELIVERY_STATUSES, eventView, isDeliveryStatus, type EventView, type Page } from './delivery.js';
import { parsePageSize } from './list-deliveries.js';
import { listEvents as queryEvents, type EventQuery } from './webhooks.repository.js';

export interface EventListQuery {
  readonly cursor?: string;
  /** Only events about this issuance (a group id: any of its options); decision 0038. */
  readonly issuance_id?: string;
  readonly limit?: string;
  /** An event name or a group (`transfer`, `invoice`, `payout`). */
  readonly type?: string;
  /** Only events with at least one delivery in this status (`failed`: what needs attention). */
  readonly delivery_status?: string;
}

/**
 * GET /shops/{shop_id}/events: the shop's events, newest first (insertion
 * order), each with its deliveries counted by status. Events are kept with no
 * expiry, so the list reaches back well over the 30 days promised.
 */
export async function listEvents(db: Executor, principal: Principal, shopId: string, query: EventListQuery): Promise<Page<EventView>> {
  const access = await requireShopAccess(db, principal, shopId, 'read');
  const limit = parsePageSize(query.limit);
  let filter: EventQuery = { limit: limit + 1 };
  if (query.cursor !== undefined) filter = { ...filter, beforeSequence: decodeSequenceKey(query.cursor) };
  if (query.issuance_id !== undefined) filter = { ...filter, issuanceId: uuidFilter('issuance_id', query.issuance_id) };
  if (query.type !== undefined) {
    if (isEventType(query.type)) filter = { ...filter, type: query.type };
    else if ((EVENT_GROUPS as readonly string[]).includes(query.type)) filter = { ...filter, group: query.type };
    else throw fieldError('invalid_request', 'type', `must be an event name or one of the groups ${EVENT_GROUPS.join(', ')}`);
  }
  if (query.delivery_status !== undefined) {
    if (!isDeliveryStatus(query.delivery_status)) throw fieldError('invalid_request', 'delivery_status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    filter = { ...filter, deliveryStatus: query.delivery_status };
  }
  const rows = await queryEvents(db, access.shopId, filter);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(eventView),
    next_cursor: rows.length > limit && last !== undefined ? encodeSequenceKey(last.sequence) : null,
  };
}
