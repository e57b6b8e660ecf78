import type { ChainFamily } from './chain-network.js';
import type { ChainAdapter, ChainAdapters } from './chain-adapter.js';
import { sandboxAdapter } from './sandbox/sandbox-adapter.js';

export { addressCodec, CHAIN_FAMILIES, familyRules, isChainFamily, isFamilyServiceAddress } from './families.js';
export type { AddressCodec, PaymentRequest } from './address-codec.js';
export type { FamilyRules } from './family-rules.js';
export type { ChainAccess, ChainFamily, ChainNetwork, ChainToken, EvmAccess, SolanaAccess, TronAccess } from './chain-network.js';
export type { AccessFail, AccessParser, AccessSection } from './access-section.js';
export type { ChainFamilyDriver, DriverLog, FamilyDriverDeps, LiveNetworkState, RunningFamily } from './family-driver.js';
export { familyAccess, familyDrivers } from './drivers.js';
export type { AddressPending, AddressRequest, ChainAdapter, ChainAdapters, PayoutBroadcast, PayoutRequest } from './chain-adapter.js';
export type { ChainTransfer, SweepLedger, TransferLedger, WatchedAddress } from './ledger-ports.js';
export { cannotLand, nextExpiringPayoutStep, type ExpiringPayoutStep, type ExpiryClocks, type SignedAttempt } from './expiring-payout.js';
export { sandboxAddress, sandboxTxHash } from './sandbox/sandbox-adapter.js';
export { listRescans, readScanLags, requestRescan, type IngestTables, type Rescan } from './ingest/index.js';
export { deployContracts, deployTestStablecoin, importRelayerKey, recoverForwarder, RecoverRefused, type DeployedContracts } from './evm/index.js';
export { deployTronContracts, importTronRelayerKey, isOwnTronAddress } from './tron/index.js';
export { createRpcClient, sendRelayerCall, type RelayerCall, type RelayerCallDeps, type RelayerCallOutcome } from './evm/index.js';
export { exportDepositKey, findSolanaPaymentReference, importSolanaRelayerKey, parseSolanaKeypair } from './solana/index.js';

/** A family's live adapters by chain id (a `Map`, or a view that decides at each lookup). */
export type AdapterLookup = Pick<ReadonlyMap<number, ChainAdapter>, 'get'>;

/** Live adapters by family, each by chain id: a chain id names a network only together with its family. */
export type FamilyAdapters = { readonly [Family in ChainFamily]?: AdapterLookup };

/**
 * The adapters of this deployment: the sandbox adapter serves every sandbox
 * issuance; live networks are served only by the adapters passed in, looked
 * up by the issuance's family and chain id, from the sets given in order:
 * in-process ones tests hand to the composition root, then the running
 * family drivers'. Without an adapter a live issuance answers
 * `network_not_ready`.
 */
export function createChainAdapters(...live: readonly FamilyAdapters[]): ChainAdapters {
  return {
    adapterFor(sandbox: boolean, chainId: number, family: ChainFamily): ChainAdapter | undefined {
      if (sandbox) return sandboxAdapter;
      // Looked up at each call: the first set that serves the chain wins.
      for (const adapters of live) {
        const adapter = adapters[family]?.get(chainId);
        if (adapter !== undefined) return adapter;
      }
      return undefined;
    },
  };
}
