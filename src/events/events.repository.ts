import { sql } from 'kysely';
import type { Executor } from '../platform/database/database.js';

export interface StoredEvent {
  readonly id: string;
  readonly shopId: string;
  readonly type: string;
  readonly issuanceId: string | null;
  readonly envelope: string;
  readonly createdAt: Date;
}

export async function nextIssuanceSequence(executor: Executor, issuanceId: string): Promise<number> {
  const row = await executor
    .selectFrom('events')
    .select((eb) => eb.fn.max('issuance_sequence').as('last'))
    .where('issuance_id', '=', issuanceId)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

export async function insertEvent(
  executor: Executor,
  event: StoredEvent & { readonly issuanceSequence: number | null },
): Promise<void> {
  await executor
    .insertInto('events')
    .values({
      id: event.id,
      shop_id: event.shopId,
      type: event.type,
      issuance_id: event.issuanceId,
      issuance_sequence: event.issuanceSequence,
      envelope: event.envelope,
      created_at: event.createdAt,
    })
    .execute();
}

/** Events of one issuance in the order they were written (tests, support tools). */
export async function listIssuanceEvents(executor: Executor, issuanceId: string): Promise<StoredEvent[]> {
  const rows = await executor
    .selectFrom('events')
    .select(['id', 'shop_id', 'type', 'issuance_id', 'envelope', 'created_at'])
    .where('issuance_id', '=', issuanceId)
    .orderBy('sequence')
    .execute();
  return rows.map(toStoredEvent);
}

function toStoredEvent(row: {
  id: string;
  shop_id: string;
  type: string;
  issuance_id: string | null;
  envelope: string;
  created_at: Date;
}): StoredEvent {
  return {
    id: row.id,
    shopId: row.shop_id,
    type: row.type,
    issuanceId: row.issuance_id,
    envelope: row.envelope,
    createdAt: row.created_at,
  };
}

/**
 * The last `issuance_sequence` of each issuance, in one read (absent: none yet).
 * One backward probe of `events_issuance` per id, whatever the statistics say: a
 * `group by` over `issuance_id = any(…)` is planned as a scan of all events when
 * the table has grown since it was last analyzed (PGlite never analyzes on its
 * own), 13 ms a batch at 100,000 events instead of 1.
 */
export async function lastIssuanceSequences(executor: Executor, issuanceIds: readonly string[]): Promise<Map<string, number>> {
  if (issuanceIds.length === 0) return new Map();
  const { rows } = await sql<{ issuance_id: string; last: number | null }>`
    select ids.id as issuance_id,
      (select issuance_sequence from events
        where events.issuance_id = ids.id and issuance_sequence is not null
        order by issuance_sequence desc limit 1) as last
    from unnest(${issuanceIds}::uuid[]) as ids(id)`.execute(executor);
  return new Map(rows.flatMap((row) => (row.last === null ? [] : [[row.issuance_id, Number(row.last)]])));
}

export async function insertEvents(executor: Executor, events: readonly (StoredEvent & { readonly issuanceSequence: number | null })[]): Promise<void> {
  if (events.length === 0) return;
  await executor
    .insertInto('events')
    .values(
      events.map((event) => ({
        id: event.id,
        shop_id: event.shopId,
        type: event.type,
        issuance_id: event.issuanceId,
        issuance_sequence: event.issuanceSequence,
        envelope: event.envelope,
        created_at: event.createdAt,
      })),
    )
    .execute();
}
