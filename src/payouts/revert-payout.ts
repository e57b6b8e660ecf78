import type { LedgerDeps } from '../issuances/index.js';
import type { Tx } from '../platform/database/database.js';
import { asId, type PayoutId } from '../platform/ids.js';
import { applyPayoutInput, type PayoutOutcome } from './apply-payout-input.js';

/**
 * A chain watcher saw a confirmed payout's sweep reorged away (SPEC "Events":
 * payout.reverted, "an earlier payout confirmation was reversed"). The event
 * references the payout.confirmed event in `chain_event.reference_event_id`.
 * The payout is redone (issue 9), not written off: the funds are still at the
 * forwarder on the surviving chain and the relayer rebroadcasts the same
 * signed sweep, so the payout is `sent` again and confirms again later. Only a
 * confirmed payout can be reverted; a repeat is a no-op (`unchanged`).
 */
export async function revertPayout(trx: Tx, deps: LedgerDeps, input: { readonly payoutId: string }): Promise<PayoutOutcome> {
  return applyPayoutInput(trx, deps, asId<PayoutId>(input.payoutId), { type: 'reverted' });
}
