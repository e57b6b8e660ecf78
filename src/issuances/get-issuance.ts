import { asId, isUuid, type ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { groupView, issuanceView, type GroupView, type IssuanceView } from './issuance-view.js';
import { findShopGroup, findShopIssuance, listGroupOptions } from './issuances.repository.js';
import type { LedgerPorts } from './payout-port.js';

/**
 * GET /shops/{id}/issuances/{id}: the issuance, or the group with all its
 * options when the id is a group's. Another shop's id is `not_found`, like an
 * unknown one, so ids of other shops cannot be probed.
 */
export async function getIssuance(
  executor: Executor,
  deps: { readonly payUrl: string; readonly ledger: LedgerPorts },
  shopId: ShopId,
  id: string,
): Promise<IssuanceView | GroupView> {
  if (!isUuid(id)) throw new IvoryError('not_found');
  const issuance = await findShopIssuance(executor, shopId, asId(id));
  if (issuance !== undefined) {
    return issuanceView(issuance, await deps.ledger.payouts.latestConfirmedTxHash(executor, issuance.id), deps.payUrl);
  }
  const group = await findShopGroup(executor, shopId, asId(id));
  if (group === undefined) throw new IvoryError('not_found');
  return groupView(group, await listGroupOptions(executor, group.id), deps.payUrl);
}
