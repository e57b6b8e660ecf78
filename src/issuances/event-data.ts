import type { CancelReason, Issuance, IssuanceGroup, Transfer } from './issuance.js';

/**
 * The `data` of the business events about an issuance (SPEC "Webhook
 * envelope", "Events" delivery rules 4 and 5). Pure: the callers append them.
 */

/** The fields every issuance event carries; events are per option in groups. */
export function issuanceEventData(issuance: Issuance, group: IssuanceGroup | null): Record<string, unknown> {
  return {
    issuance_id: issuance.id,
    shop_id: issuance.shopId,
    external_id: issuance.externalId,
    type: issuance.kind,
    invoice_cancelled: issuance.kind === 'invoice' && issuance.cancelledAt !== null,
    group_id: group?.id ?? null,
    group_public_id: group?.publicId ?? null,
  };
}

export function transferEventData(
  issuance: Issuance,
  group: IssuanceGroup | null,
  transfer: Transfer,
  duplicate: boolean,
): Record<string, unknown> {
  return {
    ...issuanceEventData(issuance, group),
    duplicate,
    transfer_id: transfer.id,
    chain_id: transfer.chainId,
    token: transfer.token,
    amount: transfer.amount.toString(),
    tx_hash: transfer.txHash,
    log_index: transfer.logIndex,
    from: transfer.fromAddress,
    to: transfer.toAddress,
  };
}

export function revertedEventData(
  issuance: Issuance,
  group: IssuanceGroup | null,
  transfer: Transfer,
  referenceEventId: string | null,
): Record<string, unknown> {
  return {
    ...transferEventData(issuance, group, transfer, transfer.disposition === 'duplicate'),
    chain_event: { reference_event_id: referenceEventId },
  };
}

export function cancelledEventData(issuance: Issuance, group: IssuanceGroup | null, reason: CancelReason | null): Record<string, unknown> {
  const data = issuanceEventData(issuance, group);
  return reason === null ? data : { ...data, reason };
}
