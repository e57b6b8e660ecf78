import type { NetworkFamily } from '../catalogue/index.js';
import type { ChainAdapter, ChainAdapters } from './chain-adapter.js';
import { sandboxAdapter } from './sandbox/sandbox-adapter.js';

export type { AddressRequest, ChainAdapter, ChainAdapters, PayoutBroadcast, PayoutRequest } from './chain-adapter.js';
export { sandboxAddress, sandboxTxHash } from './sandbox/sandbox-adapter.js';
export {
  deployContracts,
  deployTestStablecoin,
  importRelayerKey,
  startEvmChains,
  type ChainPayoutLedger,
  type ChainTransfer,
  type DeployedContracts,
  type EvmChains,
  type EvmNetworkStatus,
  type TransferLedger,
  type WatchedAddress,
} from './evm/index.js';

/**
 * The adapters of this deployment: the sandbox adapter serves every sandbox
 * issuance; live networks are served only by the adapters passed in (by chain
 * id): the EVM networks the catalogue lists with an `rpc_url` (`startEvmChains`),
 * or in-process ones tests hand to the composition root. Without an adapter a
 * live issuance answers `network_not_ready`.
 */
export function createChainAdapters(live: ReadonlyMap<number, ChainAdapter> = new Map()): ChainAdapters {
  return {
    adapterFor(sandbox: boolean, chainId: number, _family: NetworkFamily): ChainAdapter | undefined {
      return sandbox ? sandboxAdapter : live.get(chainId);
    },
  };
}
