/**
 * The EVM chain watcher (issue 9, Deliver 4): one job per live network, the
 * scan status for the operator's admin endpoint, and the watcher's table types.
 */
export { EvmWatcherJob, type EvmWatcherDeps, type EvmWatcherOptions, type WatcherLog } from './evm-watcher.job.js';
export type { LogDialect } from './log-dialect.js';
export { scanStatus, listIssuanceChainTransfers, type WatchedTransfer } from '../../ingest/index.js';
export type { EvmRpc, TransferReceipt } from './evm-rpc.js';
