import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Db, type Tx } from '../../platform/database/database.js';
import { commitScan } from './commit-scan.js';
import { confirmTransfers, upsertTransfers } from './inbox.repository.js';
import { readAhead } from './read-ahead.js';
import { advanceRescan, findRescan } from './rescan.repository.js';
import { ensureScanCursor } from './scan-cursor.repository.js';
import { tellLedger, type TellLedgerDeps } from './tell-ledger.js';
import type { BlockRangeSource, SourceRange } from './transfer-source.js';

export interface BlockRangeScanDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chainId: number;
  /** The first block of the network to scan (the factories' deployment block). */
  readonly startBlock: bigint;
  readonly source: BlockRangeSource;
  /** How the ledger is told: its port, batch size, workers, the family's address display form. */
  readonly ledger: Pick<TellLedgerDeps, 'ledger' | 'workers' | 'batchSize' | 'displayAddress'>;
  /** Ranges read ahead of the commits while catching up (below the confirmation depth only). */
  readonly rangesInFlight: number;
  readonly log: { warn(details: object, message: string): void };
  /** Who speaks in the log ("evm watcher"). */
  readonly label: string;
  /**
   * The family's reorg check, before reading on from the cursor: true when it
   * found one and rewound (the pass then only tells the ledger).
   */
  readonly reorg?: (scan: { readonly lastScanned: bigint; readonly nextBlock: bigint; readonly head: bigint }) => Promise<boolean>;
  /** The family's own rows, committed with a range (EVM: the block hashes its reorg check reads). */
  readonly recordRange?: (trx: Tx, range: SourceRange) => Promise<void>;
}

/**
 * One pass of the ingest pipeline over a block-range source (EVM, Tron):
 * tell the ledger what earlier passes committed, read the head, wait while
 * the node is behind the cursor, let the family check for a reorg, read the
 * next ranges (several ahead while catching up) and commit each strictly in
 * order (cursor compare-and-set, inbox, confirmations, the family's rows),
 * take one step of an operator's rescan, and tell the ledger. Every read
 * happens outside any transaction and the cursor moves only in the commit
 * that records what was read, so a failed read skips nothing. Any number of
 * processes may run it: a commit that finds the cursor moved is discarded.
 */
export class BlockRangeScan {
  /** The node's head is below the cursor (warned once per episode). */
  #behind = false;

  constructor(private readonly deps: BlockRangeScanDeps) {}

  /** Ranges committed, transfers confirmed and ledger rows told in this pass. */
  async pass(): Promise<number> {
    const { db, clock, chainId, source } = this.deps;
    // Rows a crashed or raced pass committed but did not hand over yet.
    let done = await this.#tellLedger();
    const cursor = await ensureScanCursor(db, chainId, this.deps.startBlock, clock.now());
    const { head, confirmable } = await source.head();
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
    if (await this.deps.reorg?.({ lastScanned, nextBlock: cursor.nextBlock, head })) return done + 1 + (await this.#tellLedger());

    if (cursor.nextBlock > head) {
      // Nothing new to read; confirmations still move with the head.
      const committed = await this.#commit(cursor.nextBlock, head, confirmable, null);
      if (committed === null) return done;
      return done + committed + (await this.#rescanStep(confirmable)) + (await this.#tellLedger());
    }
    done += await this.#scanRanges(cursor.nextBlock, head, confirmable);
    done += await this.#rescanStep(confirmable);
    return done + (await this.#tellLedger());
  }

  /**
   * Reads the next ranges and commits them strictly in order. Far behind the
   * head (catch-up), up to `rangesInFlight` ranges are read ahead while the
   * earlier ones are committed (`readAhead`: reads go out in block order, each
   * from where the previous one ended); near the head, past the confirmation
   * depth, one range at a time. The first range's failure is the pass's; a
   * later one's only ends the pass early, keeping what was committed.
   */
  async #scanRanges(nextBlock: bigint, head: bigint, confirmable: bigint): Promise<number> {
    const read = (from: bigint) => () => this.deps.source.read(from, head, confirmable);
    const ranges = readAhead(read(nextBlock), (previous) => (previous.to < head && previous.to < confirmable ? read(previous.to + 1n) : null), this.deps.rangesInFlight);
    let done = 0;
    let expected = nextBlock;
    try {
      for await (const range of ranges) {
        if (range.from !== expected) break;
        const committed = await this.#commit(expected, head, confirmable, range);
        if (committed === null) break; // another process scans this network
        done += committed + 1;
        expected = range.to + 1n;
      }
    } catch (error) {
      if (done === 0) throw error;
    }
    return done;
  }

  /** The range's results in one transaction; null when another process committed first. */
  #commit(expectedNextBlock: bigint, head: bigint, confirmable: bigint, range: SourceRange | null): Promise<number | null> {
    const { db, clock, chainId, recordRange } = this.deps;
    return commitScan(
      db,
      () => clock.now(),
      { chainId, expectedNextBlock, nextBlock: range === null ? expectedNextBlock : range.to + 1n, head, confirmable, transfers: range?.transfers ?? [] },
      range === null || recordRange === undefined ? undefined : (trx) => recordRange(trx, range),
    );
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
    const { db, clock, chainId, source, log, label } = this.deps;
    const rescan = await findRescan(db, chainId);
    if (rescan === undefined) return 0;
    const range = await source.read(rescan.nextBlock, rescan.toBlock, confirmable);
    if (range === null) return 0;
    const moved = await inTransaction(db, async (trx) => {
      if (!(await advanceRescan(trx, rescan, range.to + 1n, clock.now()))) return false;
      await upsertTransfers(trx, range.transfers, clock.now());
      await confirmTransfers(trx, chainId, confirmable, clock.now());
      return true;
    });
    if (moved && range.to >= rescan.toBlock) log.warn({ chainId, fromBlock: String(rescan.fromBlock), toBlock: String(rescan.toBlock) }, `${label}: rescan done`);
    return moved ? 1 : 0;
  }

  #noteBehind(head: bigint, lastScanned: bigint): void {
    if (this.#behind) return;
    this.#behind = true;
    this.deps.log.warn(
      { chainId: this.deps.chainId, head: String(head), lastScannedBlock: String(lastScanned) },
      `${this.deps.label}: the node is behind blocks already scanned; waiting for it to catch up`,
    );
  }

  #tellLedger(): Promise<number> {
    const { db, clock, chainId, ledger } = this.deps;
    return tellLedger({ db, clock, chainId, ...ledger });
  }
}
