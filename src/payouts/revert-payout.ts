import type { Tx } from '../platform/database/database.js';
import { applyPayoutInput, type PayoutOutcome } from './apply-payout-input.js';

/**
 * A chain watcher saw a confirmed payout's sweep reorged away (SPEC "Events":
 * payout.reverted, "an earlier payout confirmation was reversed"). The payout
 * becomes `reverted`, its event references the payout.confirmed event in
 * `chain_event.reference_event_id`, and the issuance goes to `reconciling`
 * (LEDGER "Reversals"): Ivory does not re-send on its own, an operator
 * resolves it. Only a confirmed payout can be reverted; a second call is a
 * no-op (`unchanged`).
 */
export async function revertPayout(trx: Tx, deps: { readonly now: Date }, input: { readonly payoutId: string }): Promise<PayoutOutcome> {
  return applyPayoutInput(trx, deps.now, input.payoutId, { type: 'reverted' });
}
