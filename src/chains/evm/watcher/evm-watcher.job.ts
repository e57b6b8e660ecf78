import type { Clock } from '../../../platform/clock.js';
import { getAddress } from 'viem';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { Job } from '../../../platform/jobs.js';
import type { EvmNetwork } from '../evm-network.js';
import type { TransferLedger } from '../../ledger-ports.js';
import { AdaptiveBlockRange } from './block-range.js';
import type { EvmRpc } from './evm-rpc.js';
import { createFailoverEvmRpc, EndpointSwitched } from './failover-rpc.js';
import { findReorgAncestor, rewindAfterReorg, type ReorgDeps } from './handle-reorg.js';
import { advanceRescan, commitScan, confirmTransfers, ensureScanCursor, findRescan, readAhead, tellLedger, upsertTransfers, type WatchedTransfer } from '../../ingest/index.js';
import { deleteBlockHashes, saveBlockHashes } from './block-hashes.repository.js';
import { fetchRange, matchTransfers, type FetchedRange } from './scan-range.js';
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
}

/**
 * The chain watcher of one EVM network (issue 9, Deliver 4). Each `run` is one
 * pass: read the head, check the last scanned block for a reorg, fetch the
 * next range's `Transfer` logs, match them against the watched addresses,
 * then commit the range in ONE transaction (advisory lock, cursor
 * compare-and-set, transfers, confirmations, block hashes), and finally tell
 * the ledger. Every RPC call happens outside any transaction; the cursor
 * moves only in the commit that records the range, so an RPC failure skips
 * nothing: the pass is abandoned and retried after a backoff.
 *
 * Any number of processes may run it: a process whose commit finds the cursor
 * moved discards its work (another one did it).
 */
export class EvmWatcherJob implements Job {
  readonly name: string;
  readonly idleMs: number;
  readonly #deps: EvmWatcherDeps;
  readonly #rpc: EvmRpc;
  readonly #range: AdaptiveBlockRange;
  readonly #book: WatchedAddressBook;
  readonly #reorg: ReorgDeps;
  readonly #ledgerWorkers: number;
  readonly #ledgerBatchSize: number;
  readonly #rangesInFlight: number;
  readonly #backoff: { readonly initialMs: number; readonly maxMs: number };
  #failures = 0;
  #retryAt = 0;
  /** The node's head is below the cursor (warned once per episode). */
  #behind = false;

  constructor(deps: EvmWatcherDeps) {
    const { network, options = {} } = deps;
    this.#deps = deps;
    this.name = `evm-watcher:${network.chainId}`;
    this.idleMs = network.pollIntervalMs;
    this.#rpc = createFailoverEvmRpc(network.rpcUrls ?? [network.rpcUrl], {
      timeoutMs: options.rpcTimeoutMs ?? 10_000,
      maxResponseBytes: options.rpcMaxResponseBytes ?? 10 * 1024 * 1024,
    });
    this.#range = new AdaptiveBlockRange(network.maxBlockRange);
    this.#book = new WatchedAddressBook({ overlapMs: options.addressOverlapMs ?? 30_000 });
    this.#reorg = {
      db: deps.db,
      clock: deps.clock,
      rpc: this.#rpc,
      chainId: network.chainId,
      startBlock: network.startBlock,
      window: network.confirmations + (options.reorgDepth ?? 64),
    };
    this.#ledgerWorkers = Math.max(1, options.ledgerWorkers ?? 1);
    this.#ledgerBatchSize = Math.max(1, options.ledgerBatchSize ?? 200);
    this.#rangesInFlight = Math.max(1, options.rangesInFlight ?? 4);
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
        this.#deps.log.warn({ chainId: this.#deps.network.chainId, from: error.from, to: error.to, why: error.why }, 'evm watcher: RPC endpoint distrusted; switching');
        return 0;
      }
      this.#failures += 1;
      const pause = Math.min(this.#backoff.maxMs, this.#backoff.initialMs * 2 ** (this.#failures - 1));
      this.#retryAt = performance.now() + pause * (0.75 + Math.random() * 0.5);
      this.#deps.log.warn(
        { err: error, chainId: this.#deps.network.chainId, failures: this.#failures, retryInMs: Math.round(pause) },
        'evm watcher pass failed; retrying from the stored cursor',
      );
      return 0;
    }
  }

  async #pass(): Promise<number> {
    const { db, clock, network } = this.#deps;
    // Rows a crashed or raced pass committed but did not hand over yet.
    let done = await this.#tellLedger();
    const cursor = await ensureScanCursor(db, network.chainId, network.startBlock, clock.now());
    const head = await this.#rpc.headBlock();
    const lastScanned = cursor.nextBlock - 1n;
    if (head < lastScanned) {
      // A node behind blocks already scanned (lagging, restarted, a load
      // balancer's stale backend) cannot tell a reorg from its own lag: it
      // does not know those blocks or their transactions yet. Believing it
      // would revert confirmed money that never left. Wait until it reaches
      // the cursor again; a real reorg is still seen then, by its hash.
      this.#noteBehind(head, lastScanned);
      return done;
    }
    this.#behind = false;
    const confirmable = network.useFinalizedTag ? await this.#rpc.finalizedBlock() : head - BigInt(network.confirmations);

    const ancestor = await findReorgAncestor(this.#reorg, lastScanned);
    if (ancestor !== null) {
      const rewound = await rewindAfterReorg(this.#reorg, cursor.nextBlock, ancestor, head);
      if (rewound !== null) {
        this.#deps.log.warn({ chainId: network.chainId, ...stringified(rewound) }, 'evm watcher: reorg, cursor rewound');
      }
      return done + 1 + (await this.#tellLedger());
    }

    if (cursor.nextBlock > head) {
      // Nothing new to read; confirmations still move with the head.
      const committed = await this.#commit(cursor.nextBlock, head, confirmable, null, []);
      if (committed === null) return done;
      return done + committed + (await this.#rescanStep(confirmable)) + (await this.#tellLedger());
    }
    done += await this.#scanRanges(cursor.nextBlock, head, confirmable);
    done += await this.#rescanStep(confirmable);
    return done + (await this.#tellLedger());
  }

  /**
   * One range of a rescan the operator asked for (issue 22 item 5), if any:
   * blocks already scanned read again, and what they hold recorded as the
   * first read would have. A transfer already in the inbox keeps its row (its
   * natural key), so a range already credited changes nothing; a missed one
   * is told to the ledger with the rest. The rescan's own compare-and-set
   * keeps two processes from reading the same range twice.
   */
  async #rescanStep(confirmable: bigint): Promise<number> {
    const { db, clock, network, log } = this.#deps;
    const rescan = await findRescan(db, network.chainId);
    if (rescan === undefined) return 0;
    const fetched = await fetchRange(this.#rpc, network.tokens, this.#range, rescan.nextBlock, rescan.toBlock);
    if (fetched === null) return 0;
    await this.#book.refresh(db, this.#deps.ledger, network.chainId);
    const matched = matchTransfers(network.chainId, fetched.logs, this.#book, confirmable);
    const moved = await inTransaction(db, async (trx) => {
      if (!(await advanceRescan(trx, rescan, fetched.to + 1n, clock.now()))) return false;
      await upsertTransfers(trx, matched, clock.now());
      await confirmTransfers(trx, network.chainId, confirmable, clock.now());
      return true;
    });
    if (moved && fetched.to >= rescan.toBlock) {
      log.warn({ chainId: network.chainId, fromBlock: String(rescan.fromBlock), toBlock: String(rescan.toBlock) }, 'evm watcher: rescan done');
    }
    return moved ? 1 : 0;
  }

  /**
   * Reads the next ranges and commits them strictly in order. Far behind the
   * head (catch-up), up to `rangesInFlight` ranges are read ahead while the
   * earlier ones are matched and committed (`readAhead`: reads go out in block
   * order, each from where the previous one ended); near the head, past the
   * confirmation depth, one range at a time as before. Returns ranges
   * committed plus transfers confirmed. The first range's failure is the
   * pass's; a later one's only ends the pass early, keeping what was
   * committed (the next pass reads on from the cursor).
   */
  async #scanRanges(nextBlock: bigint, head: bigint, confirmable: bigint): Promise<number> {
    const { db, network } = this.#deps;
    const read = (from: bigint) => () => fetchRange(this.#rpc, network.tokens, this.#range, from, head);
    const ranges = readAhead(read(nextBlock), (previous) => (previous.to < head && previous.to < confirmable ? read(previous.to + 1n) : null), this.#rangesInFlight);
    let done = 0;
    let expected = nextBlock;
    try {
      for await (const fetched of ranges) {
        if (fetched.from !== expected) break;
        // After the logs were fetched: any address a payer could have paid is allocated by now.
        await this.#book.refresh(db, this.#deps.ledger, network.chainId);
        const matched = matchTransfers(network.chainId, fetched.logs, this.#book, confirmable);
        const committed = await this.#commit(expected, head, confirmable, fetched, matched);
        if (committed === null) break; // another process scans this network
        done += committed + 1;
        expected = fetched.to + 1n;
      }
    } catch (error) {
      if (done === 0) throw error;
    }
    return done;
  }

  /** The range's results in one transaction; null when another process committed first. */
  async #commit(
    expectedNextBlock: bigint,
    head: bigint,
    confirmable: bigint,
    fetched: FetchedRange | null,
    matched: readonly WatchedTransfer[],
  ): Promise<number | null> {
    const { db, clock, network } = this.#deps;
    return commitScan(
      db,
      () => clock.now(),
      {
        chainId: network.chainId,
        expectedNextBlock,
        nextBlock: fetched === null ? expectedNextBlock : fetched.to + 1n,
        head,
        confirmable,
        transfers: matched,
      },
      async (trx) => {
        if (fetched === null) return;
        const hashes = new Map<bigint, string>([[fetched.to, fetched.toHash]]);
        for (const transfer of matched) hashes.set(transfer.blockNumber, transfer.blockHash);
        await saveBlockHashes(trx, network.chainId, hashes);
        await deleteBlockHashes(trx, network.chainId, { below: fetched.to - BigInt(this.#reorg.window) });
      },
    );
  }

  #noteBehind(head: bigint, lastScanned: bigint): void {
    if (this.#behind) return;
    this.#behind = true;
    this.#deps.log.warn(
      { chainId: this.#deps.network.chainId, head: String(head), lastScannedBlock: String(lastScanned) },
      'evm watcher: the node is behind blocks already scanned; waiting for it to catch up',
    );
  }

  #tellLedger(): Promise<number> {
    return tellLedger({
      db: this.#deps.db,
      clock: this.#deps.clock,
      ledger: this.#deps.ledger,
      chainId: this.#deps.network.chainId,
      workers: this.#ledgerWorkers,
      batchSize: this.#ledgerBatchSize,
      displayAddress: getAddress,
    });
  }
}

function stringified(values: object): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
}
