import type { Selectable, SelectQueryBuilder, Updateable } from 'kysely';
import { sql } from 'kysely';
import { compiledTemplate } from '../platform/database/compiled-query.js';
import { insertIdempotencyRecord, type IdempotencyRecord } from '../platform/database/idempotency.repository.js';
import { asId, asNullableId, type GroupId, type IssuanceId, type MerchantId, type ShopId } from '../platform/ids.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { enterSharedInvoiceGate, whereOpenInvoiceGroup, whereOpenSingleInvoice, type InvoiceLimitStateValues } from '../limits/index.js';
import { lockCurrentIssuingShop } from '../merchants/index.js';
import type { Database, IssuanceGroupsTable, IssuancesTable, IssuanceStatus } from '../platform/database/schema.js';
import type { Issuance, IssuanceGroup } from './issuance.js';
import { units18 } from '../money/index.js';

/**
 * SQL for `issuances` and `issuance_groups`. Reads scoped by shop take the shop
 * id from the authorised principal; `…ById` reads are for workers and the ledger.
 * Lock order, everywhere: merchant → group → issuance → transfer → payout.
 */

export type IssuanceRow = Selectable<IssuancesTable>;
export type GroupRow = Selectable<IssuanceGroupsTable>;
export type IssuancePatch = Updateable<IssuancesTable>;
export type GroupPatch = Updateable<IssuanceGroupsTable>;

/** The fields an issuance and a group share (`IssuanceCommon`), from the columns they share. */
function toIssuanceCommon<IdType extends IssuanceId | GroupId>(row: IssuanceRow | GroupRow) {
  return {
    id: asId<IdType>(row.id),
    publicId: row.public_id,
    shopId: asId<ShopId>(row.shop_id),
    merchantId: asId<MerchantId>(row.merchant_id),
    kind: row.kind,
    sandbox: row.sandbox,
    externalId: row.external_id,
    description: row.description,
    returnUrl: row.return_url,
    expiresAt: row.expires_at,
    cancelledAt: row.cancelled_at,
    cancelReason: row.cancel_reason,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
  };
}

/*
 * Object.assign onto the common part, not `{ ...common, ...}`: on the Node
 * this runs on, spreading into a literal that then gains properties costs
 * microseconds per property (create-issuance.ts `newCommon`); measured here
 * ~80 µs per issuance against ~3, which a page of 100 issuances felt.
 */
export function toIssuance(row: IssuanceRow): Issuance {
  return Object.assign(toIssuanceCommon<IssuanceId>(row), {
    groupId: asNullableId<GroupId>(row.group_id),
    groupPosition: row.group_position,
    chainId: row.chain_id,
    family: row.family,
    token: row.token,
    tokenDecimals: row.token_decimals,
    amount: row.amount === null ? null : BigInt(row.amount),
    received: BigInt(row.received),
    credited: BigInt(row.credited),
    unswept: BigInt(row.unswept),
    status: row.status,
    address: row.address,
    recipient: row.recipient,
    delegate: row.delegate,
    payoutTarget: row.payout_target,
    feeTerms: { bps: row.fee_bps, minimum: units18(BigInt(row.fee_minimum)), maximum: units18(BigInt(row.fee_maximum)) },
    sweepThreshold: row.sweep_threshold === null ? null : BigInt(row.sweep_threshold),
    fundedAt: row.funded_at,
    settledAt: row.settled_at,
  });
}

export function toGroup(row: GroupRow): IssuanceGroup {
  return Object.assign(toIssuanceCommon<GroupId>(row), {
    amount: row.amount,
    paidIssuanceId: asNullableId<IssuanceId>(row.paid_issuance_id),
  });
}

/**
 * Stores the issuances (one statement for all of them: a group's options are
 * one round trip, not one each) and, in the same statement, the request's
 * idempotency record with its answer (src/platform/http, `runIdempotentClaimingLast`).
 */
export async function insertIssuances(trx: Tx, issuances: readonly Issuance[], record: IdempotencyRecord): Promise<void> {
  await trx
    .with('claimed', (db) => insertIdempotencyRecord(db, record))
    .insertInto('issuances')
    .values(issuanceRows(issuances))
    .execute();
}

/** The limit state an invoice creation reads with its insert (src/limits: the gate's own SELECT). */
export interface StateRead<State> {
  /** Names the SQL of `select` (the gate's mode): one compiled statement per name and row count. */
  readonly name: string;
  readonly select: (executor: Executor, values: InvoiceLimitStateValues) => SelectQueryBuilder<Database, never, State>;
  readonly values: InvoiceLimitStateValues;
}

/**
 * `insertIssuances`, and `state` read in the same statement (one round trip):
 * its snapshot is the statement's, so the rows inserted here are not in it.
 * The hot path of invoice creation, so the statement is compiled once per
 * state and row count (`compiledTemplate`) instead of built for every request.
 */
export async function insertIssuancesReading<State>(trx: Tx, issuances: readonly Issuance[], record: IdempotencyRecord, state: StateRead<State>): Promise<State> {
  let statement = countedInserts.get(state.name) as CountedInsert<State> | undefined;
  if (statement === undefined) {
    statement = compiledTemplate((executor, input: CountedInsertInput) =>
      executor
        .with('claimed', (db) => insertIdempotencyRecord(db, input.record))
        .with('inserted', (db) => db.insertInto('issuances').values(input.rows))
        .selectFrom(state.select(executor, input.state).as('state'))
        .selectAll(),
    ) as CountedInsert<State>;
    countedInserts.set(state.name, statement as CountedInsert<unknown>);
  }
  const [row] = await statement(trx, String(issuances.length), { record, rows: issuanceRows(issuances), state: state.values });
  if (row === undefined) throw new Error('the state read of an invoice creation returned no row');
  return row;
}

interface CountedInsertInput {
  readonly record: IdempotencyRecord;
  readonly rows: ReturnType<typeof issuanceRows>;
  readonly state: InvoiceLimitStateValues;
}
type CountedInsert<State> = (executor: Executor, shape: string, input: CountedInsertInput) => Promise<State[]>;
const countedInserts = new Map<string, CountedInsert<unknown>>();

/** What the one-statement creation checks before it writes: the kept terms still current, the shared gate's admission. */
export interface OneStatementChecks {
  readonly shopId: string;
  readonly shopStamp: string;
  readonly merchantStamp: string;
  readonly sandbox: boolean;
  /** The merchant's active-invoice limit, from the kept override. */
  readonly limit: number;
}

/**
 * One invoice, its idempotency record, and the checks of `checks`, in one
 * statement run outside any transaction (`createInvoiceInOneStatement`).
 * Either check raising aborts the whole statement, so nothing is written
 * unless both passed; the gate's count reads a snapshot taken after its lock
 * whenever the inserts of the WITH clauses run. Compiled once (`compiledTemplate`).
 */
export async function insertInvoiceInOneStatement(executor: Executor, issuance: Issuance, record: IdempotencyRecord, checks: OneStatementChecks): Promise<void> {
  await oneStatementInsert(executor, 'one', { record, rows: issuanceRows([issuance]), checks });
}

const oneStatementInsert = compiledTemplate(
  (executor, input: { readonly record: IdempotencyRecord; readonly rows: ReturnType<typeof issuanceRows>; readonly checks: OneStatementChecks }) =>
    executor
      .with('claimed', (db) => insertIdempotencyRecord(db, input.record))
      .with('inserted', (db) => db.insertInto('issuances').values(input.rows))
      .selectNoFrom(enterSharedInvoiceGate(lockCurrentIssuingShop(input.checks), input.checks.sandbox, input.checks.limit).as('open_invoices')),
);

function issuanceRows(issuances: readonly Issuance[]) {
  return issuances.map((issuance) => ({
        id: issuance.id,
        public_id: issuance.publicId,
        shop_id: issuance.shopId,
        merchant_id: issuance.merchantId,
        group_id: issuance.groupId,
        group_position: issuance.groupPosition,
        kind: issuance.kind,
        sandbox: issuance.sandbox,
        chain_id: issuance.chainId,
        family: issuance.family,
        token: issuance.token,
        token_decimals: issuance.tokenDecimals,
        amount: issuance.amount,
        received: issuance.received,
        credited: issuance.credited,
        unswept: issuance.unswept,
        status: issuance.status,
        address: issuance.address,
        next_allocation_at: issuance.createdAt,
        recipient: issuance.recipient,
        delegate: issuance.delegate,
        payout_target: issuance.payoutTarget,
        fee_bps: issuance.feeTerms.bps,
        fee_minimum: issuance.feeTerms.minimum,
        fee_maximum: issuance.feeTerms.maximum,
        sweep_threshold: issuance.sweepThreshold,
        external_id: issuance.externalId,
        description: issuance.description,
        return_url: issuance.returnUrl,
        expires_at: issuance.expiresAt,
        cancelled_at: issuance.cancelledAt,
        cancel_reason: issuance.cancelReason,
        disabled_at: issuance.disabledAt,
        funded_at: issuance.fundedAt,
        settled_at: issuance.settledAt,
        created_at: issuance.createdAt,
        updated_at: issuance.createdAt,
      }));
}

export async function insertGroup(trx: Tx, group: IssuanceGroup): Promise<void> {
  await trx
    .insertInto('issuance_groups')
    .values({
      id: group.id,
      public_id: group.publicId,
      shop_id: group.shopId,
      merchant_id: group.merchantId,
      kind: group.kind,
      sandbox: group.sandbox,
      amount: group.amount,
      paid_issuance_id: group.paidIssuanceId,
      external_id: group.externalId,
      description: group.description,
      return_url: group.returnUrl,
      expires_at: group.expiresAt,
      cancelled_at: group.cancelledAt,
      cancel_reason: group.cancelReason,
      disabled_at: group.disabledAt,
      created_at: group.createdAt,
    })
    .execute();
}

/** An issuance of the shop by id; undefined when absent or another shop's. */
export async function findShopIssuance(executor: Executor, shopId: ShopId, id: IssuanceId): Promise<Issuance | undefined> {
  const row = await executor.selectFrom('issuances').selectAll().where('id', '=', id).where('shop_id', '=', shopId).executeTakeFirst();
  return row === undefined ? undefined : toIssuance(row);
}

export async function findShopGroup(executor: Executor, shopId: ShopId, id: GroupId): Promise<IssuanceGroup | undefined> {
  const row = await executor.selectFrom('issuance_groups').selectAll().where('id', '=', id).where('shop_id', '=', shopId).executeTakeFirst();
  return row === undefined ? undefined : toGroup(row);
}

export async function findIssuanceById(executor: Executor, id: IssuanceId): Promise<Issuance | undefined> {
  const row = await executor.selectFrom('issuances').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toIssuance(row);
}

export async function findGroupById(executor: Executor, id: GroupId): Promise<IssuanceGroup | undefined> {
  const row = await executor.selectFrom('issuance_groups').selectAll().where('id', '=', id).executeTakeFirst();
  return row === undefined ? undefined : toGroup(row);
}

/** A group's options in the order of its `assets` list. */
export async function listGroupOptions(executor: Executor, groupId: GroupId): Promise<Issuance[]> {
  const rows = await executor.selectFrom('issuances').selectAll().where('group_id', '=', groupId).orderBy('group_position').execute();
  return rows.map(toIssuance);
}

export async function lockIssuance(trx: Tx, id: IssuanceId): Promise<Issuance | undefined> {
  const row = await trx.selectFrom('issuances').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toIssuance(row);
}

export async function lockGroup(trx: Tx, id: GroupId): Promise<IssuanceGroup | undefined> {
  const row = await trx.selectFrom('issuance_groups').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
  return row === undefined ? undefined : toGroup(row);
}

/** Locks a group's options (in id order, so two lockers never deadlock). */
export async function lockGroupOptions(trx: Tx, groupId: GroupId): Promise<Issuance[]> {
  const rows = await trx.selectFrom('issuances').selectAll().where('group_id', '=', groupId).orderBy('id').forUpdate().execute();
  return rows.map(toIssuance).sort((a, b) => (a.groupPosition ?? 0) - (b.groupPosition ?? 0));
}

export async function updateIssuance(trx: Tx, id: IssuanceId, now: Date, patch: IssuancePatch): Promise<void> {
  await trx.updateTable('issuances').set({ ...patch, updated_at: now }).where('id', '=', id).execute();
}

export async function updateGroup(trx: Tx, id: GroupId, patch: GroupPatch): Promise<void> {
  await trx.updateTable('issuance_groups').set(patch).where('id', '=', id).execute();
}

/* The issuance workers' queues: address allocation, expiry, and the operator block's sweep. */

/** Ids of ungrouped invoices past expiry and still unpaid, not yet cancelled. */
export async function listDueInvoiceExpiries(executor: Executor, now: Date, limit: number): Promise<IssuanceId[]> {
  const due = whereOpenSingleInvoice(executor.selectFrom('issuances').select('id')).where('expires_at', '<=', now);
  const rows = await due.orderBy('expires_at').limit(limit).execute();
  return rows.map((row) => asId(row.id));
}

export async function listDueGroupExpiries(executor: Executor, now: Date, limit: number): Promise<GroupId[]> {
  const due = whereOpenInvoiceGroup(executor.selectFrom('issuance_groups').select('id')).where('expires_at', '<=', now);
  const rows = await due.orderBy('expires_at').limit(limit).execute();
  return rows.map((row) => asId(row.id));
}

/** Everything of a merchant that an operator block must close: ungrouped issuances and groups. */
export async function listMerchantOpenIssuances(
  executor: Executor,
  merchantId: string,
): Promise<{ issuanceIds: IssuanceId[]; groupIds: GroupId[] }> {
  const issuances = await executor
    .selectFrom('issuances')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('group_id', 'is', null)
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', '=', 'invoice'), eb('cancelled_at', 'is', null), eb('status', 'in', ['registering', 'open'] as IssuanceStatus[])]),
        eb.and([eb('kind', '=', 'deposit'), eb('disabled_at', 'is', null)]),
      ]),
    )
    .execute();
  const groups = await executor
    .selectFrom('issuance_groups')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([
        eb.and([eb('kind', '=', 'invoice'), eb('cancelled_at', 'is', null), eb('paid_issuance_id', 'is', null)]),
        eb.and([eb('kind', '=', 'deposit'), eb('disabled_at', 'is', null)]),
      ]),
    )
    .execute();
  return { issuanceIds: issuances.map((row) => asId(row.id)), groupIds: groups.map((row) => asId(row.id)) };
}

/* The batch ledger entry's reads and writes (record-transfers.ts). */

/** Each existing issuance's group (null: none), unlocked: what decides a batch's lock order. */
export async function findIssuanceGroups(executor: Executor, ids: readonly IssuanceId[]): Promise<Map<IssuanceId, string | null>> {
  if (ids.length === 0) return new Map();
  const rows = await executor.selectFrom('issuances').select(['id', 'group_id']).where(sql<boolean>`id = any(${ids}::uuid[])`).execute();
  return new Map(rows.map((row) => [asId<IssuanceId>(row.id), row.group_id]));
}

/** Locks issuances in id order, so two batch lockers never deadlock. */
export async function lockIssuances(trx: Tx, ids: readonly IssuanceId[]): Promise<Map<IssuanceId, Issuance>> {
  if (ids.length === 0) return new Map();
  const rows = await trx.selectFrom('issuances').selectAll().where(sql<boolean>`id = any(${ids}::uuid[])`).orderBy('id').forUpdate().execute();
  return new Map(rows.map((row) => [asId<IssuanceId>(row.id), toIssuance(row)]));
}

/** The numbers and status a batch of transfers left on each issuance, in one statement. */
export async function updateIssuanceBalances(trx: Tx, now: Date, issuances: readonly Issuance[]): Promise<void> {
  if (issuances.length === 0) return;
  const time = (value: Date | null) => (value === null ? null : value.toISOString());
  await sql`
    update issuances set received = batch.received, credited = batch.credited, unswept = batch.unswept, status = batch.status,
      funded_at = batch.funded_at, settled_at = batch.settled_at, updated_at = ${now}
    from unnest(${issuances.map((issuance) => issuance.id)}::uuid[], ${issuances.map((issuance) => issuance.received.toString())}::numeric[],
      ${issuances.map((issuance) => issuance.credited.toString())}::numeric[], ${issuances.map((issuance) => issuance.unswept.toString())}::numeric[],
      ${issuances.map((issuance) => issuance.status)}::text[], ${issuances.map((issuance) => time(issuance.fundedAt))}::timestamptz[],
      ${issuances.map((issuance) => time(issuance.settledAt))}::timestamptz[])
      as batch(id, received, credited, unswept, status, funded_at, settled_at)
    where issuances.id = batch.id`.execute(trx);
}
