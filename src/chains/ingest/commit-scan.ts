import { inTransaction, type Db, type Tx } from '../../platform/database/database.js';
import { confirmTransfers, upsertTransfers, type WatchedTransfer } from './inbox.repository.js';
import { claimScanCommit, moveScanCursor } from './scan-cursor.repository.js';

export interface ScanCommit {
  readonly chainId: number;
  /** The cursor the read started from: the commit is refused if it moved meanwhile. */
  readonly expectedNextBlock: bigint;
  readonly nextBlock: bigint;
  readonly head: bigint;
  readonly confirmable: bigint;
  readonly transfers: readonly WatchedTransfer[];
}

/**
 * Records what a source read in ONE transaction: the cursor compare-and-set
 * (one scanner per network), the new transfers in the inbox, the ones now at
 * depth confirmed, the family's own rows (`extra`: EVM block hashes), and the
 * cursor moved past the range. Null when another process committed first
 * (the read is discarded); otherwise how many transfers became confirmed.
 */
export async function commitScan(db: Db, now: () => Date, commit: ScanCommit, extra?: (trx: Tx) => Promise<void>): Promise<number | null> {
  return inTransaction(db, async (trx) => {
    if (!(await claimScanCommit(trx, commit.chainId, commit.expectedNextBlock))) return null;
    const at = now();
    await upsertTransfers(trx, commit.transfers, at);
    const confirmed = await confirmTransfers(trx, commit.chainId, commit.confirmable, at);
    if (extra !== undefined) await extra(trx);
    await moveScanCursor(trx, commit.chainId, commit.nextBlock, commit.head, at);
    return confirmed;
  });
}
