import type { Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import type { EventEnvelope, EventType } from './event.js';
import { insertEvent, nextIssuanceSequence } from './events.repository.js';

/** An event as the outbox's subscribers see it, inside the transaction that wrote it. */
export interface AppendedEvent {
  readonly id: string;
  readonly shopId: string;
  readonly type: EventType;
  readonly createdAt: Date;
}

/**
 * A reaction to every appended event that must commit with it (webhook
 * fan-out writes the deliveries). Subscribers are composed by the composition
 * root (`app.ts`) and passed in with each append: the outbox names no module
 * that builds on it.
 */
export type EventSubscriber = (trx: Tx, event: AppendedEvent) => Promise<unknown>;

/** What an append takes besides its transaction: the time, and who reacts in the same transaction. */
export interface AppendDeps {
  readonly now: Date;
  readonly subscribers: readonly EventSubscriber[];
}

export interface NewEvent {
  readonly shopId: string;
  readonly type: EventType;
  /** The issuance the event is about, if any; gives `data.sequence`. */
  readonly issuanceId?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Writes a business event into the outbox and runs its subscribers (the
 * webhook deliveries), in the caller's transaction (ARCHITECTURE rule 1): the state change, its event and
 * its deliveries commit together or not at all. The envelope is serialised
 * here, once; every delivery, retry and replay sends exactly these bytes.
 *
 * Callers hold the issuance row lock, which makes `data.sequence` (the
 * per-issuance order) gap-free and unique.
 */
export async function appendEvent(trx: Tx, deps: AppendDeps, event: NewEvent): Promise<EventEnvelope> {
  const { now } = deps;
  const issuanceId = event.issuanceId ?? null;
  const sequence = issuanceId === null ? null : await nextIssuanceSequence(trx, issuanceId);
  const envelope: EventEnvelope = {
    id: newId(),
    type: event.type,
    created_at: now.toISOString(),
    data: sequence === null ? { ...event.data } : { ...event.data, sequence },
  };
  const bytes = JSON.stringify(envelope);
  await insertEvent(trx, {
    id: envelope.id,
    shopId: event.shopId,
    type: event.type,
    issuanceId,
    issuanceSequence: sequence,
    envelope: bytes,
    createdAt: now,
  });
  const appended: AppendedEvent = { id: envelope.id, shopId: event.shopId, type: event.type, createdAt: now };
  for (const subscriber of deps.subscribers) await subscriber(trx, appended);
  return envelope;
}
