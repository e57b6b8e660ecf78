import type { Clock } from '../../../platform/clock.js';
import type { Db } from '../../../platform/database/database.js';
import type { Job } from '../../../platform/jobs.js';
import type { EvmNetwork } from '../evm-network.js';
import type { TransferLedger } from '../../ledger-ports.js';
import { AdaptiveBlockRange } from './block-range.js';
import type { EvmRpc } from './evm-rpc.js';
import { createFailoverEvmRpc, EndpointSwitched } from './failover-rpc.js';
import { findReorgAncestor, rewindAfterReorg, type ReorgDeps } from './handle-reorg.js';
import { BlockRangeScan } from '../../ingest/index.js';
import { deleteBlockHashes, saveBlockHashes } from './block-hashes.repository.js';
import { EvmTransferSource } from './evm-transfer-source.js';
import { evmLogDialect, type LogDialect } from './log-dialect.js';
import { WatchedAddressBook } from './watched-address-book.js';

/** Where the watcher reports trouble it handles itself (a pino logger fits). */
export interface WatcherLog {
  warn(details: object, message: string): void;
}

export interface EvmWatcherOptions {
  /** Bound of every JSON-RPC call. */
  readonly rpcTimeoutMs?: number;
  /** Largest JSON-RPC answer read (10 MiB by default); a larger log answer halves the block range. */
  readonly rpcMaxResponseBytes?: number;
  /** Blocks of hashes kept for reorg detection, beyond the confirmation depth. */
  readonly reorgDepth?: number;
  /** Concurrent ledger transactions (PostgreSQL); the embedded backend runs them one at a time anyway. */
  readonly ledgerWorkers?: number;
  /** Transfers told to the ledger per transaction (a few hundred: one `recordTransfers` call each). */
  readonly ledgerBatchSize?: number;
  /** Block ranges read ahead of the commits while catching up (below the confirmation depth only). */
  readonly rangesInFlight?: number;
  /** Pause after a failed pass: doubles from `initialMs` up to `maxMs`. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** How far back each address refresh re-reads, for allocations that committed late. */
  readonly addressOverlapMs?: number;
}

export interface EvmWatcherDeps {
  readonly db: Db;
  readonly clock: Clock;
  // The watcher needs no fee wallet: that is the payouts' concern.
  readonly network: Omit<EvmNetwork, 'feeWallet'>;
  readonly ledger: TransferLedger;
  readonly log: WatcherLog;
  readonly options?: EvmWatcherOptions;
  /** Another chain's logs through its EVM JSON-RPC (Tron); EVM by default. */
  readonly dialect?: LogDialect;
}

/**
 * The chain watcher of one EVM network (issue 9, Deliver 4): the EVM transfer
 * source (`Transfer` logs by block range, matched to watched addresses) and
 * the EVM reorg check (stored block hashes) under the ingest pipeline's
 * `BlockRangeScan`, which each `run` drives for one pass. A failed pass is
 * retried from the stored cursor after a backoff; a distrusted endpoint
 * (several `rpc_urls`) hands the next pass to another at once.
 */
export class EvmWatcherJob implements Job {
  readonly name: string;
  readonly idleMs: number;
  readonly #deps: EvmWatcherDeps;
  readonly #rpc: EvmRpc;
  readonly #scan: BlockRangeScan;
  readonly #backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly #label: string;
  #failures = 0;
  #retryAt = 0;

  constructor(deps: EvmWatcherDeps) {
    const { network, options = {}, dialect = evmLogDialect } = deps;
    this.#deps = deps;
    this.#label = dialect.label;
    this.name = `${dialect.family}-watcher:${network.chainId}`;
    this.idleMs = network.pollIntervalMs;
    const rpc = createFailoverEvmRpc(network.rpcUrls ?? [network.rpcUrl], {
      timeoutMs: options.rpcTimeoutMs ?? 10_000,
      maxResponseBytes: options.rpcMaxResponseBytes ?? 10 * 1024 * 1024,
      ...(dialect.headers === undefined ? {} : { headers: dialect.headers }),
    });
    const { transferReceipt } = dialect;
    this.#rpc = transferReceipt === undefined ? rpc : { ...rpc, transferReceipt: (txHash) => transferReceipt(rpc, txHash) };
    const reorg: ReorgDeps = {
      db: deps.db,
      clock: deps.clock,
      rpc: this.#rpc,
      chainId: network.chainId,
      startBlock: network.startBlock,
      window: network.confirmations + (options.reorgDepth ?? 64),
    };
    // What the EVM reads and how (ranges sized to the provider, the addresses to match), and its
    // reorg check; the pass itself is the ingest pipeline's, the same for every block-range family.
    this.#scan = new BlockRangeScan({
      db: deps.db,
      clock: deps.clock,
      chainId: network.chainId,
      startBlock: network.startBlock,
      source: new EvmTransferSource({
        db: deps.db,
        network,
        ledger: deps.ledger,
        rpc: this.#rpc,
        range: new AdaptiveBlockRange(network.maxBlockRange),
        book: new WatchedAddressBook({ overlapMs: options.addressOverlapMs ?? 30_000, family: dialect.family, logForm: dialect.logForm }),
        dialect,
      }),
      ledger: {
        ledger: deps.ledger,
        workers: Math.max(1, options.ledgerWorkers ?? 1),
        batchSize: Math.max(1, options.ledgerBatchSize ?? 200),
        displayAddress: dialect.displayAddress,
      },
      rangesInFlight: Math.max(1, options.rangesInFlight ?? 4),
      log: deps.log,
      label: dialect.label,
      async reorg({ lastScanned, nextBlock, head }) {
        const ancestor = await findReorgAncestor(reorg, lastScanned);
        if (ancestor === null) return false;
        const rewound = await rewindAfterReorg(reorg, nextBlock, ancestor, head);
        if (rewound !== null) deps.log.warn({ chainId: network.chainId, ...stringified(rewound) }, `${dialect.label}: reorg, cursor rewound`);
        return true;
      },
      async recordRange(trx, range) {
        const hashes = new Map<bigint, string>([[range.to, range.toHash]]);
        for (const transfer of range.transfers) hashes.set(transfer.blockNumber, transfer.blockHash);
        await saveBlockHashes(trx, network.chainId, hashes);
        await deleteBlockHashes(trx, network.chainId, { below: range.to - BigInt(reorg.window) });
      },
    });
    // A failing node is asked again at most 20 polls later (between 5 and 30 s): a network polled
    // often recovers as quickly after its node heals as it noticed a payment before.
    this.#backoff = options.backoff ?? { initialMs: Math.max(250, network.pollIntervalMs), maxMs: Math.min(30_000, Math.max(5_000, 20 * network.pollIntervalMs)) };
  }

  /** Blocks scanned, transfers confirmed and ledger rows told in this pass; 0 when idle or backing off. */
  async run(): Promise<number> {
    if (performance.now() < this.#retryAt) return 0;
    try {
      const done = await this.#pass();
      this.#failures = 0;
      return done;
    } catch (error) {
      if (error instanceof EndpointSwitched) {
        // Another endpoint takes the next pass, at once: the switch is the retry.
        this.#deps.log.warn({ chainId: this.#deps.network.chainId, from: error.from, to: error.to, why: error.why }, `${this.#label}: RPC endpoint distrusted; switching`);
        return 0;
      }
      this.#failures += 1;
      const pause = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (this.#failures - 1));
      this.#retryAt = performance.now() + pause * (0.75 + Math.random() * 0.5);
      this.#deps.log.warn(
        { err: error, chainId: this.#deps.network.chainId, failures: this.#failures, retryInMs: Math.round(pause) },
        `${this.#label} pass failed; retrying from the stored cursor`,
      );
      return 0;
    }
  }

  #pass(): Promise<number> {
    return this.#scan.pass();
  }
}

function stringified(values: object): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}
