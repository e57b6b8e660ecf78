/**
 * Live EVM networks (issue 9): forwarder contracts, CREATE2 addresses, the
 * relayer and its crash-safe payouts, the chain watcher, behind the family
 * driver `evmDriver`; the CLI deploys contracts and imports relayer keys.
 */
export { evmDriver, startEvmChains, type EvmChains, type EvmChainsDeps, type EvmNetworkStatus } from './evm-chains.js';
export type { EvmAccess } from './evm-access.js';
export { deployContracts, deployTestStablecoin, deployTestStablecoin3009, type DeployedContracts } from './contracts/index.js';
export { createRpcClient, importRelayerKey } from './relayer/index.js';
export { recoverForwarder, RecoverRefused, type RecoverOutcome, type RecoverRequest } from './recover-forwarder.js';

// What the Tron family reuses (the same contracts on the TVM, and the logs of its /jsonrpc).
export { allocateForwarder, findForwarder, isForwarderAddress, type Forwarder, type ForwarderNetwork, type PredictForwarder } from './forwarders/index.js';
export {
  depositForwarderFactoryAbi,
  forwarderCreationCode,
  forwarderSalt,
  invoiceForwarderFactoryAbi,
  type ForwarderTerms,
} from './contracts/index.js';
export type { EvmNetwork, EvmToken } from './evm-network.js';
export { EvmWatcherJob, type EvmRpc, type EvmWatcherOptions, type LogDialect, type TransferReceipt } from './watcher/index.js';
export { scanStatus } from './watcher/index.js';
export { sendRelayerCall, type RelayerCall, type RelayerCallDeps, type RelayerCallOutcome } from './relayer/index.js';
