import { tokenSpellings, type Catalogue } from '../catalogue/index.js';
import type { GroupId, IssuanceId, ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import { groupView, issuanceView, type GroupView, type IssuanceView } from './issuance-view.js';
import { encodeIssuanceCursor, parseIssuanceListQuery, type IssuanceListFilter, type IssuanceListParameters } from './issuance-list-query.js';
import { listOptionsOfGroups, listShopIssuances, type IssuanceListWhere } from './issuance-list.repository.js';
import type { LedgerPorts } from './payout-port.js';

export interface IssuancePage {
  /** Each item is what GET /shops/{id}/issuances/{id} answers for it: an issuance, or a group with its options. */
  data: (IssuanceView | GroupView)[];
  next_cursor: string | null;
}

/**
 * GET /shops/{id}/issuances: the shop's invoices and deposits, newest first
 * (created_at, then id, descending), by keyset so that pages stay stable
 * while issuances are created. A group is one item, as its own GET shows it;
 * its options are not listed apart, and a filter on chain_id or token
 * matches a group when one of its options matches. The caller has already
 * checked read access to `shopId`. Four reads a page, whatever its size: the
 * two tables, the groups' options, the payout hashes.
 */
export async function listIssuances(
  executor: Executor,
  deps: { readonly payUrl: string; readonly catalogue: Catalogue; readonly ledger: LedgerPorts },
  shopId: ShopId,
  query: IssuanceListParameters,
): Promise<IssuancePage> {
  const { limit, after, filter } = parseIssuanceListQuery(query);
  // One row more than the page tells whether another page follows.
  const rows = await listShopIssuances(executor, shopId, { where: storedForm(filter, deps.catalogue), after, limit: limit + 1 });
  const shown = rows.slice(0, limit);
  const singleIds: IssuanceId[] = [];
  const groupIds: GroupId[] = [];
  for (const row of shown) {
    if (row.issuance !== undefined) singleIds.push(row.issuance.id);
    else groupIds.push(row.group.id);
  }
  const [payoutHashes, options] = await Promise.all([
    deps.ledger.payouts.latestConfirmedTxHashes(executor, singleIds),
    listOptionsOfGroups(executor, groupIds),
  ]);
  const last = shown.at(-1);
  return {
    data: shown.map((row) =>
      row.issuance !== undefined
        ? issuanceView(row.issuance, payoutHashes.get(row.issuance.id) ?? null, deps.payUrl)
        : groupView(row.group, options.get(row.group.id) ?? [], deps.payUrl),
    ),
    next_cursor: rows.length > limit && last !== undefined ? encodeIssuanceCursor(last.position) : null,
  };
}

/** The filter with the token in the spellings it may be stored in (`tokenSpellings`). */
function storedForm(filter: IssuanceListFilter, catalogue: Catalogue): IssuanceListWhere {
  const { token, ...rest } = filter;
  if (token === undefined) return rest;
  return { ...rest, tokens: tokenSpellings(catalogue, token, filter.chainId) };
}
