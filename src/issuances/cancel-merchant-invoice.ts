import type { Tx } from '../platform/database/database.js';
import { asId, isUuid, type ShopId } from '../platform/ids.js';
import { IvoryError } from '../platform/errors.js';
import { cancelInvoice, cancelInvoiceGroup } from './close-issuances.js';
import { getIssuance } from './get-issuance.js';
import type { GroupView, IssuanceView } from './issuance-view.js';
import { findShopGroup, findShopIssuance } from './issuances.repository.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * POST /shops/{id}/invoices/{id}/cancel: closes the checkout, no refund, no
 * status change; `invoice.cancelled` without a reason. A group is cancelled by
 * its own id; an option's id is `issuance_in_group`. Cancelling again answers
 * the unchanged invoice (200). A paid invoice, or a deposit, cannot be
 * cancelled: `invalid_state` (SPEC is silent; a paid invoice has no checkout left to close).
 */
export async function cancelMerchantInvoice(
  trx: Tx,
  deps: LedgerDeps & { readonly payUrl: string },
  shopId: ShopId,
  id: string,
): Promise<IssuanceView | GroupView> {
  if (!isUuid(id)) throw new IvoryError('not_found');
  const issuance = await findShopIssuance(trx, shopId, asId(id));
  let outcome;
  if (issuance !== undefined) {
    if (issuance.groupId !== null) throw new IvoryError('issuance_in_group');
    if (issuance.kind !== 'invoice') throw new IvoryError('invalid_state');
    outcome = await cancelInvoice(trx, deps, issuance.id, null);
  } else {
    const group = await findShopGroup(trx, shopId, asId(id));
    if (group === undefined) throw new IvoryError('not_found');
    if (group.kind !== 'invoice') throw new IvoryError('invalid_state');
    outcome = await cancelInvoiceGroup(trx, deps, group.id, null);
  }
  if (outcome === 'already_paid') throw new IvoryError('invalid_state');
  return getIssuance(trx, deps, shopId, id);
}
