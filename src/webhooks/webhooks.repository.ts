import { sql } from 'kysely';
import { inTransaction, type Db, type Executor, type Tx } from '../platform/database/database.js';
import type { DeliveryStatus } from '../platform/database/schema.js';
import type { TimeKey } from './cursor.js';
import type { DeliveryDecision } from './delivery-outcome.js';
import type { DisabledReason, EndpointRecord } from './webhook-endpoint.js';

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
export async function countLiveEndpoints(executor: Executor, shopId: string): Promise<number> {
  const row = await executor
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('shop_id', '=', shopId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
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

export async function listLiveEndpoints(executor: Executor, shopId: string): Promise<EndpointRow[]> {
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

/** Every pending delivery of the endpoint becomes failed (the endpoint stopped receiving). */
export async function failPendingDeliveries(executor: Executor, endpointId: string): Promise<number> {
  const result = await executor
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null, lease_token: null })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Failed deliveries of the endpoint created at or after `since` become pending
 * and due now, each with a fresh round of the retry schedule.
 */
export async function requeueFailedDeliveries(executor: Executor, endpointId: string, since: Date, now: Date): Promise<number> {
  const result = await executor
    .updateTable('webhook_deliveries')
    .set((eb) => ({ status: 'pending', next_attempt_at: now, lease_token: null, round_started_at: eb.ref('attempts') }))
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'failed')
    .where('created_at', '>=', since)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

// ── fan-out ─────────────────────────────────────────────────────────────────

/** Enabled endpoints of the shop whose filters hold the event's name or its group. */
export async function listSubscribedEndpointIds(executor: Executor, shopId: string, type: string, group: string): Promise<string[]> {
  const rows = await executor
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('enabled', '=', true)
    .where('deleted_at', 'is', null)
    .where((eb) =>
      eb.or([sql<boolean>`filters @> ${JSON.stringify([type])}::jsonb`, sql<boolean>`filters @> ${JSON.stringify([group])}::jsonb`]),
    )
    .execute();
  return rows.map((row) => row.id);
}

export interface NewDelivery {
  readonly id: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly shopId: string;
  readonly createdAt: Date;
}

/** Pending deliveries, due at once. */
export async function insertDeliveries(executor: Executor, deliveries: readonly NewDelivery[]): Promise<void> {
  if (deliveries.length === 0) return;
  await executor
    .insertInto('webhook_deliveries')
    .values(
      deliveries.map((delivery) => ({
        id: delivery.id,
        event_id: delivery.eventId,
        endpoint_id: delivery.endpointId,
        shop_id: delivery.shopId,
        status: 'pending' as const,
        next_attempt_at: delivery.createdAt,
        created_at: delivery.createdAt,
      })),
    )
    .execute();
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
export async function listDeliveries(executor: Executor, shopId: string, query: DeliveryQuery): Promise<DeliveryRecord[]> {
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

export async function findDelivery(executor: Executor, shopId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
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
    .where(
      'delivery_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('started_at')
    .orderBy('id')
    .execute();
  const byDelivery = new Map<string, AttemptRecord[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push({
      id: attempt.id,
      startedAt: attempt.started_at,
      statusCode: attempt.status_code,
      latencyMs: attempt.latency_ms,
      error: attempt.error,
      responseExcerpt: attempt.response_excerpt,
    });
    byDelivery.set(attempt.delivery_id, list);
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

/** The delivery and the state of its endpoint, locked for a replay. */
export async function lockDeliveryForReplay(
  executor: Executor,
  shopId: string,
  deliveryId: string,
): Promise<{ endpointEnabled: boolean; endpointDeleted: boolean } | undefined> {
  const row = await executor
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
    .select(['w.enabled', 'w.deleted_at'])
    .where('d.id', '=', deliveryId)
    .where('d.shop_id', '=', shopId)
    .forUpdate('d')
    .executeTakeFirst();
  return row === undefined ? undefined : { endpointEnabled: row.enabled, endpointDeleted: row.deleted_at !== null };
}

/**
 * The delivery becomes pending and due now, with a fresh round of the retry
 * schedule; a worker holding it loses its lease (its attempt is still logged).
 */
export async function requeueDelivery(executor: Executor, deliveryId: string, now: Date): Promise<void> {
  await executor
    .updateTable('webhook_deliveries')
    .set((eb) => ({ status: 'pending', next_attempt_at: now, lease_token: null, round_started_at: eb.ref('attempts') }))
    .where('id', '=', deliveryId)
    .execute();
}

// ── the events list ─────────────────────────────────────────────────────────

export interface EventQuery {
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
export async function listEvents(executor: Executor, shopId: string, query: EventQuery): Promise<EventRecord[]> {
  let select = executor
    .selectFrom('events as e')
    .select(['e.sequence', 'e.id', 'e.type', 'e.envelope', 'e.created_at'])
    .where('e.shop_id', '=', shopId);
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
    .where(
      'event_id',
      'in',
      rows.map((row) => row.id),
    )
    .groupBy(['event_id', 'status'])
    .execute();
  const byEvent = new Map<string, Record<DeliveryStatus, number>>();
  for (const count of counts) {
    const tally = byEvent.get(count.event_id) ?? { pending: 0, succeeded: 0, failed: 0 };
    tally[count.status] = Number(count.count);
    byEvent.set(count.event_id, tally);
  }
  return rows.map((row) => ({
    sequence: row.sequence,
    id: row.id,
    type: row.type,
    envelope: row.envelope,
    createdAt: row.created_at,
    deliveries: byEvent.get(row.id) ?? { pending: 0, succeeded: 0, failed: 0 },
  }));
}

// ── the delivery worker ─────────────────────────────────────────────────────

export interface ClaimRequest {
  readonly now: Date;
  readonly leaseUntil: Date;
  readonly leaseToken: string;
  readonly limit: number;
  /** How many of the oldest due rows to consider (bounds the work per claim). */
  readonly scan: number;
  readonly perEndpointCap: number;
  /** Slots left per endpoint where this worker already has deliveries in flight. */
  readonly roomByEndpoint: Readonly<Record<string, number>>;
}

export interface ClaimedDelivery {
  readonly id: string;
  /** Proves, when the outcome is recorded, that this claim still holds the row. */
  readonly leaseToken: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly shopId: string;
  readonly attempts: number;
  readonly roundStartedAt: number;
  readonly envelope: string;
  readonly url: string;
  readonly secretSealed: string;
  readonly previousSecretSealed: string | null;
  readonly previousSecretExpiresAt: Date | null;
}

interface ClaimedRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  shop_id: string;
  attempts: number;
  round_started_at: number;
  envelope: string;
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: Date | string | null;
}

/**
 * Claims up to `limit` due pending deliveries of enabled endpoints, at most
 * the endpoint's room each, oldest due first, skipping rows another worker
 * has locked (ARCHITECTURE rule 4). Claiming pushes `next_attempt_at` to the
 * lease's end and stamps the lease token, in one statement in its own short
 * transaction: if the worker dies, the row is due again when the lease ends.
 *
 * The window function sits in its own CTE because PostgreSQL refuses
 * `FOR UPDATE` beside window functions at one query level; ids travel between
 * the steps as arrays so that each step looks rows up by primary key, whatever
 * the size of the table.
 */
export async function claimDueDeliveries(db: Db, claim: ClaimRequest): Promise<ClaimedDelivery[]> {
  return inTransaction(db, async (trx) => {
    await relaxDurability(trx);
    return claimIn(trx, claim);
  });
}

/**
 * The worker's own transactions need not wait for their commit to reach disk:
 * a claim or an attempt record lost in a database crash only means that the
 * delivery is sent again, which at-least-once delivery allows (receivers
 * dedupe by event id). It spares one disk flush per batch.
 */
export async function relaxDurability(trx: Tx): Promise<void> {
  await sql`set local synchronous_commit = off`.execute(trx);
}

async function claimIn(trx: Tx, claim: ClaimRequest): Promise<ClaimedDelivery[]> {
  const room = JSON.stringify(claim.roomByEndpoint);
  const result = await sql<ClaimedRow>`
    with candidates as (
      select d.id, d.endpoint_id, d.next_attempt_at
      from webhook_deliveries d
      where d.status = 'pending'
        and d.next_attempt_at <= ${claim.now}
        and coalesce((${room}::jsonb ->> d.endpoint_id::text)::int, ${claim.perEndpointCap}::int) > 0
      order by d.next_attempt_at
      limit ${claim.scan}
    ), ranked as (
      select c.id, c.next_attempt_at,
        row_number() over (partition by c.endpoint_id order by c.next_attempt_at, c.id) as position,
        coalesce((${room}::jsonb ->> c.endpoint_id::text)::int, ${claim.perEndpointCap}::int) as room
      from candidates c
    ), chosen as (
      select d.id
      from webhook_deliveries d
      join webhook_endpoints e on e.id = d.endpoint_id
      where d.id = any(array(select r.id from ranked r where r.position <= r.room))
        and e.enabled and e.deleted_at is null
        and d.status = 'pending' and d.next_attempt_at <= ${claim.now}
      order by d.next_attempt_at
      limit ${claim.limit}
      for update of d skip locked
    ), claimed as (
      update webhook_deliveries w
      set next_attempt_at = ${claim.leaseUntil}, lease_token = ${claim.leaseToken}::uuid
      where w.id = any(array(select chosen.id from chosen))
      returning w.id, w.event_id, w.endpoint_id, w.shop_id, w.attempts, w.round_started_at
    )
    select c.id, c.event_id, c.endpoint_id, c.shop_id, c.attempts, c.round_started_at,
      ev.envelope, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_secret_expires_at
    from claimed c
    join events ev on ev.id = c.event_id
    join webhook_endpoints e on e.id = c.endpoint_id
  `.execute(trx);
  return result.rows.map((row) => ({
    id: row.id,
    leaseToken: claim.leaseToken,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    shopId: row.shop_id,
    attempts: Number(row.attempts),
    roundStartedAt: Number(row.round_started_at),
    envelope: row.envelope,
    url: row.url,
    secretSealed: row.secret_sealed,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
  }));
}

export interface FinishedAttempt {
  readonly attemptId: string;
  readonly deliveryId: string;
  readonly shopId: string;
  readonly leaseToken: string;
  readonly startedAt: Date;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseExcerpt: string | null;
  readonly decision: DeliveryDecision;
}

/**
 * Logs each attempt and moves its delivery on. The attempt is always logged
 * and counted; the delivery's status and next attempt change only while the
 * worker still holds the lease it claimed with (a replay, a recovery or an
 * endpoint being disabled meanwhile takes precedence).
 */
export async function recordAttempts(trx: Tx, attempts: readonly FinishedAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await trx
    .insertInto('webhook_attempts')
    .values(
      attempts.map((attempt) => ({
        id: attempt.attemptId,
        delivery_id: attempt.deliveryId,
        shop_id: attempt.shopId,
        started_at: attempt.startedAt,
        status_code: attempt.statusCode,
        latency_ms: attempt.latencyMs,
        error: attempt.error,
        response_excerpt: attempt.responseExcerpt,
      })),
    )
    .execute();
  // One statement for the whole batch: the delivery worker's throughput on
  // the embedded backend is bounded by statements, not rows.
  const outcomes = JSON.stringify(
    attempts.map((attempt) => ({
      id: attempt.deliveryId,
      lease_token: attempt.leaseToken,
      started_at: attempt.startedAt.toISOString(),
      status: attempt.decision.status,
      next_attempt_at: attempt.decision.status === 'pending' ? attempt.decision.nextAttemptAt.toISOString() : null,
    })),
  );
  await sql`
    update webhook_deliveries w
    set attempts = w.attempts + 1,
      last_attempt_at = greatest(w.last_attempt_at, v.started_at),
      status = case when w.lease_token = v.lease_token and w.status = 'pending' then v.status else w.status end,
      next_attempt_at = case when w.lease_token = v.lease_token and w.status = 'pending' then v.next_attempt_at else w.next_attempt_at end,
      lease_token = case when w.lease_token = v.lease_token and w.status = 'pending' then null else w.lease_token end
    from jsonb_to_recordset(${outcomes}::jsonb)
      as v(id uuid, lease_token uuid, started_at timestamptz, status text, next_attempt_at timestamptz)
    where w.id = v.id
      -- Lets the planner look the rows up by key rather than scan the table.
      and w.id = any(array(select (item ->> 'id')::uuid from jsonb_array_elements(${outcomes}::jsonb) item))
  `.execute(trx);
}

/** A success clears the endpoint's failure streak. */
export async function clearEndpointFailing(executor: Executor, endpointId: string): Promise<void> {
  await executor
    .updateTable('webhook_endpoints')
    .set({ failing_since: null })
    .where('id', '=', endpointId)
    .where('failing_since', 'is not', null)
    .execute();
}

/**
 * Starts the failure streak at `from` unless one is running (or, when
 * `restart`, because a success came before it in the same batch).
 */
export async function markEndpointFailing(executor: Executor, endpointId: string, from: Date, restart: boolean): Promise<void> {
  await executor
    .updateTable('webhook_endpoints')
    .set({ failing_since: restart ? from : sql<Date>`coalesce(failing_since, ${from}::timestamptz)` })
    .where('id', '=', endpointId)
    .execute();
}

/**
 * Disables the endpoint unless it already is; with `failingBefore`, only when
 * its failure streak started before then. True when this call disabled it.
 */
export async function disableEndpoint(
  executor: Executor,
  endpointId: string,
  reason: DisabledReason,
  now: Date,
  failingBefore?: Date,
): Promise<boolean> {
  let update = executor
    .updateTable('webhook_endpoints')
    .set({ enabled: false, disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', endpointId)
    .where('enabled', '=', true);
  if (failingBefore !== undefined) update = update.where('failing_since', '<=', failingBefore);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
