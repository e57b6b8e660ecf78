import { getAddress, type Address } from 'viem';
import type { ChainNetwork } from '../chain-network.js';
import { parseDecimalAmount } from '../../money/index.js';
import type { Job } from '../../platform/jobs.js';
import type { AddressRequest, ChainAdapter, PayoutBroadcast, PayoutRequest } from '../chain-adapter.js';
import type { ChainFamilyDriver, FamilyDriverDeps, LiveNetworkState } from '../family-driver.js';
import { evmAddressCodec } from './evm-address-codec.js';
import { evmFamilyRules } from './evm-family-rules.js';
import { evmAccessParser, type EvmAccess } from './evm-access.js';
import { readFactoryFeeWallet } from './contracts/index.js';
import { createEvmChainAdapter, type EvmChainAdapter } from './evm-adapter.js';
import type { EvmNetwork, EvmToken } from './evm-network.js';
import { createRpcClient, ensureRelayer, relayerStatus } from './relayer/index.js';
import { EvmWatcherJob, scanStatus } from './watcher/index.js';

export type EvmChainsDeps = FamilyDriverDeps;

/** What the operator's admin endpoint shows of one live EVM network. */
export interface EvmNetworkStatus extends LiveNetworkState {
  readonly relayerAddress: Address;
}

/** The live EVM networks of one deployment: their adapters, their workers, their status. */
export interface EvmChains {
  /** By chain id, for `createChainAdapters`. */
  readonly adapters: ReadonlyMap<number, ChainAdapter>;
  /** Per network: the watcher and the payout tracker. */
  readonly jobs: readonly Job[];
  status(): Promise<EvmNetworkStatus[]>;
}

/** The EVM family: its catalogue access, and its networks started by `startEvmChains`. */
export const evmDriver: ChainFamilyDriver<EvmAccess> = {
  family: 'evm',
  codec: evmAddressCodec,
  rules: evmFamilyRules,
  access: evmAccessParser,
  start: startEvmChains,
};

/**
 * Builds every live EVM network of the catalogue: makes sure each has a
 * relayer (generated and sealed on first start), and wires the adapter
 * (allocation, crash-safe sends), the watcher and the payout tracker to the
 * ledger functions handed in. Talks to no node here: a node that is down at
 * start delays that network's work, never the start of Ivory.
 */
export async function startEvmChains(deps: EvmChainsDeps): Promise<EvmChains> {
  const live = deps.networks.flatMap((network) => (network.enabled && network.chain?.family === 'evm' ? [{ network, chain: network.chain }] : []));
  const adapters = new Map<number, ChainAdapter>();
  const jobs: Job[] = [];
  const relayers = new Map<number, Address>();
  for (const { network, chain } of live) {
    const base = scanTargetOf(network, chain);
    const relayer = await ensureRelayer(deps.db, deps.secrets, network.chainId);
    relayers.set(network.chainId, getAddress(relayer.address));
    const deferred = deferAdapter(base, chain.feeWallet, deps);
    adapters.set(network.chainId, deferred.adapter);
    jobs.push(new EvmWatcherJob({ db: deps.db, clock: deps.clock, network: base, ledger: deps.transferLedger, log: deps.log }), deferred.tracker);
  }
  return {
    adapters,
    jobs,
    async status() {
      return Promise.all(
        live.map(async ({ network, chain }): Promise<EvmNetworkStatus> => {
          const relayer = await relayerStatus(deps.db, { chainId: network.chainId, rpcUrls: chain.rpcUrls });
          const scan = await scanStatus(deps.db, network.chainId);
          return {
            chainId: network.chainId,
            name: network.name,
            relayerAddress: relayer?.address ?? (relayers.get(network.chainId) as Address),
            relayerBalance: relayer?.balance ?? null,
            headBlock: scan.headBlock,
            lastScannedBlock: scan.lastScannedBlock,
            confirmations: chain.confirmations,
          };
        }),
      );
    },
  };
}

/** The network as the watcher and the adapter see it, without the fee wallet (resolved later). */
function scanTargetOf(network: ChainNetwork, chain: EvmAccess): Omit<EvmNetwork, 'feeWallet'> {
  return {
    chainId: network.chainId,
    // The first endpoint only: failover between them is issue 22's work.
    rpcUrl: chain.rpcUrls[0],
    rpcUrls: chain.rpcUrls,
    confirmations: chain.confirmations,
    mainFactory: getAddress(network.mainFactory),
    invoiceFactory: getAddress(network.invoiceFactory),
    startBlock: BigInt(network.startBlock),
    tokens: network.tokens.map(
      (token): EvmToken => ({
        address: getAddress(token.address),
        symbol: token.symbol,
        decimals: token.decimals,
        // The catalogue validated that minimum_sweep fits every token's decimals.
        minimumSweep: parseDecimalAmount(network.sweep.minimumSweep, token.decimals) ?? 0n,
      }),
    ),
    pollIntervalMs: chain.pollIntervalMs,
    maxBlockRange: chain.maxBlockRange,
    useFinalizedTag: chain.useFinalizedTag,
    sweepBatchMax: chain.sweepBatchMax,
  };
}

/**
 * The adapter needs the fee wallet that new forwarders commit: the catalogue's
 * `fee_wallet`, or else the one the factory was deployed with (read once from
 * the node). Until that read succeeds, allocations and sends of the network
 * throw (temporary trouble: their workers retry), and its tracker waits.
 */
function deferAdapter(base: Omit<EvmNetwork, 'feeWallet'>, configured: string | undefined, deps: EvmChainsDeps): { adapter: ChainAdapter; tracker: Job } {
  let pending: Promise<EvmChainAdapter> | undefined;
  const resolve = (): Promise<EvmChainAdapter> => {
    pending ??= (async () => {
      const feeWallet = configured !== undefined ? getAddress(configured) : await readFactoryFeeWallet(createRpcClient(base.rpcUrls ?? [base.rpcUrl]), base.invoiceFactory);
      return createEvmChainAdapter({ db: deps.db, secrets: deps.secrets, clock: deps.clock, log: deps.log, ledger: deps.sweepLedger, network: { ...base, feeWallet } });
    })().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
  const adapter: ChainAdapter = {
    name: `evm-${base.chainId}`,
    allocateAddress: async (request: AddressRequest) => (await resolve()).allocateAddress(request),
    sendPayout: async (request: PayoutRequest): Promise<PayoutBroadcast> => (await resolve()).sendPayout(request),
    sendPayouts: async (requests: readonly PayoutRequest[]): Promise<PromiseSettledResult<PayoutBroadcast>[]> => (await resolve()).sendPayouts(requests),
  };
  const tracker: Job = {
    name: `evm-payout-tracker-${base.chainId}`,
    idleMs: Math.max(base.pollIntervalMs, 500),
    async run() {
      let ready: EvmChainAdapter;
      try {
        ready = await resolve();
      } catch (error) {
        deps.log.warn({ err: error, chainId: base.chainId }, 'fee wallet of the factory not readable yet; payouts of this network wait');
        return 0;
      }
      return ready.payoutTracker.run();
    },
  };
  return { adapter, tracker };
}
