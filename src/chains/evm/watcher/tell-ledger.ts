import { getAddress } from 'viem';
import type { Clock } from '../../../platform/clock.js';
import { inTransaction, type Db } from '../../../platform/database/database.js';
import type { ChainTransfer, TransferLedger } from '../../ledger-ports.js';
import type { LedgerStatus } from './watcher.schema.js';
import { claimLedgerDue, hasLedgerDue, markLedgerTold, type WatchedTransfer } from './watcher.repository.js';

export interface TellLedgerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly ledger: TransferLedger;
  readonly chainId: number;
  /** Concurrent transactions (disjoint slices by issuance); 1 on the embedded backend, which runs one at a time anyway. */
  readonly workers: number;
  readonly batchSize: number;
}

/**
 * Tells the ledger what the scan committed and it has not heard yet, through
 * `recordTransfer` only: each claimed row's missing steps (observed, then
 * confirmed; or reverted) and the row's `ledger_status` in one transaction, so
 * a crash anywhere leaves the row due and the next run repeats it —
 * `recordTransfer` is idempotent by natural key. Returns how many rows it told.
 */
export async function tellLedger(deps: TellLedgerDeps): Promise<number> {
  if (!(await hasLedgerDue(deps.db, deps.chainId))) return 0;
  const counts = await Promise.all(
    Array.from({ length: deps.workers }, async (_, partition) => {
      let told = 0;
      for (;;) {
        const batch = await inTransaction(deps.db, async (trx) => {
          const due = await claimLedgerDue(trx, deps.chainId, { partition, partitions: deps.workers }, deps.batchSize);
          const now = deps.clock.now();
          const results: { transfer: WatchedTransfer; ledgerStatus: LedgerStatus | null }[] = [];
          for (const transfer of due) {
            for (const status of missingSteps(transfer)) await deps.ledger.recordTransfer(trx, now, toChainTransfer(transfer, status));
            results.push({ transfer, ledgerStatus: ledgerStatusAfter(transfer) });
          }
          await markLedgerTold(trx, results, now);
          return due.length;
        });
        told += batch;
        if (batch < deps.batchSize) return told;
      }
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}

/**
 * The `recordTransfer` calls that bring the ledger from what it was told to
 * the watcher's status. A transfer confirmed at first sight is still observed
 * first (`transfer.observed`, then `transfer.confirmed`); one the ledger never
 * heard of and that vanished needs nothing; a vanished one it knows is
 * reverted (an event only if it had been confirmed: the ledger's rule).
 */
export function missingSteps(transfer: Pick<WatchedTransfer, 'status' | 'ledgerStatus'>): LedgerStatus[] {
  const told = transfer.ledgerStatus;
  switch (transfer.status) {
    case 'observed':
      return told === null ? ['observed'] : [];
    case 'confirmed':
      if (told === null) return ['observed', 'confirmed'];
      return told === 'observed' ? ['confirmed'] : [];
    case 'dropped':
    case 'reverted':
      return told === null || told === 'reverted' ? [] : ['reverted'];
  }
}

function ledgerStatusAfter(transfer: WatchedTransfer): LedgerStatus | null {
  const steps = missingSteps(transfer);
  return steps.length === 0 ? transfer.ledgerStatus : (steps[steps.length - 1] as LedgerStatus);
}

function toChainTransfer(transfer: WatchedTransfer, status: LedgerStatus): ChainTransfer {
  return {
    issuanceId: transfer.issuanceId,
    chainId: transfer.chainId,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    fromAddress: getAddress(transfer.fromAddress),
    toAddress: getAddress(transfer.toAddress),
    amount: transfer.amount,
    status,
  };
}
