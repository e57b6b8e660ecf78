import type { Db } from '../../../platform/database/database.js';
import type { BlockRangeSource, SourceRange } from '../../ingest/index.js';
import type { TransferLedger } from '../../ledger-ports.js';
import type { EvmNetwork } from '../evm-network.js';
import type { AdaptiveBlockRange } from './block-range.js';
import type { EvmRpc } from './evm-rpc.js';
import type { LogDialect } from './log-dialect.js';
import { fetchRange, matchTransfers } from './scan-range.js';
import type { WatchedAddressBook } from './watched-address-book.js';

/**
 * The EVM family's transfer source for the ingest pipeline (issue 21 item 2):
 * the head and its confirmable block (head − depth, or the `finalized` tag),
 * and a range's ERC-20 `Transfer` logs to watched addresses, as many blocks
 * as the provider accepts. Tron's source reads the same shape from its node.
 */
export class EvmTransferSource implements BlockRangeSource {
  readonly kind = 'block-range';
  /** Refreshes of the address book run one after another (ranges are read ahead concurrently). */
  #refreshing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      readonly db: Db;
      readonly network: Omit<EvmNetwork, 'feeWallet'>;
      readonly ledger: TransferLedger;
      readonly rpc: EvmRpc;
      readonly range: AdaptiveBlockRange;
      readonly book: WatchedAddressBook;
      readonly dialect: LogDialect;
    },
  ) {}

  async head(): Promise<{ readonly head: bigint; readonly confirmable: bigint }> {
    const { rpc, network, dialect } = this.deps;
    const head = await rpc.headBlock();
    const confirmable =
      dialect.confirmable !== undefined ? await dialect.confirmable(head) : network.useFinalizedTag ? await rpc.finalizedBlock() : head - BigInt(network.confirmations);
    return { head, confirmable };
  }

  async read(from: bigint, to: bigint, confirmable: bigint): Promise<SourceRange | null> {
    const { db, network, ledger, rpc, range, book, dialect } = this.deps;
    const fetched = await fetchRange(rpc, network.tokens, range, from, to);
    if (fetched === null) return null;
    // After the logs were fetched: any address a payer could have paid is allocated by now.
    const refreshed = this.#refreshing.then(() => book.refresh(db, ledger, network.chainId));
    this.#refreshing = refreshed.catch(() => undefined);
    await refreshed;
    return { from: fetched.from, to: fetched.to, toHash: fetched.toHash, transfers: matchTransfers(network.chainId, fetched.logs, book, confirmable, dialect.txId) };
  }
}
