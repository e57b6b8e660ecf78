import type { Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import { fanOutEvent } from '../webhooks/fan-out-event.js';
import type { EventEnvelope, EventType } from './event.js';
import { insertEvent, nextIssuanceSequence } from './events.repository.js';

export interface NewEvent {
  readonly shopId: string;
  readonly type: EventType;
  /** The issuance the event is about, if any; gives `data.sequence`. */
  readonly issuanceId?: string;
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * Writes a business event into the outbox and its webhook deliveries, in the
 * caller's transaction (ARCHITECTURE rule 1): the state change, its event and
 * its deliveries commit together or not at all. The envelope is serialised
 * here, once; every delivery, retry and replay sends exactly these bytes.
 *
 * Callers hold the issuance row lock, which makes `data.sequence` (the
 * per-issuance order) gap-free and unique.
 */
export async function appendEvent(trx: Tx, now: Date, event: NewEvent): Promise<EventEnvelope> {
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
  await fanOutEvent(trx, { id: envelope.id, shopId: event.shopId, type: event.type, createdAt: now });
  return envelope;
}
