import type { Tx } from '../platform/database/database.js';
import { asId, isUuid, type GroupId, type MerchantId, type ShopId } from '../platform/ids.js';
import { IvoryError } from '../platform/errors.js';
import { setDepositDisabled } from './close-issuances.js';
import { addressesByFamily, enforceDepositAddressLimit, lockMerchantForLimits } from '../limits/index.js';
import { getIssuance } from './get-issuance.js';
import type { GroupView, IssuanceView } from './issuance-view.js';
import { findShopGroup, findShopIssuance, listGroupOptions } from './issuances.repository.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * PATCH /shops/{id}/deposits/{id} {enabled}: pauses or re-enables the deposit
 * page (a group's by its own id, all options together; an option's id is
 * `issuance_in_group`). Paused addresses stop counting toward the address
 * limit, so re-enabling checks it again. Repeating the current state is 200.
 */
export async function setDepositEnabled(
  trx: Tx,
  deps: LedgerDeps & { readonly payUrl: string },
  input: { readonly shopId: ShopId; readonly merchantId: MerchantId; readonly sandbox: boolean; readonly id: string; readonly enabled: boolean },
): Promise<IssuanceView | GroupView> {
  const { shopId, id, enabled } = input;
  if (!isUuid(id)) throw new IvoryError('not_found');
  // Lock order merchant → group → issuance; the state read below is then current.
  if (enabled) await lockMerchantForLimits(trx, input.merchantId);
  const issuance = await findShopIssuance(trx, shopId, asId(id));
  const group = issuance === undefined ? await findShopGroup(trx, shopId, asId(id)) : undefined;
  if (issuance === undefined && group === undefined) throw new IvoryError('not_found');
  if (issuance !== undefined && issuance.groupId !== null) throw new IvoryError('issuance_in_group');
  if ((issuance ?? group)?.kind !== 'deposit') throw new IvoryError('invalid_state');

  const paused = (issuance ?? group)?.disabledAt !== null;
  if (enabled && paused) {
    const options = issuance !== undefined ? [issuance] : await listGroupOptions(trx, asId(id));
    await enforceDepositAddressLimit(trx, input.merchantId, input.sandbox, addressesByFamily(options));
  }
  const target = issuance !== undefined ? { issuanceId: issuance.id } : { groupId: asId<GroupId>(id) };
  await setDepositDisabled(trx, deps, target, !enabled);
  return getIssuance(trx, deps, shopId, id);
}
