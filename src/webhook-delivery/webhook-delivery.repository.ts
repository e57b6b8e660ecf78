import { sql } from 'kysely';
import { inTransaction, type Db, type Executor, type Tx } from '../platform/database/database.js';
import type { DeliveryDecision } from './delivery-outcome.js';
import type { DisabledReason } from './delivery-outcome.js';

/**
 * The delivery worker's SQL: claiming due deliveries under a lease, recording
 * attempts and their outcomes, and the endpoint health that follows.
 */

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

// ── fan-out, and deliveries put back in (replay, recovery) or taken out (an endpoint stops) ──

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

/** Enabled endpoints of the shop whose filters hold the event's name or its group. */
export async function listSubscribedEndpointIds(executor: Executor, shopId: string, type: string, group: string): Promise<string[]> {
  const rows = await executor
    .selectFrom('webhook_endpoints')
    .select('id')
    .where((eb) => eb.and({ shop_id: shopId, enabled: true, deleted_at: null }))
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
