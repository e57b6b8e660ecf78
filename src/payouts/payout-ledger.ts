import type { IssuancePayout, PayoutLedger } from '../issuances/index.js';
import type { PayoutId } from '../platform/ids.js';
import { newId } from '../platform/crypto.js';
import { BROADCAST_PAYOUT_STATUSES, type Payout } from './payout.js';
import { insertPayouts, latestConfirmedPayoutTxHash, latestConfirmedPayoutTxHashes, lockCurrentPayout, lockPayout, updatePayout } from './payouts.repository.js';

/**
 * The payout rows the issuance lifecycle creates, re-splits and cancels
 * (`issuances/payout-port.ts`), connected by the composition root.
 */
export const payoutLedger: PayoutLedger = {
  async lockCurrent(trx, issuanceId) {
    return asIssuancePayout(await lockCurrentPayout(trx, issuanceId));
  },
  async lock(trx, payoutId) {
    return asIssuancePayout(await lockPayout(trx, payoutId));
  },
  async schedule(trx, now, issuance, split) {
    const [id] = await payoutLedger.scheduleMany(trx, now, [{ issuance, split }]);
    return id as PayoutId;
  },
  async scheduleMany(trx, now, requests) {
    const payouts = requests.map(({ issuance, split }): Payout => {
      const { gross, fee, toRecipient, toOperator } = split;
      return {
        id: newId<PayoutId>(),
        issuanceId: issuance.id,
        shopId: issuance.shopId,
        sandbox: issuance.sandbox,
        chainId: issuance.chainId,
        token: issuance.token,
        tokenDecimals: issuance.tokenDecimals,
        status: 'scheduled',
        attempts: 0,
        // Sandbox payouts are never sent (LEDGER "Sandbox"): no worker may claim them.
        nextAttemptAt: issuance.sandbox ? null : now,
        lastError: null,
        gross,
        fee,
        toRecipient,
        toOperator,
        recipient: issuance.recipient,
        feeTerms: issuance.feeTerms,
        txHash: null,
        sentAt: null,
        confirmedAt: null,
        failedAt: null,
        cancelledAt: null,
        createdAt: now,
      };
    });
    await insertPayouts(trx, payouts);
    return payouts.map((payout) => payout.id);
  },
  async resplit(trx, now, payoutId, { gross, fee, toRecipient, toOperator }) {
    await updatePayout(trx, payoutId, now, { gross, fee, to_recipient: toRecipient, to_operator: toOperator });
  },
  async cancel(trx, now, payoutId) {
    await updatePayout(trx, payoutId, now, { status: 'cancelled', cancelled_at: now, next_attempt_at: null });
  },
  latestConfirmedTxHash: latestConfirmedPayoutTxHash,
  latestConfirmedTxHashes: latestConfirmedPayoutTxHashes,
};

function asIssuancePayout(payout: Payout | undefined): IssuancePayout | undefined {
  if (payout === undefined) return undefined;
  return { id: payout.id, broadcast: BROADCAST_PAYOUT_STATUSES.includes(payout.status), gross: payout.gross };
}
