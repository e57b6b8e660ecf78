import type { EvmToken } from '../evm-network.js';
import { isRangeLimitError, type EvmRpc, type TransferLog } from './evm-rpc.js';
import type { AdaptiveBlockRange } from './block-range.js';
import type { WatchedAddressBook } from './watched-address-book.js';
import type { WatchedTransfer } from '../../ingest/index.js';

/** Above this many logs in one answer the next range is halved; below `QUIET_LOGS` it doubles. */
const CROWDED_LOGS = 5_000;
const QUIET_LOGS = 500;

export interface FetchedRange {
  readonly from: bigint;
  readonly to: bigint;
  /** Hash of block `to`, read before its logs: a reorg in between is seen next pass (a rescan, never a miss). */
  readonly toHash: string;
  readonly logs: readonly TransferLog[];
}

/**
 * `Transfer` logs of the catalogue's tokens from `from` on, as many blocks as
 * the provider accepts: a refused range (a range limit, or an answer larger
 * than the client reads) is halved and asked again, down to one block (then
 * the error is the caller's, to retry with backoff). Any other failure is the
 * caller's too, and a width that fails that way twice in a row is halved. Returns
 * null when the chain has no block `to` any more (it just got shorter: reorg).
 */
export async function fetchRange(
  rpc: EvmRpc,
  tokens: readonly EvmToken[],
  range: AdaptiveBlockRange,
  from: bigint,
  head: bigint,
): Promise<FetchedRange | null> {
  const addresses = tokens.map((token) => token.address.toLowerCase());
  for (;;) {
    const last = from + BigInt(range.size) - 1n;
    const to = last < head ? last : head;
    const toHash = await rpc.blockHash(to);
    if (toHash === null) return null;
    try {
      const logs = await rpc.transferLogs(addresses, from, to);
      range.settle(logs.length, CROWDED_LOGS, QUIET_LOGS);
      return { from, to, toHash, logs };
    } catch (error) {
      if (isRangeLimitError(error)) {
        if (range.refused()) continue;
      } else {
        range.failed(); // the pass fails; a width that keeps failing is narrowed for the next one
      }
      throw error;
    }
  }
}

/**
 * The logs whose recipient is a watched address. A transfer of the
 * issuance's own token is credited; one of another catalogue token is kept
 * with `credited: false` (recorded and visible, never credited).
 */
export function matchTransfers(
  chainId: number,
  logs: readonly TransferLog[],
  book: WatchedAddressBook,
  confirmableBlock: bigint,
  txId: (hash: string) => string = (hash) => hash,
): WatchedTransfer[] {
  const matched: WatchedTransfer[] = [];
  for (const log of logs) {
    const watched = book.lookup(log.to);
    if (watched === undefined) continue;
    matched.push({
      chainId,
      txHash: txId(log.txHash),
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      token: log.token,
      fromAddress: log.from,
      toAddress: log.to,
      amount: log.amount,
      issuanceId: watched.issuanceId,
      status: log.blockNumber <= confirmableBlock ? 'confirmed' : 'observed',
      credited: watched.token === log.token,
      ledgerStatus: null,
    });
  }
  return matched;
}
