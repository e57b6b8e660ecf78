import { sql, type ExpressionBuilder } from 'kysely';
import { toGroup, toIssuance, type Issuance, type IssuanceGroup } from '../issuances/index.js';
import { compiledOnce } from '../platform/database/compiled-query.js';
import type { Executor } from '../platform/database/database.js';
import type { Database } from '../platform/database/schema.js';
import type { CheckoutOwner } from './checkout.js';

/**
 * The checkout read model. It reads the tables of issuances (issuances,
 * issuance_groups, transfers) and merchants (shops, merchants) directly, in
 * joins, instead of through those modules' use cases: GET /checkout is public
 * and hot, and this way an invoice's checkout is one indexed query (a group's,
 * two more) with no query per option. It never writes; the issuances module's
 * row mappers keep the records identical to what that module reads.
 */

export interface IssuanceForCheckout {
  readonly issuance: Issuance;
  readonly owner: CheckoutOwner;
  /** SPEC `tx_hash`: the latest confirmed incoming transfer, null until there is one. */
  readonly txHash: string | null;
  /** The option belongs to a group already paid through another option. */
  readonly paidElsewhere: boolean;
  /** The public id of the option's group (null outside a group): the hosted page of an option follows its group. */
  readonly groupPublicId: string | null;
  /** The view stamps of the rows read, as `readCheckoutStamp` reads them now: equal stamps, same answer. */
  readonly stamp: string;
}

export interface GroupForCheckout {
  readonly group: IssuanceGroup;
  readonly owner: CheckoutOwner;
  /** In the order of the group's `assets`, each with its `tx_hash`. */
  readonly options: readonly { readonly issuance: Issuance; readonly txHash: string | null }[];
}

type IssuanceScope = ExpressionBuilder<Database & { i: Database['issuances'] }, 'i'>;

/** Correlated on `transfers_issuance (issuance_id, created_at)`: a handful of rows per issuance. */
function latestConfirmedTxHash(eb: IssuanceScope) {
  return eb
    .selectFrom('transfers as t')
    .select('t.tx_hash')
    .whereRef('t.issuance_id', '=', 'i.id')
    .where('t.status', '=', 'confirmed')
    .orderBy('t.confirmed_at', 'desc')
    .orderBy('t.created_at', 'desc')
    .limit(1)
    .as('latest_tx_hash');
}

/**
 * Everything an issuance's checkout answer is made of moves one of these
 * stamps (triggers of migration 202611260020): the issuance's (its transfers
 * included), its shop's, its merchant's and its group's.
 */
const VIEW_STAMP = sql<string>`${sql.ref('i.view_stamp')} || '.' || ${sql.ref('s.view_stamp')} || '.' || ${sql.ref('m.view_stamp')} || '.' || coalesce(${sql.ref('g.view_stamp')}, -1)`.as('view_stamp_of_answer');

const OWNER_COLUMNS = ['s.name as shop_name', 's.branding_name', 's.branding_logo_asset_id', 'm.name as merchant_name'] as const;

function ownerOf(row: { shop_name: string; branding_name: string | null; branding_logo_asset_id: string | null; merchant_name: string }): CheckoutOwner {
  return {
    shopName: row.shop_name,
    brandingName: row.branding_name,
    brandingLogoAssetId: row.branding_logo_asset_id,
    merchantName: row.merchant_name,
  };
}

/** One issuance (an invoice, a deposit, or one option of a group) by its public id: one query, compiled once. */
export async function findIssuanceForCheckout(executor: Executor, publicId: string): Promise<IssuanceForCheckout | undefined> {
  const [row] = await issuanceByPublicId(executor, publicId);
  if (row === undefined) return undefined;
  const issuance = toIssuance(row);
  return {
    issuance,
    owner: ownerOf(row),
    txHash: row.latest_tx_hash,
    paidElsewhere: row.group_paid_issuance_id !== null && row.group_paid_issuance_id !== issuance.id,
    groupPublicId: row.group_public_id,
    stamp: row.view_stamp_of_answer,
  };
}

/**
 * The stamp of an issuance's checkout answer, read alone: one narrow indexed
 * read, so that a cached answer can be checked for the price of a key lookup.
 * Undefined when no issuance has this public id (it may be a group's).
 */
export async function readCheckoutStamp(executor: Executor, publicId: string): Promise<string | undefined> {
  const [row] = await stampByPublicId(executor, publicId);
  return row?.view_stamp_of_answer;
}

const stampByPublicId = compiledOnce(1, (executor, publicId) =>
  fromIssuanceWithOwner(executor)
    .select(VIEW_STAMP)
    .where('i.public_id', '=', publicId),
);

function fromIssuanceWithOwner(executor: Executor) {
  return executor
    .selectFrom('issuances as i')
    .innerJoin('shops as s', 's.id', 'i.shop_id')
    .innerJoin('merchants as m', 'm.id', 'i.merchant_id')
    .leftJoin('issuance_groups as g', 'g.id', 'i.group_id');
}

const issuanceByPublicId = compiledOnce(1, (executor, publicId) =>
  fromIssuanceWithOwner(executor)
    .selectAll('i')
    .select(VIEW_STAMP)
    .select(OWNER_COLUMNS)
    .select('g.paid_issuance_id as group_paid_issuance_id')
    .select('g.public_id as group_public_id')
    .select((eb) => latestConfirmedTxHash(eb))
    .where('i.public_id', '=', publicId),
);

/** A group by its public id with every option: two queries, each compiled once. */
export async function findGroupForCheckout(executor: Executor, publicId: string): Promise<GroupForCheckout | undefined> {
  const [row] = await groupByPublicId(executor, publicId);
  if (row === undefined) return undefined;
  const options = await groupOptions(executor, row.id);
  return {
    group: toGroup(row),
    owner: ownerOf(row),
    options: options.map((option) => ({ issuance: toIssuance(option), txHash: option.latest_tx_hash })),
  };
}

const groupByPublicId = compiledOnce(1, (executor, publicId) =>
  executor
    .selectFrom('issuance_groups as g')
    .innerJoin('shops as s', 's.id', 'g.shop_id')
    .innerJoin('merchants as m', 'm.id', 'g.merchant_id')
    .selectAll('g')
    .select(OWNER_COLUMNS)
    .where('g.public_id', '=', publicId),
);

const groupOptions = compiledOnce(1, (executor, groupId) =>
  executor
    .selectFrom('issuances as i')
    .selectAll('i')
    .select((eb) => latestConfirmedTxHash(eb))
    .where('i.group_id', '=', groupId)
    .orderBy('i.group_position'),
);
