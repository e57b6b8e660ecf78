import type { NetworkFamily } from '../catalogue/index.js';
import type { ChainAdapter, ChainAdapters } from './chain-adapter.js';
import { sandboxAdapter } from './sandbox/sandbox-adapter.js';

export type { AddressRequest, ChainAdapter, ChainAdapters, PayoutBroadcast, PayoutRequest } from './chain-adapter.js';
export type { ChainTransfer, SweepLedger, TransferLedger, WatchedAddress } from './ledger-ports.js';
export { cannotLand, nextExpiringPayoutStep, type ExpiringPayoutStep, type ExpiryClocks, type SignedAttempt } from './expiring-payout.js';
export { sandboxAddress, sandboxTxHash } from './sandbox/sandbox-adapter.js';
export { readScanLags } from './ingest/index.js';
export {
  deployContracts,
  deployTestStablecoin,
  importRelayerKey,
  recoverForwarder,
  RecoverRefused,
  startEvmChains,
  type DeployedContracts,
  type EvmChains,
  type EvmNetworkStatus,
} from './evm/index.js';

/**
 * The adapters of this deployment: the sandbox adapter serves every sandbox
 * issuance; live networks are served only by the adapters passed in (by chain
 * id), from the maps given in order: in-process ones tests hand to the
 * composition root, and the EVM networks the catalogue lists with an `rpc_url`
 * (`startEvmChains`). Without an adapter a live issuance answers
 * `network_not_ready`.
 */
export function createChainAdapters(...live: readonly ReadonlyMap<number, ChainAdapter>[]): ChainAdapters {
  return {
    adapterFor(sandbox: boolean, chainId: number, _family: NetworkFamily): ChainAdapter | undefined {
      if (sandbox) return sandboxAdapter;
      // Looked up at each call: the first map that serves the chain wins.
      for (const adapters of live) {
        const adapter = adapters.get(chainId);
        if (adapter !== undefined) return adapter;
      }
      return undefined;
    },
  };
}
