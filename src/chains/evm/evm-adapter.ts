import type { PublicClient } from 'viem';
import type { AddressRequest, ChainAdapter, PayoutBroadcast, PayoutRequest } from '../chain-adapter.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db } from '../../platform/database/database.js';
import type { EvmNetwork } from './evm-network.js';
import { allocateForwarder } from './forwarders/index.js';
import type { SweepLedger } from '../ledger-ports.js';
import { EvmPayoutTracker, sendEvmPayout, sendEvmPayouts, type EvmLog, type PayoutTrackerTuning, type SigningHooks } from './payouts/index.js';
import { createRpcClient } from './relayer/index.js';

export interface EvmChainAdapterDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly network: EvmNetwork;
  readonly log: EvmLog;
  /** What the payout tracker tells the ledger (handed in by the composition root). */
  readonly ledger: SweepLedger;
  /** Defaults to a client of the network's endpoints whose every call is bounded by a timeout. */
  readonly client?: PublicClient;
  readonly tuning?: Partial<PayoutTrackerTuning>;
  /** Tests only: crash points between signing, storing and broadcasting. */
  readonly hooks?: SigningHooks;
}

/** The EVM adapter: a ChainAdapter that also owns its network's payout tracker job. */
export interface EvmChainAdapter extends ChainAdapter {
  sendPayout(request: PayoutRequest): Promise<PayoutBroadcast>;
  sendPayouts(requests: readonly PayoutRequest[]): Promise<PromiseSettledResult<PayoutBroadcast>[]>;
  /** The job that confirms, fails, bumps and re-sends this network's sweeps; run it with the other workers. */
  readonly payoutTracker: EvmPayoutTracker;
}

/**
 * One live EVM network behind the `ChainAdapter` seam (ARCHITECTURE "Chains"):
 * addresses are CREATE2 predictions of per-issuance forwarders; payouts are
 * `sweep(terms)` calls sent by the network's relayer (`sweepBatch(terms[])`
 * for several due together), signed and stored before they are broadcast. The adapter keeps nothing in memory between calls, so
 * any number of processes may run it on one database.
 */
export function createEvmChainAdapter(deps: EvmChainAdapterDeps): EvmChainAdapter {
  const client = deps.client ?? createRpcClient(deps.network.rpcUrls ?? [deps.network.rpcUrl]);
  const payoutTracker = new EvmPayoutTracker({ ...deps, client });
  return {
    name: `evm-${deps.network.chainId}`,
    payoutTracker,
    async allocateAddress(request: AddressRequest): Promise<string> {
      if (request.chainId !== deps.network.chainId || request.family !== 'evm') {
        throw new Error(`issuance ${request.issuanceId} (${request.family} ${request.chainId}) asked the adapter of EVM chain ${deps.network.chainId}`);
      }
      return allocateForwarder({ db: deps.db, clock: deps.clock, network: deps.network }, request);
    },
    async sendPayout(request: PayoutRequest): Promise<PayoutBroadcast> {
      return sendEvmPayout({ ...deps, client }, request);
    },
    async sendPayouts(requests: readonly PayoutRequest[]): Promise<PromiseSettledResult<PayoutBroadcast>[]> {
      return sendEvmPayouts({ ...deps, client }, requests);
    },
  };
}
