/** The business events of SPEC "Events"; the only names an envelope's `type` takes. */
export const EVENT_TYPES = [
  'transfer.observed',
  'transfer.confirmed',
  'transfer.reverted',
  'invoice.closed',
  'invoice.cancelled',
  'payout.sent',
  'payout.confirmed',
  'payout.reverted',
  'payout.failed',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Filter groups: a group subscribes to every event of that prefix. */
export const EVENT_GROUPS = ['transfer', 'invoice', 'payout'] as const;

/** Accepted as filters but never delivered: internal payout signals (SPEC "Events"). */
export const INTERNAL_SIGNALS = ['gas.wait', 'sweep.failed'] as const;

export function groupOf(type: EventType): (typeof EVENT_GROUPS)[number] {
  return type.slice(0, type.indexOf('.')) as (typeof EVENT_GROUPS)[number];
}

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** True when a filter list selects the event: its exact name or its group. */
export function filtersMatch(filters: readonly string[], type: EventType): boolean {
  return filters.includes(type) || filters.includes(groupOf(type));
}

/** The webhook envelope (SPEC "Webhook envelope"). */
export interface EventEnvelope {
  readonly id: string;
  readonly type: EventType;
  readonly created_at: string;
  readonly data: Readonly<Record<string, unknown>>;
}
