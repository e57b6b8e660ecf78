import type { PayoutId, TransferId } from '../platform/ids.js';
import { lifecycleStateOf } from './apply-transition.js';
import type { Issuance, Transfer } from './issuance.js';
import { transition } from './issuance-lifecycle.js';
import type { PayoutAmounts } from './payout-port.js';

/**
 * One step of the batch ledger entry, done in memory: what `recordTransfer`
 * and `applyTransition` would write for an observed or confirmed transfer of
 * an ungrouped issuance, kept for writing in sets afterwards. Only the
 * effects those inputs have there (events, a payout scheduled or re-split in
 * the same batch) are covered; anything else is a bug in the caller's choice
 * of path, and throws.
 */

/** A payout scheduled in this batch; its id is known once written. */
export interface BatchPayout {
  readonly issuance: Issuance;
  split: PayoutAmounts;
  id: PayoutId | null;
}

/** An issuance's state as the batch goes: the row, and the payouts the batch scheduled for it. */
export interface BatchIssuance {
  issuance: Issuance;
  readonly payouts: BatchPayout[];
  /** The live payout the lifecycle looks at; only ever one this batch scheduled. */
  live: BatchPayout | null;
  /** Whether `applyTransition` would have written the row. */
  touched: boolean;
}

export interface EventToWrite {
  readonly type: 'transfer.observed' | 'transfer.confirmed';
  readonly issuance: Issuance;
  readonly transfer: Transfer;
  readonly duplicate: boolean;
  id: string | null;
}

export interface BatchRows {
  /** Every transfer the batch knows, by natural key, as it stands now. */
  readonly transfers: Map<string, Transfer>;
  /** Transfers a batch payout sweeps (their `payoutId` is written once the payout is). */
  readonly sweptBy: Map<TransferId, BatchPayout>;
}

export function creditInMemory(run: BatchIssuance, rows: BatchRows, key: string, step: 'observed' | 'confirmed', now: Date): EventToWrite[] {
  let transfer = rows.transfers.get(key) as Transfer;
  const state = { ...lifecycleStateOf(run.issuance, null, null), payout: run.live === null ? null : { stage: 'unsent' as const, gross: run.live.split.gross } };
  const result = transition(state, step === 'observed' ? { type: 'transfer_observed', amount: transfer.amount } : { type: 'transfer_confirmed', amount: transfer.amount });
  if ('refused' in result) throw new Error(`ledger: transfer_${step} refused (${result.refused})`);
  if (step === 'confirmed') {
    transfer = { ...transfer, status: 'confirmed', disposition: result.disposition ?? 'credited', confirmedAt: now };
    rows.transfers.set(key, transfer);
  }

  const before = run.issuance;
  const next = result.state;
  let issuance: Issuance = { ...before, received: next.received, credited: next.credited, unswept: next.unswept, status: next.status };
  if (next.status !== before.status) {
    if (next.status === 'funded') issuance = { ...issuance, fundedAt: now };
    else throw new Error(`ledger batch: ${before.status} → ${next.status} is not covered by the set-based path`);
  }
  run.issuance = issuance;
  run.touched = true;

  const events: EventToWrite[] = [];
  for (const effect of result.effects) {
    switch (effect.type) {
      case 'emit':
        if (effect.event !== 'transfer.observed' && effect.event !== 'transfer.confirmed') throw new Error(`ledger batch: ${effect.event} not covered`);
        events.push({ type: effect.event, issuance, transfer, duplicate: result.duplicate === true, id: null });
        break;
      case 'schedule_payout': {
        const payout: BatchPayout = { issuance, split: effect.split, id: null };
        run.payouts.push(payout);
        run.live = payout;
        sweep(rows, issuance, payout);
        break;
      }
      case 'resplit_payout':
        if (run.live === null) throw new Error('ledger batch: resplit_payout of a payout scheduled before the batch');
        run.live.split = effect.split;
        sweep(rows, issuance, run.live);
        break;
      case 'mark_group_paid':
        break; // ungrouped: nothing to mark (as applyEffect)
      default:
        throw new Error(`ledger batch: ${effect.type} not covered by the set-based path`);
    }
  }
  return events;
}

/** `attachUnsweptTransfers` over what the batch holds in memory; the stored rows get the same from the database. */
function sweep(rows: BatchRows, issuance: Issuance, payout: BatchPayout): void {
  for (const transfer of rows.transfers.values()) {
    if (transfer.issuanceId !== issuance.id || transfer.status !== 'confirmed' || transfer.payoutId !== null || rows.sweptBy.has(transfer.id)) continue;
    if (transfer.disposition === 'credited' || transfer.disposition === 'overpayment') rows.sweptBy.set(transfer.id, payout);
  }
}
