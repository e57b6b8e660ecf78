import type { Tx } from '../platform/database/database.js';
import { newId } from '../platform/crypto.js';
import type { EventEnvelope, EventType } from './event.js';
import { insertEvent, insertEvents, lastIssuanceSequences, nextIssuanceSequence } from './events.repository.js';

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
export type EventSubscriber = ((trx: Tx, event: AppendedEvent) => Promise<unknown>) & {
  /** Optional: the same reaction to many events at once (`appendEvents`), in fewer statements. */
  readonly many?: (trx: Tx, events: readonly AppendedEvent[]) => Promise<unknown>;
};

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

/**
 * `appendEvent` for many events in one insert (the batch ledger entry), in
 * the given order: each issuance's `data.sequence` continues where its last
 * event left off, exactly as appending them one by one would number them.
 * The caller holds every issuance's row lock. Answers the envelopes in order.
 */
export async function appendEvents(trx: Tx, deps: AppendDeps, events: readonly NewEvent[]): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const { now } = deps;
  const issuanceIds = [...new Set(events.flatMap((event) => (event.issuanceId === undefined ? [] : [event.issuanceId])))];
  const last = await lastIssuanceSequences(trx, issuanceIds);
  const envelopes: EventEnvelope[] = [];
  const rows = events.map((event) => {
    const issuanceId = event.issuanceId ?? null;
    let sequence: number | null = null;
    if (issuanceId !== null) {
      sequence = (last.get(issuanceId) ?? 0) + 1;
      last.set(issuanceId, sequence);
    }
    const envelope: EventEnvelope = {
      id: newId(),
      type: event.type,
      created_at: now.toISOString(),
      data: sequence === null ? { ...event.data } : { ...event.data, sequence },
    };
    envelopes.push(envelope);
    return { id: envelope.id, shopId: event.shopId, type: event.type, issuanceId, issuanceSequence: sequence, envelope: JSON.stringify(envelope), createdAt: now };
  });
  await insertEvents(trx, rows);
  const appended = rows.map((row): AppendedEvent => ({ id: row.id, shopId: row.shopId, type: row.type, createdAt: now }));
  for (const subscriber of deps.subscribers) {
    if (subscriber.many !== undefined) await subscriber.many(trx, appended);
    else for (const event of appended) await subscriber(trx, event);
  }
  return envelopes;
}
