/** Crash-safe sweeps of an EVM network's forwarders: send, track, bump, follow reorgs. */
export { sendEvmPayouts } from './send-evm-payout-batch.js';
export { sendEvmPayout, NothingToSweepError, type EvmLog, type SendEvmPayoutDeps } from './send-evm-payout.js';
export { EvmPayoutTracker, DEFAULT_TRACKER_TUNING, type PayoutTrackerDeps, type PayoutTrackerTuning } from './evm-payout-tracker.job.js';
export { bumpedFees, type Fees } from './gas-pricing.js';
export type { SigningHooks } from './sign-payout-transaction.js';
export { listPayoutTransactions, type PayoutTransaction } from './payout-transactions.repository.js';
