import { closeInvoiceOnChain, type LedgerDeps } from '../issuances/index.js';
import type { Tx } from '../platform/database/database.js';
import { asId, type PayoutId } from '../platform/ids.js';
import { applyPayoutInput, type PayoutOutcome } from './apply-payout-input.js';

/**
 * A chain watcher saw a payout's sweep `txHash` reach its confirmation depth
 * (SPEC "Events": payout.confirmed, "complete settlement accounting"). The
 * payout becomes `confirmed` and the issuance's `payout_tx_hash` shows the
 * hash. Accepted from any state short of confirmed except withdrawn ones
 * (cancelled, reverted): a worker may have died after broadcasting, before
 * recording it, in which case payout.sent is written first. A second call is
 * a no-op (`unchanged`).
 *
 * An invoice's sweep is its closing on chain (SPEC: funded → settled, event
 * invoice.closed), in the same transaction; a deposit, or an invoice already
 * settled, refuses that part and nothing more changes.
 */
export async function confirmPayout(
  trx: Tx,
  deps: LedgerDeps,
  input: { readonly payoutId: string; readonly txHash: string },
): Promise<PayoutOutcome> {
  const outcome = await applyPayoutInput(trx, deps, asId<PayoutId>(input.payoutId), { type: 'confirmed', txHash: input.txHash });
  if (outcome.outcome === 'recorded') await closeInvoiceOnChain(trx, deps, outcome.payout.issuanceId);
  return outcome;
}
