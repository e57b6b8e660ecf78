/** The relayer of each EVM network: its sealed key, its nonce row, its status. */
export { ensureRelayer, importRelayerKey, relayerAccount, relayerStatus, type ImportRelayerOutcome, type Relayer, type RelayerStatus } from './relayer-keys.js';
export { claimTrackerLease, clearGasNeeded, findGasNeeded, findRelayer, noteGasNeeded, lockRelayer, releaseTrackerLease, setNextNonce, type RelayerRow } from './relayer.repository.js';
export { createRpcClient, RPC_TIMEOUT_MS } from './rpc-client.js';
export type { EvmForwardersTable, EvmPayoutMembersTable, EvmPayoutTransactionsTable, EvmPayoutTransactionStatus, EvmRelayersTable, EvmTables } from './relayer.schema.js';
export { sendRelayerCall, type RelayerCall, type RelayerCallDeps, type RelayerCallOutcome } from './send-relayer-call.js';
