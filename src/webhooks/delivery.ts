import type { DeliveryStatus } from '../platform/database/schema.js';
import type { DeliveryRecord, EventRecord } from './webhooks.repository.js';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

export function isDeliveryStatus(value: string): value is DeliveryStatus {
  return (DELIVERY_STATUSES as readonly string[]).includes(value);
}

export interface AttemptView {
  readonly attempt_id: string;
  readonly started_at: string;
  /** Null when no HTTP answer came back. */
  readonly status_code: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
  readonly response_excerpt: string | null;
}

export interface DeliveryView {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly endpoint_id: string;
  readonly status: DeliveryStatus;
  readonly attempt_count: number;
  /** When the next attempt is due; null unless pending. */
  readonly next_attempt_at: string | null;
  readonly last_attempt_at: string | null;
  readonly created_at: string;
  readonly attempts: readonly AttemptView[];
}

export function deliveryView(delivery: DeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    endpoint_id: delivery.endpointId,
    status: delivery.status,
    attempt_count: delivery.attemptCount,
    next_attempt_at: delivery.status === 'pending' ? (delivery.nextAttemptAt?.toISOString() ?? null) : null,
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
    attempts: delivery.attempts.map((attempt) => ({
      attempt_id: attempt.id,
      started_at: attempt.startedAt.toISOString(),
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      error: attempt.error,
      response_excerpt: attempt.responseExcerpt,
    })),
  };
}

export interface EventView {
  readonly id: string;
  readonly type: string;
  readonly created_at: string;
  /** The envelope's `data`, as delivered. */
  readonly data: unknown;
  readonly deliveries: Readonly<Record<DeliveryStatus, number>>;
}

export function eventView(event: EventRecord): EventView {
  const envelope = JSON.parse(event.envelope) as { data?: unknown };
  return {
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    data: envelope.data ?? {},
    deliveries: event.deliveries,
  };
}

/** A page of a newest-first list and the cursor of the next one (null on the last page). */
export interface Page<T> {
  readonly data: readonly T[];
  readonly next_cursor: string | null;
}
