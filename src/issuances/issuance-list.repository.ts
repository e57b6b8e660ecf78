import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from 'kysely';
import { asId, type GroupId, type ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import type { Issuance, IssuanceGroup, IssuanceStatus } from './issuance.js';
import type { IssuanceListFilter, IssuanceListPosition } from './issuance-list-query.js';
import { toGroup, toIssuance } from './issuances.repository.js';

/**
 * The list of a shop's issuances (GET /shops/{id}/issuances): its ungrouped
 * issuances and its groups — a group once, never its options — as one list
 * ordered by (created_at, id) descending. Each table is read in that order
 * (`issuances_shop`, `issuance_groups_shop`, or for an external_id or status
 * filter the indexes of migration 202611270010) with the same keyset bound,
 * filter and limit, and the two pages are merged here: the first `limit`
 * rows of the merge are the first `limit` of the union, since each table
 * gives at most `limit` of them.
 */

/** The caller's filter, with the token as every stored spelling it may have (at least one). */
export type IssuanceListWhere = Omit<IssuanceListFilter, 'token'> & { readonly tokens?: readonly string[] };

export interface IssuanceListPageQuery {
  readonly where: IssuanceListWhere;
  readonly after: IssuanceListPosition | undefined;
  readonly limit: number;
}

export type ListedIssuance =
  | { readonly position: IssuanceListPosition; readonly issuance: Issuance; readonly group?: undefined }
  | { readonly position: IssuanceListPosition; readonly group: IssuanceGroup; readonly issuance?: undefined };

export async function listShopIssuances(executor: Executor, shopId: ShopId, query: IssuanceListPageQuery): Promise<ListedIssuance[]> {
  const [singles, groups] = await Promise.all([listSingles(executor, shopId, query), listGroups(executor, shopId, query)]);
  return [...singles, ...groups].sort((a, b) => compareDescending(a.position, b.position)).slice(0, query.limit);
}

/**
 * Newest first, then the greater id, as PostgreSQL orders
 * (timestamptz desc, uuid desc): the fixed-width UTC text sorts as the time
 * does, and a uuid compares by its bytes, the order of its lower-case text.
 */
export function compareDescending(a: IssuanceListPosition, b: IssuanceListPosition): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  return a.id === b.id ? 0 : a.id < b.id ? 1 : -1;
}

/** The options of each group, in the order of its `assets` list: one query for a page. */
export async function listOptionsOfGroups(executor: Executor, groupIds: readonly GroupId[]): Promise<ReadonlyMap<GroupId, Issuance[]>> {
  const byGroup = new Map<GroupId, Issuance[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return byGroup;
  const rows = await executor
    .selectFrom('issuances')
    .selectAll()
    .where('group_id', 'in', [...groupIds])
    .orderBy('group_id')
    .orderBy('group_position')
    .execute();
  for (const row of rows) byGroup.get(asId<GroupId>(row.group_id ?? ''))?.push(toIssuance(row));
  return byGroup;
}

/** created_at as UTC text with microseconds: the cursor keeps what is stored, not a millisecond Date. */
function positionTime(table: 'i' | 'g'): RawBuilder<string> {
  return sql<string>`to_char(${sql.ref(`${table}.created_at`)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

async function listSingles(executor: Executor, shopId: ShopId, query: IssuanceListPageQuery): Promise<ListedIssuance[]> {
  const { where } = query;
  let select = executor
    .selectFrom('issuances as i')
    .selectAll('i')
    .select(positionTime('i').as('position_time'))
    .where('i.shop_id', '=', shopId)
    .where('i.group_id', 'is', null);
  if (where.status !== undefined) select = select.where('i.status', '=', where.status);
  if (where.chainId !== undefined) select = select.where('i.chain_id', '=', where.chainId);
  if (where.tokens !== undefined) select = select.where('i.token', 'in', [...where.tokens]);
  const rows = await page(select, 'i', query).execute();
  return rows.map((row) => ({ position: { createdAt: row.position_time, id: row.id }, issuance: toIssuance(row) }));
}

async function listGroups(executor: Executor, shopId: ShopId, query: IssuanceListPageQuery): Promise<ListedIssuance[]> {
  const { where } = query;
  let select = executor
    .selectFrom('issuance_groups as g')
    .selectAll('g')
    .select(positionTime('g').as('position_time'))
    .where('g.shop_id', '=', shopId);
  if (where.status !== undefined) select = select.where(groupStatus(), '=', where.status);
  if (where.chainId !== undefined || where.tokens !== undefined) {
    // A group matches when one of its options is on that network and token.
    select = select.where((eb) => {
      let option = eb.selectFrom('issuances as o').select(sql`1`.as('one')).whereRef('o.group_id', '=', 'g.id');
      if (where.chainId !== undefined) option = option.where('o.chain_id', '=', where.chainId);
      if (where.tokens !== undefined) option = option.where('o.token', 'in', [...where.tokens]);
      return eb.exists(option);
    });
  }
  const rows = await page(select, 'g', query).execute();
  return rows.map((row) => ({ position: { createdAt: row.position_time, id: row.id }, group: toGroup(row) }));
}

/**
 * The group's status as `groupStatus` (issuance-view.ts) derives it from the
 * options, in SQL, for the status filter: the paid option's status; else
 * `registering` while an option waits for its address; else `reconciling` if
 * an option needs the operator; else `open`. The two must say the same: the
 * list test compares the filter with the group's view.
 */
function groupStatus(): RawBuilder<IssuanceStatus> {
  return sql<IssuanceStatus>`coalesce(
    (select p.status from issuances p where p.id = g.paid_issuance_id and p.group_id = g.id),
    case
      when exists (select 1 from issuances o where o.group_id = g.id and o.status = 'registering') then 'registering'
      when exists (select 1 from issuances o where o.group_id = g.id and o.status = 'reconciling') then 'reconciling'
      else 'open'
    end)`;
}

/** The filters both tables share, the keyset bound, the order and the limit, on the table aliased `table`. */
function page<DB, TB extends keyof DB, O>(select: SelectQueryBuilder<DB, TB, O>, table: 'i' | 'g', query: IssuanceListPageQuery): SelectQueryBuilder<DB, TB, O> {
  const { where, after } = query;
  const column = (name: string) => sql.ref(`${table}.${name}`);
  const conditions: Expression<SqlBool>[] = [];
  if (where.kind !== undefined) conditions.push(sql<SqlBool>`${column('kind')} = ${where.kind}`);
  if (where.cancelled !== undefined) conditions.push(sql<SqlBool>`${column('cancelled_at')} ${sql.raw(where.cancelled ? 'is not' : 'is')} null`);
  if (where.externalId !== undefined) conditions.push(sql<SqlBool>`${column('external_id')} = ${where.externalId}`);
  if (where.createdAfter !== undefined) conditions.push(sql<SqlBool>`${column('created_at')} > cast(${where.createdAfter} as timestamptz)`);
  if (where.createdBefore !== undefined) conditions.push(sql<SqlBool>`${column('created_at')} < cast(${where.createdBefore} as timestamptz)`);
  if (after !== undefined) {
    conditions.push(sql<SqlBool>`(${column('created_at')}, ${column('id')}) < (cast(${after.createdAt} as timestamptz), cast(${after.id} as uuid))`);
  }
  let bounded = select;
  for (const condition of conditions) bounded = bounded.where(condition);
  return bounded.orderBy(column('created_at'), 'desc').orderBy(column('id'), 'desc').limit(query.limit);
}
