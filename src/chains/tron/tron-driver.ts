import type { ChainAdapter } from '../chain-adapter.js';
import { EvmWatcherJob, scanStatus, type LogDialect } from '../evm/index.js';
import type { ChainFamilyDriver, FamilyDriverDeps, LiveNetworkState, RunningFamily } from '../family-driver.js';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto.js';
import type { Db } from '../../platform/database/database.js';
import type { Job } from '../../platform/jobs.js';
import type { DriverLog } from '../family-driver.js';
import { sendTronPayout, type SendTronPayoutDeps } from './payouts/send-tron-payout.js';
import { TronPayoutTrackerJob } from './payouts/tron-payout-tracker.job.js';
import { tronAccessParser, type TronAccess } from './tron-access.js';
import { tronAddressCodec } from './tron-address-codec.js';
import { createTronApi, type TronApi } from './tron-api.js';
import { tronAddress, tvmAddress } from './tron-evm-address.js';
import { tronFamilyRules } from './tron-family-rules.js';
import { allocateTronForwarder, readTronFactories, type TronFactories } from './tron-forwarders.js';
import { tronNetworkOf, type TronNetwork } from './tron-network.js';
import { jsonRpcChainId, solidBlock, transactionInfo } from './tron-node-reads.js';
import { ensureTronRelayer, tronRelayerStatus } from './tron-relayer.js';

/** Tron (issue 23): Ivory's forwarders on the TVM, a java-tron node's HTTP API, credit at solidified blocks. */
export const tronDriver: ChainFamilyDriver<TronAccess> = {
  family: 'tron',
  codec: tronAddressCodec,
  rules: tronFamilyRules,
  access: tronAccessParser,
  start: startTronChains,
};

/**
 * Every live Tron network of the catalogue: its relayer (generated and sealed
 * on first start), its adapter (allocation, crash-safe sweeps), the watcher
 * (the EVM watcher over the node's `/jsonrpc`, confirming at the solidified
 * block) and the payout tracker. Talks to no node here: the factories and the
 * node's chain id are read on first use, and retried until they answer.
 */
async function startTronChains(deps: FamilyDriverDeps): Promise<RunningFamily> {
  const adapters = new Map<number, ChainAdapter>();
  const jobs: Job[] = [];
  const live: { readonly network: TronNetwork; readonly api: TronApi }[] = [];
  for (const entry of deps.networks) {
    if (!entry.enabled || entry.chain?.family !== 'tron') continue;
    const network = tronNetworkOf(entry, entry.chain);
    const api = createTronApi(network.api);
    await ensureTronRelayer(deps.db, deps.secrets, network.chainId);
    adapters.set(network.chainId, createTronChainAdapter({ db: deps.db, secrets: deps.secrets, clock: deps.clock, log: deps.log, api, network }));
    // Checked at start, without holding the start up: a wrong node is said at once in the log;
    // the adapter checks again before its first allocation or sweep and refuses to work until it matches.
    void jsonRpcChainId(api).then(
      (chainId) => {
        if (chainId !== network.chainId) deps.log.error({ chainId: network.chainId, nodeChainId: chainId }, `the node at the Tron network ${network.name}'s api_url serves another chain; the network waits`);
      },
      (error: unknown) => deps.log.warn({ err: error, chainId: network.chainId }, `the Tron node of ${network.name} did not answer at start; its network waits for it`),
    );
    jobs.push(
      new EvmWatcherJob({ db: deps.db, clock: deps.clock, network: network.tvm, ledger: deps.transferLedger, log: deps.log, dialect: tronLogDialect(api, network) }),
      new TronPayoutTrackerJob({ db: deps.db, clock: deps.clock, api, chainId: network.chainId, pollIntervalMs: network.pollIntervalMs, ledger: deps.sweepLedger, log: deps.log }),
    );
    live.push({ network, api });
  }
  return {
    adapters,
    jobs,
    status: () =>
      Promise.all(
        live.map(async ({ network, api }): Promise<LiveNetworkState> => {
          const relayer = await tronRelayerStatus(deps.db, api, network.chainId);
          const scan = await scanStatus(deps.db, network.chainId);
          return {
            chainId: network.chainId,
            name: network.name,
            relayerAddress: relayer?.address ?? '',
            relayerBalance: relayer?.balance ?? null,
            relayerEnergy: relayer?.energy ?? null,
            headBlock: scan.headBlock,
            lastScannedBlock: scan.lastScannedBlock,
            confirmations: network.confirmations,
          };
        }),
      ),
  };
}

export interface TronChainAdapterDeps {
  readonly db: Db;
  readonly secrets: SecretBox;
  readonly clock: Clock;
  readonly log: DriverLog;
  readonly api: TronApi;
  readonly network: TronNetwork;
  /** Tests only: crash points between signing, storing and broadcasting. */
  readonly hooks?: SendTronPayoutDeps['hooks'];
}

/**
 * One live Tron network behind the `ChainAdapter` seam: addresses are TVM
 * CREATE2 predictions of per-issuance forwarders, payouts are `sweep(terms)`
 * calls signed by the relayer under the expiring-payouts rule. The node's
 * chain id and the factories are read on first use.
 */
export function createTronChainAdapter(deps: TronChainAdapterDeps): ChainAdapter {
  const { db, clock, api, network } = deps;
  const factories = onFirstUse(() => checkedFactories(api, network));
  return {
    name: `tron-${network.chainId}`,
    allocateAddress: async (request) => allocateTronForwarder({ db, clock, network, factories: await factories() }, request),
    sendPayout: async (request) => {
      await factories(); // the node's chain id is checked before anything is signed for it
      return sendTronPayout({ db, secrets: deps.secrets, clock, api, network, log: deps.log, ...(deps.hooks === undefined ? {} : { hooks: deps.hooks }) }, request);
    },
  };
}

/** Tron's `/jsonrpc` speaks TVM hex; its ledger speaks `T…`; its blocks are final once solidified. */
export function tronLogDialect(api: TronApi, network: TronNetwork): LogDialect {
  return {
    family: 'tron',
    label: 'tron watcher',
    headers: api.headers,
    confirmable: async () => (await solidBlock(api)).number - BigInt(network.confirmations),
    logForm: (address) => tvmAddress(address).toLowerCase(),
    displayAddress: tronAddress,
    txId: (hash) => hash.replace(/^0x/, '').toLowerCase(),
    // The block the transaction is in now (HTTP API), and that block's Transfer logs of it (/jsonrpc).
    async transferReceipt(rpc, txId) {
      const info = await transactionInfo(api, txId, false);
      if (info === undefined) return null;
      const blockHash = await rpc.blockHash(info.blockNumber);
      if (blockHash === null) return null;
      const tokens = network.tvm.tokens.map((token) => token.address.toLowerCase());
      const logs = await rpc.transferLogs(tokens, info.blockNumber, info.blockNumber);
      return { blockNumber: info.blockNumber, blockHash, logs: logs.filter((log) => log.txHash.replace(/^0x/, '') === txId) };
    },
  };
}

/** The factories, after checking the node serves the catalogue's chain (`eth_chainId`). */
async function checkedFactories(api: TronApi, network: TronNetwork): Promise<TronFactories> {
  const chainId = await jsonRpcChainId(api);
  if (chainId !== network.chainId) throw new Error(`the node at the Tron network ${network.name}'s api_url serves chain ${chainId}, not the catalogue's ${network.chainId}`);
  return readTronFactories(api, network);
}

/** Runs `load` once it succeeds; a failure is thrown to that caller and the next call tries again. */
function onFirstUse<Value>(load: () => Promise<Value>): () => Promise<Value> {
  let pending: Promise<Value> | undefined;
  return () => {
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
