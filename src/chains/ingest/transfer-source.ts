import type { WatchedTransfer } from './inbox.repository.js';

/**
 * What a family's transfer source gives the ingest pipeline: transfers to
 * watched addresses, each with its natural key (network, transaction id,
 * position) and whether it is at the network's confirmation depth yet. The
 * pipeline stores them in the inbox, moves the cursor (compare-and-set) in
 * the same transaction, and tells the ledger in batches (`tellLedger`).
 * Sources read outside any transaction; how they read is theirs:
 */

/** EVM and Tron: token `Transfer` logs by block range, the whole chain on one cursor. */
export interface BlockRangeSource {
  readonly kind: 'block-range';
  /** The newest block, and the newest at confirmation depth (or finalized). */
  head(): Promise<{ readonly head: bigint; readonly confirmable: bigint }>;
  /**
   * Transfers in blocks `from`..`to` at most (the source may answer a shorter
   * range, never skip a block), with the last block it covered and its hash;
   * null when the chain no longer has block `to` (it just got shorter).
   */
  read(from: bigint, to: bigint, confirmable: bigint): Promise<SourceRange | null>;
}

export interface SourceRange {
  readonly from: bigint;
  readonly to: bigint;
  readonly toHash: string;
  readonly transfers: readonly WatchedTransfer[];
}

/**
 * Solana: signatures per watched address, newest first from the node, each
 * address on its own cursor stream (the newest signature read). Migration
 * 202611280010 planned the position as instruction_index * 65536 +
 * inner_instruction_index + 1 (`instructionPosition`); a source that credits
 * an account's balance change in a transaction (pre/post token balances, as
 * Solana's does) keys it by the account's index in the transaction instead,
 * unique per (signature, account) all the same.
 */
export interface AddressSignatureSource {
  readonly kind: 'address-signatures';
  /**
   * Transfers to `address` in transactions after the signature `after` (all
   * when null), and the cursor to store: the newest signature at or below
   * which nothing can change any more (final), or `after` unchanged. Transfers
   * above the new cursor are read again next pass: the inbox keeps them once.
   */
  read(address: string, after: string | null): Promise<{ readonly transfers: readonly WatchedTransfer[]; readonly newest: string | null }>;
  /**
   * The fate of transfers still `observed`, in order: `final` (at the network's
   * final commitment: confirm), `gone` (proven absent at a final height: it
   * never lands, un-credit what was credited), or `pending`.
   */
  fates(transfers: readonly WatchedTransfer[]): Promise<readonly ('final' | 'gone' | 'pending')[]>;
}

export type TransferSource = BlockRangeSource | AddressSignatureSource;

/** The position of a Solana (inner) instruction in the natural key; EVM and Tron use the log index as it is. */
export function instructionPosition(instructionIndex: number, innerIndex: number | null): number {
  if (!Number.isInteger(instructionIndex) || instructionIndex < 0 || instructionIndex >= 32_768) throw new RangeError(`instruction index ${instructionIndex}`);
  if (innerIndex !== null && (!Number.isInteger(innerIndex) || innerIndex < 0 || innerIndex >= 65_535)) throw new RangeError(`inner instruction index ${innerIndex}`);
  return instructionIndex * 65_536 + (innerIndex === null ? 0 : innerIndex + 1);
}
