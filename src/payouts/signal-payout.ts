import type { Tx } from '../platform/database/database.js';
import type { IssuanceId } from '../platform/ids.js';
import { lockIssuance } from '../issuances/index.js';
import type { Payout } from './payout.js';
import { payoutTransition } from './payout-lifecycle.js';
import { lockUnsentPayout, updatePayout, type PayoutPatch } from './payouts.repository.js';

/** The internal payout signals of SPEC "Events": never delivered as webhooks. */
export type PayoutSignal = 'gas.wait' | 'sweep.failed';

/**
 * Applies an internal signal to the issuance's payout that has not left the
 * address: `gas.wait` parks it as waiting for network fee funds; `sweep.failed`
 * counts a failed attempt and puts it back in the queue (a failed attempt is
 * not the terminal payout.failed). Changes payout state only: no event, no
 * webhook. Undefined when there is no such payout.
 */
export async function signalPayout(trx: Tx, now: Date, issuanceId: IssuanceId, signal: PayoutSignal): Promise<Payout | undefined> {
  if ((await lockIssuance(trx, issuanceId)) === undefined) return undefined;
  const payout = await lockUnsentPayout(trx, issuanceId);
  if (payout === undefined) return undefined;
  const step = payoutTransition(payout, { type: signal === 'gas.wait' ? 'gas_wait_signal' : 'sweep_failed_signal' });
  if ('refused' in step) return undefined;
  // Sandbox payouts are never claimed by a worker, so their next attempt stays unset.
  const nextAttemptAt = payout.sandbox ? null : now;
  // Only what the signal changes: a wait for gas keeps the last error it had.
  const patch: PayoutPatch = { status: step.status, next_attempt_at: nextAttemptAt };
  if (step.attempts !== payout.attempts) patch.attempts = step.attempts;
  if (step.lastError !== null) patch.last_error = step.lastError;
  await updatePayout(trx, payout.id, now, patch);
  return { ...payout, status: step.status, attempts: step.attempts, lastError: step.lastError ?? payout.lastError, nextAttemptAt };
}
