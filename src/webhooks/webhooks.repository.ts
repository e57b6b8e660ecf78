import { sql } from 'kysely';
import type { ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import { countRows } from '../platform/database/count-rows.js';
import type { DeliveryStatus } from '../platform/database/schema.js';
import type { TimeKey } from '../platform/page-cursor.js';
import type { DisabledReason } from '../webhook-delivery/index.js';
import type { EndpointRecord } from './webhook-endpoint.js';

// ── endpoints ───────────────────────────────────────────────────────────────

export interface EndpointRow extends EndpointRecord {
  readonly secretSealed: string;
  readonly previousSecretSealed: string | null;
}

const ENDPOINT_COLUMNS = [
  'id',
  'shop_id',
  'url',
  'filters',
  'enabled',
  'disabled_reason',
  'disabled_at',
  'secret_sealed',
  'previous_secret_sealed',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
] as const;

interface EndpointColumns {
  id: string;
  shop_id: string;
  url: string;
  filters: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function toEndpointRow(row: EndpointColumns): EndpointRow {
  return {
    id: row.id,
    shopId: row.shop_id,
    url: row.url,
    filters: row.filters,
    enabled: row.enabled,
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
  };
}

/** Endpoints that count towards the limit: every one not deleted, enabled or not. */
export async function countLiveEndpoints(executor: Executor, shopId: ShopId): Promise<number> {
  return countRows(executor.selectFrom('webhook_endpoints').where('shop_id', '=', shopId).where('deleted_at', 'is', null));
}

export interface NewEndpoint {
  readonly id: string;
  readonly shopId: string;
  readonly url: string;
  readonly filters: readonly string[];
  readonly secretSealed: string;
  readonly now: Date;
}

export async function insertEndpoint(executor: Executor, endpoint: NewEndpoint): Promise<EndpointRow> {
  const row = await executor
    .insertInto('webhook_endpoints')
    .values({
      id: endpoint.id,
      shop_id: endpoint.shopId,
      url: endpoint.url,
      filters: JSON.stringify(endpoint.filters),
      secret_sealed: endpoint.secretSealed,
      enabled: true,
      disabled_reason: null,
      created_at: endpoint.now,
      updated_at: endpoint.now,
    })
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toEndpointRow(row);
}

export async function listLiveEndpoints(executor: Executor, shopId: ShopId): Promise<EndpointRow[]> {
  const rows = await executor
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toEndpointRow);
}

/** The endpoint when it belongs to the shop and is not deleted; `lock` holds it for the transaction. */
export async function findLiveEndpoint(
  executor: Executor,
  shopId: string,
  endpointId: string,
  { lock = false }: { lock?: boolean } = {},
): Promise<EndpointRow | undefined> {
  let query = executor
    .selectFrom('webhook_endpoints')
    .select(ENDPOINT_COLUMNS)
    .where('id', '=', endpointId)
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null);
  if (lock) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row === undefined ? undefined : toEndpointRow(row);
}

export interface EndpointChanges {
  readonly url?: string;
  readonly filters?: readonly string[];
  readonly enabled?: boolean;
  readonly disabledReason?: DisabledReason | null;
  readonly disabledAt?: Date | null;
  readonly failingSince?: Date | null;
  readonly secretSealed?: string;
  readonly previousSecretSealed?: string | null;
  readonly previousSecretExpiresAt?: Date | null;
  readonly deletedAt?: Date;
}

export async function updateEndpoint(executor: Executor, endpointId: string, changes: EndpointChanges, now: Date): Promise<EndpointRow> {
  const row = await executor
    .updateTable('webhook_endpoints')
    .set({
      updated_at: now,
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.filters === undefined ? {} : { filters: JSON.stringify(changes.filters) }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      ...(changes.disabledReason === undefined ? {} : { disabled_reason: changes.disabledReason }),
      ...(changes.disabledAt === undefined ? {} : { disabled_at: changes.disabledAt }),
      ...(changes.failingSince === undefined ? {} : { failing_since: changes.failingSince }),
      ...(changes.secretSealed === undefined ? {} : { secret_sealed: changes.secretSealed }),
      ...(changes.previousSecretSealed === undefined ? {} : { previous_secret_sealed: changes.previousSecretSealed }),
      ...(changes.previousSecretExpiresAt === undefined ? {} : { previous_secret_expires_at: changes.previousSecretExpiresAt }),
      ...(changes.deletedAt === undefined ? {} : { deleted_at: changes.deletedAt }),
    })
    .where('id', '=', endpointId)
    .returning(ENDPOINT_COLUMNS)
    .executeTakeFirstOrThrow();
  return toEndpointRow(row);
}

// ── the delivery log ────────────────────────────────────────────────────────

export interface AttemptRecord {
  readonly id: string;
  readonly startedAt: Date;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly endpointId: string;
  readonly status: DeliveryStatus;
  readonly attemptCount: number;
  readonly nextAttemptAt: Date | null;
  readonly lastAttemptAt: Date | null;
  readonly createdAt: Date;
  readonly attempts: readonly AttemptRecord[];
}

export interface DeliveryQuery {
  readonly eventId?: string;
  readonly endpointId?: string;
  readonly status?: DeliveryStatus;
  /** Rows strictly after this position in (created_at, id) descending order. */
  readonly after?: TimeKey;
  readonly limit: number;
}

function deliveriesQuery(executor: Executor, shopId: string) {
  return executor
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .select([
      'd.id',
      'd.event_id',
      'e.type as event_type',
      'd.endpoint_id',
      'd.status',
      'd.attempts',
      'd.next_attempt_at',
      'd.last_attempt_at',
      'd.created_at',
    ])
    .where('d.shop_id', '=', shopId);
}

type DeliveryColumns = {
  id: string;
  event_id: string;
  event_type: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_attempt_at: Date | null;
  created_at: Date;
};

/** Newest first; each with its attempts, oldest first. */
export async function listDeliveries(executor: Executor, shopId: ShopId, query: DeliveryQuery): Promise<DeliveryRecord[]> {
  let select = deliveriesQuery(executor, shopId);
  if (query.eventId !== undefined) select = select.where('d.event_id', '=', query.eventId);
  if (query.endpointId !== undefined) select = select.where('d.endpoint_id', '=', query.endpointId);
  if (query.status !== undefined) select = select.where('d.status', '=', query.status);
  const after = query.after;
  if (after !== undefined) {
    select = select.where(sql<boolean>`(d.created_at, d.id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
  }
  const rows = await select.orderBy('d.created_at', 'desc').orderBy('d.id', 'desc').limit(query.limit).execute();
  return withAttempts(executor, rows);
}

export async function findDelivery(executor: Executor, shopId: ShopId, deliveryId: string): Promise<DeliveryRecord | undefined> {
  const row = await deliveriesQuery(executor, shopId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (row === undefined) return undefined;
  const [record] = await withAttempts(executor, [row]);
  return record;
}

async function withAttempts(executor: Executor, rows: readonly DeliveryColumns[]): Promise<DeliveryRecord[]> {
  if (rows.length === 0) return [];
  const attempts = await executor
    .selectFrom('webhook_attempts')
    .select(['id', 'delivery_id', 'started_at', 'status_code', 'latency_ms', 'error', 'response_excerpt'])
    .where('delivery_id', 'in', rows.map((row) => row.id))
    .orderBy('started_at')
    .orderBy('id')
    .execute();
  const byDelivery = new Map(rows.map((row) => [row.id, [] as AttemptRecord[]]));
  for (const attempt of attempts) {
    byDelivery.get(attempt.delivery_id)?.push({
      id: attempt.id,
      startedAt: attempt.started_at,
      statusCode: attempt.status_code,
      latencyMs: attempt.latency_ms,
      error: attempt.error,
      responseExcerpt: attempt.response_excerpt,
    });
  }
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    endpointId: row.endpoint_id,
    status: row.status,
    attemptCount: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    createdAt: row.created_at,
    attempts: byDelivery.get(row.id) ?? [],
  }));
}

// ── the events list ─────────────────────────────────────────────────────────

export interface EventQuery {
  /** Only events about this issuance, or about any option of the group it names. */
  readonly issuanceId?: string;
  readonly type?: string;
  readonly group?: string;
  /** Only events with at least one delivery in this status. */
  readonly deliveryStatus?: DeliveryStatus;
  /** Only events older than this position in the insertion order. */
  readonly beforeSequence?: string;
  readonly limit: number;
}

export interface EventRecord {
  readonly sequence: string;
  readonly id: string;
  readonly type: string;
  readonly envelope: string;
  readonly createdAt: Date;
  readonly deliveries: Readonly<Record<DeliveryStatus, number>>;
}

/** The shop's events, newest first, each with its deliveries counted by status. */
export async function listEvents(executor: Executor, shopId: ShopId, query: EventQuery): Promise<EventRecord[]> {
  let select = executor
    .selectFrom('events as e')
    .select(['e.sequence', 'e.id', 'e.type', 'e.envelope', 'e.created_at'])
    .where('e.shop_id', '=', shopId);
  const { issuanceId } = query;
  if (issuanceId !== undefined) {
    // Through events_issuance: the few issuances named, not a scan of the shop's events.
    select = select.where('e.issuance_id', 'in', (eb) =>
      eb.selectFrom('issuances as named').select('named.id').where((inner) => inner.or([inner('named.id', '=', issuanceId), inner('named.group_id', '=', issuanceId)])),
    );
  }
  if (query.type !== undefined) select = select.where('e.type', '=', query.type);
  if (query.group !== undefined) select = select.where('e.type', 'like', `${query.group}.%`);
  if (query.beforeSequence !== undefined) select = select.where('e.sequence', '<', query.beforeSequence);
  const status = query.deliveryStatus;
  if (status !== undefined) {
    select = select.where((eb) =>
      eb.exists(
        eb
          .selectFrom('webhook_deliveries as d')
          .select(sql`1`.as('one'))
          .whereRef('d.event_id', '=', 'e.id')
          .where('d.status', '=', status),
      ),
    );
  }
  const rows = await select.orderBy('e.sequence', 'desc').limit(query.limit).execute();
  if (rows.length === 0) return [];
  const counts = await executor
    .selectFrom('webhook_deliveries')
    .select(['event_id', 'status', (eb) => eb.fn.countAll<string>().as('count')])
    .where('event_id', 'in', rows.map((row) => row.id))
    .groupBy(['event_id', 'status'])
    .execute();
  const noDeliveries = (): Record<DeliveryStatus, number> => ({ pending: 0, succeeded: 0, failed: 0 });
  const byEvent = new Map(rows.map((row) => [row.id, noDeliveries()]));
  for (const count of counts) {
    const tally = byEvent.get(count.event_id);
    if (tally !== undefined) tally[count.status] = Number(count.count);
  }
  return rows.map((row) => ({
    sequence: row.sequence,
    id: row.id,
    type: row.type,
    envelope: row.envelope,
    createdAt: row.created_at,
    deliveries: byEvent.get(row.id) ?? noDeliveries(),
  }));
}
