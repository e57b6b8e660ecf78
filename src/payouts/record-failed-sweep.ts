import type { LedgerDeps } from '../issuances/index.js';
import type { Tx } from '../platform/database/database.js';
import { asId, type PayoutId } from '../platform/ids.js';
import { applyPayoutInput, type PayoutOutcome } from './apply-payout-input.js';

/**
 * The internal `sweep.failed` signal from a chain: the broadcast sweep
 * `txHash` reverted on chain, or its nonce was taken by another transaction.
 * The payout goes back to the send queue (a new attempt may sign a new
 * transaction) and the attempt is counted; the twentieth is payout.failed.
 * No event otherwise (SPEC "Events": sweep.failed is never delivered). A
 * report about a hash the payout has moved on from changes nothing.
 */
export async function recordFailedSweep(trx: Tx, deps: LedgerDeps, input: { readonly payoutId: string; readonly txHash: string }): Promise<PayoutOutcome> {
  return applyPayoutInput(trx, deps, asId<PayoutId>(input.payoutId), { type: 'sweep_reverted', txHash: input.txHash });
}
