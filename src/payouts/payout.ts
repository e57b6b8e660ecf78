import type { PayoutId } from '../platform/ids.js';
import type { FeeTerms } from '../catalogue/index.js';
import type { IssuanceEntry } from '../issuances/index.js';
import type { PayoutStatus } from '../platform/database/schema.js';

export type { PayoutStatus };

/** One sweep of a payment address: a row of the payout queue. */
export interface Payout extends IssuanceEntry {
  readonly id: PayoutId;
  readonly tokenDecimals: number;
  readonly status: PayoutStatus;
  readonly attempts: number;
  readonly nextAttemptAt: Date | null;
  readonly lastError: string | null;
  readonly gross: bigint;
  readonly fee: bigint;
  readonly toRecipient: bigint;
  readonly toOperator: bigint;
  readonly recipient: string | null;
  readonly feeTerms: FeeTerms;
  readonly txHash: string | null;
  readonly sentAt: Date | null;
  readonly confirmedAt: Date | null;
  readonly failedAt: Date | null;
  readonly cancelledAt: Date | null;
  readonly createdAt: Date;
}

/** Payout states in which nothing has left the address yet: the payout can still change or be cancelled. */
export const UNSENT_PAYOUT_STATUSES: readonly PayoutStatus[] = ['scheduled', 'waiting_gas', 'failed'];
/** Payout states in which the sweep was broadcast or confirmed. */
export const BROADCAST_PAYOUT_STATUSES: readonly PayoutStatus[] = ['sending', 'sent', 'confirmed'];

/** What the payment history shows for a payout: its queue status, or `simulated` (below). */
export type ShownPayoutStatus = PayoutStatus | 'simulated';

/**
 * A sandbox payout never leaves its address: no worker claims it, and sandbox
 * money does not exist (LEDGER "Sandbox"). Its queue status would read as a
 * payout stuck before sending, so the payment history shows `simulated`
 * instead while it stands; a reversal that withdrew it still shows
 * `cancelled`. The queue status itself is kept, and the internal signals that
 * change it (gas.wait, sweep.failed) report it in the simulate answer.
 */
export function shownPayoutStatus(status: PayoutStatus, sandbox: boolean): ShownPayoutStatus {
  return sandbox && UNSENT_PAYOUT_STATUSES.includes(status) ? 'simulated' : status;
}
