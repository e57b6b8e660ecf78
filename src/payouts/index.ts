import type { AppContext } from '../app-context.js';
import type { Job } from '../platform/jobs.js';
import { SendPayoutsJob } from './send-payouts.job.js';

/** What other modules and the composition root may use of payouts (chain watchers confirm and revert; the sandbox signals). */
export { confirmPayout } from './confirm-payout.js';
export { revertPayout } from './revert-payout.js';
export { recordFailedSweep } from './record-failed-sweep.js';
export { countWaitingGasPayouts, wakeWaitingGasPayouts } from './payouts.repository.js';
export { readPayoutQueue } from './payout-queue.repository.js';
export { signalPayout, type PayoutSignal } from './signal-payout.js';
export type { PayoutOutcome } from './apply-payout-input.js';
export { SendPayoutsJob, type SendPayoutsDeps } from './send-payouts.job.js';
export { MAX_SEND_ERRORS } from './payout-lifecycle.js';
export { payoutLedger } from './payout-ledger.js';
export { shownPayoutStatus, type Payout, type PayoutStatus, type ShownPayoutStatus } from './payout.js';

/** The module's worker: payout sending. */
export function payoutJobs(context: AppContext): Job[] {
  return [new SendPayoutsJob({ db: context.db, clock: context.clock, adapters: context.chains, log: context.log, ledger: context.ledger })];
}
