import type { Tx } from '../platform/database/database.js';
import { lockIssuance } from '../issuances/index.js';
import type { Payout } from './payout.js';
import { lockUnsentPayout, updatePayout } from './payouts.repository.js';

/** The internal payout signals of SPEC "Events": never delivered as webhooks. */
export type PayoutSignal = 'gas.wait' | 'sweep.failed';

/**
 * Applies an internal signal to the issuance's payout that has not left the
 * address: `gas.wait` parks it as waiting for network fee funds; `sweep.failed`
 * counts a failed attempt and puts it back in the queue (a failed attempt is
 * not the terminal payout.failed). Changes payout state only: no event, no
 * webhook. Undefined when there is no such payout.
 */
export async function signalPayout(trx: Tx, now: Date, issuanceId: string, signal: PayoutSignal): Promise<Payout | undefined> {
  if ((await lockIssuance(trx, issuanceId)) === undefined) return undefined;
  const payout = await lockUnsentPayout(trx, issuanceId);
  if (payout === undefined || payout.status === 'failed') return undefined;
  // Sandbox payouts are never claimed by a worker, so their next attempt stays unset.
  const nextAttemptAt = payout.sandbox ? null : now;
  if (signal === 'gas.wait') {
    await updatePayout(trx, payout.id, now, { status: 'waiting_gas', next_attempt_at: nextAttemptAt });
    return { ...payout, status: 'waiting_gas', nextAttemptAt };
  }
  const attempts = payout.attempts + 1;
  const lastError = 'sweep attempt failed';
  await updatePayout(trx, payout.id, now, { status: 'scheduled', attempts, last_error: lastError, next_attempt_at: nextAttemptAt });
  return { ...payout, status: 'scheduled', attempts, lastError, nextAttemptAt };
}
