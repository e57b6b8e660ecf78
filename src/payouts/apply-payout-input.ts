import { appendEvent } from '../events/index.js';
import type { PayoutId } from '../platform/ids.js';
import type { Tx } from '../platform/database/database.js';
import { findGroupById, listPayoutTransferIds, lockIssuance, type Issuance, type LedgerDeps } from '../issuances/index.js';
import type { Payout } from './payout.js';
import { payoutEventData, PAYOUT_TRANSFER_IDS_CAP } from './payout-event-data.js';
import { findPayoutById, findPayoutConfirmedEventId, lockPayout, updatePayout, type PayoutPatch } from './payouts.repository.js';
import { payoutTransition, type PayoutInput, type PayoutRefusal, type PayoutStep } from './payout-lifecycle.js';

export type PayoutOutcome =
  | { readonly outcome: 'recorded'; readonly payout: Payout; readonly eventIds: readonly string[] }
  /**
   * Nothing changed: a repeat (`already_confirmed` …), an answer that no longer
   * applies, or (`lease_lost`) a send outcome from a worker whose claim another
   * worker has since taken over.
   */
  | { readonly outcome: 'unchanged'; readonly payout: Payout; readonly reason: PayoutRefusal['refused'] | 'lease_lost' }
  /** No such live payout (sandbox payouts never move, so nothing may confirm or revert them). */
  | { readonly outcome: 'unknown' };

/**
 * Runs one payout input through `payoutTransition` and persists the answer:
 * the payout row and the payout events with their settlement accounting (SPEC
 * "Events" rule 5), all in the caller's transaction. The issuance is read for
 * the events, never changed here: a reverted sweep is redone (`revertPayout`),
 * so it does not make the issuance `reconciling` (only a reverted incoming
 * transfer does, through `recordTransfer`). Locks the issuance, then the
 * payout: the ledger's order (`recordTransfer`), so the two never deadlock.
 *
 * `lease`: the send worker's claim (the lease's end it wrote). Outcomes other
 * than a broadcast are recorded only while the row still holds that claim.
 */
export async function applyPayoutInput(trx: Tx, deps: LedgerDeps, payoutId: PayoutId, input: PayoutInput, lease?: Date): Promise<PayoutOutcome> {
  const unlocked = await findPayoutById(trx, payoutId);
  if (unlocked === undefined || unlocked.sandbox) return { outcome: 'unknown' };
  const issuance = await lockIssuance(trx, unlocked.issuanceId);
  const payout = await lockPayout(trx, payoutId);
  if (issuance === undefined || payout === undefined) return { outcome: 'unknown' };

  if (lease !== undefined && input.type !== 'broadcast' && !holdsLease(payout, lease)) {
    return { outcome: 'unchanged', payout, reason: 'lease_lost' };
  }
  const step = payoutTransition(payout, input);
  if ('refused' in step) return { outcome: 'unchanged', payout, reason: step.refused };

  const updated = await persistStep(trx, deps.now, payout, step);
  const eventIds = await emitEvents(trx, deps, issuance, updated, step);
  return { outcome: 'recorded', payout: updated, eventIds };
}

function holdsLease(payout: Payout, lease: Date): boolean {
  return payout.status === 'sending' && payout.nextAttemptAt !== null && payout.nextAttemptAt.getTime() === lease.getTime();
}

async function persistStep(trx: Tx, now: Date, payout: Payout, step: PayoutStep): Promise<Payout> {
  const nextAttemptAt = step.retryInMs === null ? null : new Date(now.getTime() + step.retryInMs);
  const patch: PayoutPatch = {
    status: step.status,
    attempts: step.attempts,
    tx_hash: step.txHash,
    next_attempt_at: nextAttemptAt,
    last_error: step.lastError,
  };
  let updated: Payout = { ...payout, status: step.status, attempts: step.attempts, txHash: step.txHash, nextAttemptAt, lastError: step.lastError };
  // A payout confirmed without its send recorded was sent now, as far as Ivory knows.
  if ((step.stamp === 'sent' || step.stamp === 'confirmed') && payout.sentAt === null) {
    patch.sent_at = now;
    updated = { ...updated, sentAt: now };
  }
  if (step.stamp === 'confirmed') {
    patch.confirmed_at = now;
    updated = { ...updated, confirmedAt: now };
  }
  if (step.stamp === 'failed') {
    patch.failed_at = now;
    updated = { ...updated, failedAt: now };
  }
  await updatePayout(trx, payout.id, now, patch);
  return updated;
}

async function emitEvents(trx: Tx, deps: LedgerDeps, issuance: Issuance, payout: Payout, step: PayoutStep): Promise<string[]> {
  if (step.events.length === 0) return [];
  const group = issuance.groupId === null ? null : ((await findGroupById(trx, issuance.groupId)) ?? null);
  // One id past the cap tells payoutEventData that the list was truncated.
  const transferIds = await listPayoutTransferIds(trx, payout.id, PAYOUT_TRANSFER_IDS_CAP + 1);
  const eventIds: string[] = [];
  for (const type of step.events) {
    let data = payoutEventData(issuance, group, payout, transferIds, true);
    if (type === 'payout.reverted') {
      data = { ...data, chain_event: { reference_event_id: await findPayoutConfirmedEventId(trx, payout.id) } };
    }
    const envelope = await appendEvent(trx, { now: deps.now, subscribers: deps.ledger.eventSubscribers }, { shopId: issuance.shopId, type, issuanceId: issuance.id, data });
    if (type === 'payout.confirmed') await updatePayout(trx, payout.id, deps.now, { confirmed_event_id: envelope.id });
    eventIds.push(envelope.id);
  }
  return eventIds;
}
