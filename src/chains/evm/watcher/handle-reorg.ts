import type { Clock } from '../../../platform/clock.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { EvmRpc, TransferReceipt } from './evm-rpc.js';
import { claimScanCommit, listTransfersAbove, markVanished, moveScanCursor, moveTransfer, type WatchedTransfer } from '../../ingest/index.js';
import { deleteBlockHashes, findBlockHash, listBlockHashes } from './block-hashes.repository.js';

export interface ReorgDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly rpc: EvmRpc;
  readonly chainId: number;
  readonly startBlock: bigint;
  /** How deep a reorg the stored hashes cover (confirmations + the network's worst reorg). */
  readonly window: number;
}

/**
 * The block to rewind to when the last scanned block is no longer in the
 * chain, or null when it still is. Checking that one block is enough: a block
 * hash commits to its parent's, so if the last scanned block stands, every
 * earlier one (pending transfers' blocks included) stands too.
 *
 * The ancestor is the newest stored block whose hash the chain still has; when
 * none of them is (hashes are kept only for range ends and transfer blocks),
 * the conservative answer is the bottom of the window: rescanning is idempotent.
 */
export async function findReorgAncestor(deps: ReorgDeps, lastScanned: bigint): Promise<bigint | null> {
  if (lastScanned < deps.startBlock) return null;
  const stored = await findBlockHash(deps.db, deps.chainId, lastScanned);
  if (stored === undefined) return null;
  const current = await deps.rpc.blockHash(lastScanned);
  // Only another hash at that height is evidence of a reorg. A node that has
  // no block there although its head is past it contradicts itself (a stale
  // backend behind a load balancer): the pass is abandoned and retried.
  if (current === null) throw new Error(`the node has no block ${lastScanned} below its head`);
  if (current === stored) return null;
  // Another endpoint that still has the stored block outvotes this one: no rewind on its word.
  await deps.rpc.confirmReorg?.(lastScanned, stored);
  for (const { blockNumber, blockHash } of await listBlockHashes(deps.db, deps.chainId, lastScanned - 1n)) {
    if (blockNumber < lastScanned - BigInt(deps.window)) break;
    if ((await deps.rpc.blockHash(blockNumber)) === blockHash) return blockNumber;
  }
  const floor = lastScanned - BigInt(deps.window);
  return floor < deps.startBlock - 1n ? deps.startBlock - 1n : floor;
}

export interface Rewound {
  readonly ancestor: bigint;
  readonly moved: number;
  readonly vanished: number;
}

/**
 * Rewinds the cursor to just after `ancestor` and settles every transfer
 * recorded above it. The node is asked (outside any transaction) whether each
 * transaction is still mined: one that moved to another block keeps its
 * natural key (tx hash, log index) and its status, and takes the new block;
 * one that is gone is dropped (observed) or reverted (confirmed), which the
 * ledger then hears as `recordTransfer` status `reverted`.
 *
 * Limit: a transaction that returns to the chain only after it was dropped
 * (re-mined from the mempool later) finds its key reverted in the ledger,
 * which does not re-open a reverted key; the rescan leaves it dropped.
 * Returns null when another process moved the cursor first.
 */
export async function rewindAfterReorg(deps: ReorgDeps, expectedNextBlock: bigint, ancestor: bigint, head: bigint): Promise<Rewound | null> {
  const candidates = await listTransfersAbove(deps.db, deps.chainId, ancestor);
  const receipts = new Map<string, TransferReceipt | null>();
  const moves: { transfer: WatchedTransfer; block: { number: bigint; hash: string } }[] = [];
  const vanished: WatchedTransfer[] = [];
  for (const transfer of candidates) {
    if (!receipts.has(transfer.txHash)) receipts.set(transfer.txHash, await deps.rpc.transferReceipt(transfer.txHash));
    const receipt = receipts.get(transfer.txHash) ?? null;
    const same = receipt?.logs.find(
      (log) =>
        log.logIndex === transfer.logIndex &&
        log.token === transfer.token &&
        log.from === transfer.fromAddress &&
        log.to === transfer.toAddress &&
        log.amount === transfer.amount,
    );
    if (receipt !== null && same !== undefined) moves.push({ transfer, block: { number: receipt.blockNumber, hash: receipt.blockHash } });
    else vanished.push(transfer);
  }
  return inTransaction(deps.db, async (trx) => {
    if (!(await claimScanCommit(trx, deps.chainId, expectedNextBlock))) return null;
    const now = deps.clock.now();
    await moveScanCursor(trx, deps.chainId, ancestor + 1n, head, now);
    await deleteBlockHashes(trx, deps.chainId, { above: ancestor });
    for (const { transfer, block } of moves) await moveTransfer(trx, transfer, block, now);
    for (const transfer of vanished) await markVanished(trx, transfer, now);
    return { ancestor, moved: moves.length, vanished: vanished.length };
  });
}
