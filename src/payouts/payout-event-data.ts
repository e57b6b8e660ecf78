import { issuanceEventData, type Issuance, type IssuanceGroup } from '../issuances/index.js';
import type { Payout } from './payout.js';

/** SPEC "Events" rule 5: the incoming transfer id list is capped. */
export const PAYOUT_TRANSFER_IDS_CAP = 100;

/**
 * payout.sent / payout.confirmed / payout.reverted / payout.failed data. Amounts
 * not known yet are null (SPEC rule 5); `transferIds` may hold one more id than
 * the cap, which is how truncation is detected without counting.
 */
export function payoutEventData(
  issuance: Issuance,
  group: IssuanceGroup | null,
  payout: Payout,
  transferIds: readonly string[],
  amountsKnown: boolean,
): Record<string, unknown> {
  const amount = (value: bigint) => (amountsKnown ? value.toString() : null);
  return {
    ...issuanceEventData(issuance, group),
    payout_id: payout.id,
    chain_id: payout.chainId,
    token: payout.token,
    tx_hash: payout.txHash,
    recipient: payout.recipient,
    amounts: {
      gross: amount(payout.gross),
      fee: amount(payout.fee),
      to_recipient: amount(payout.toRecipient),
      to_operator: amount(payout.toOperator),
    },
    fee_details: {
      bps: payout.feeTerms.bps,
      minimum: payout.feeTerms.minimum.toString(),
      maximum: payout.feeTerms.maximum.toString(),
    },
    transfer_ids: transferIds.slice(0, PAYOUT_TRANSFER_IDS_CAP),
    transfer_ids_truncated: transferIds.length > PAYOUT_TRANSFER_IDS_CAP,
  };
}
