import type { Tx } from '../platform/database/database.js';
import { cancelInvoice, cancelInvoiceGroup, setDepositDisabled } from './close-issuances.js';
import type { CancelReason } from './issuance.js';
import { findGroupById, findIssuanceById, listMerchantOpenIssuances } from './issuances.repository.js';
import type { LedgerDeps } from './payout-port.js';

/**
 * For the operator block (SPEC "States and transitions": merchant blocked by
 * operator staff): every unpaid invoice of the merchant gets `cancelled_at` and
 * `invoice.cancelled` with the reason; every deposit address is disabled.
 * Runs in the caller's transaction; answers how many issuances and groups it closed.
 */
export async function cancelMerchantIssuances(trx: Tx, deps: LedgerDeps, merchantId: string, reason: CancelReason = 'merchant_blocked'): Promise<number> {
  const { issuanceIds, groupIds } = await listMerchantOpenIssuances(trx, merchantId);
  let closed = 0;
  for (const groupId of groupIds) {
    const group = await findGroupById(trx, groupId);
    if (group === undefined) continue;
    const outcome =
      group.kind === 'invoice' ? await cancelInvoiceGroup(trx, deps, groupId, reason) : await setDepositDisabled(trx, deps, { groupId }, true);
    if (outcome === 'closed' || outcome === 'disabled') closed += 1;
  }
  for (const issuanceId of issuanceIds) {
    const issuance = await findIssuanceById(trx, issuanceId);
    if (issuance === undefined) continue;
    const outcome =
      issuance.kind === 'invoice'
        ? await cancelInvoice(trx, deps, issuanceId, reason)
        : await setDepositDisabled(trx, deps, { issuanceId }, true);
    if (outcome === 'closed' || outcome === 'disabled') closed += 1;
  }
  return closed;
}
