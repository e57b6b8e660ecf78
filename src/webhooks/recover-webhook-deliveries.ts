import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { requireLiveEndpoint } from './find-endpoint.js';
import { requeueFailedDeliveries } from '../webhook-delivery/index.js';

export interface RecoveryResult {
  readonly endpoint_id: string;
  readonly since: string;
  /** How many failed deliveries are pending again. */
  readonly requeued: number;
}

/**
 * POST /shops/{shop_id}/webhooks/{id}/recover {since}: every failed delivery of
 * the endpoint created at or after `since` is pending again, due now, with a
 * fresh round of retries; the worker sends the stored bytes as for any retry.
 * A disabled endpoint receives nothing, so it must be re-enabled first
 * (`invalid_state`).
 */
export async function recoverWebhookDeliveries(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  endpointId: string,
  since: string,
): Promise<RecoveryResult> {
  const endpoint = await requireLiveEndpoint(trx, principal, shopId, endpointId, 'write');
  const sinceTime = parseTimestamp(since);
  if (!endpoint.enabled) throw new IvoryError('invalid_state', { reason: 'endpoint_disabled' });
  const requeued = await requeueFailedDeliveries(trx, endpoint.id, sinceTime, clock.now());
  return { endpoint_id: endpoint.id, since: sinceTime.toISOString(), requeued };
}

/** RFC 3339 date-time with a zone, as every timestamp Ivory shows. */
function parseTimestamp(value: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value) ? new Date(value) : undefined;
  if (time === undefined || Number.isNaN(time.getTime())) throw fieldError('invalid_request', 'since', 'must be an RFC 3339 date-time with a zone, such as 2026-01-31T12:00:00Z');
  return time;
}
