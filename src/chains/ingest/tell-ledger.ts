import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Db } from '../../platform/database/database.js';
import type { ChainTransfer, TransferLedger } from '../ledger-ports.js';
import type { LedgerStatus } from './ingest.schema.js';
import { claimLedgerDue, hasLedgerDue, markLedgerTold, type WatchedTransfer } from './inbox.repository.js';

export interface TellLedgerDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly ledger: TransferLedger;
  readonly chainId: number;
  /** Concurrent transactions (disjoint slices by issuance); 1 on the embedded backend, which runs one at a time anyway. */
  readonly workers: number;
  readonly batchSize: number;
  /** The family's display form of an address, as the ledger and its events show it (EVM: checksummed). */
  readonly displayAddress: (address: string) => string;
}

/**
 * Tells the ledger what the scan committed and it has not heard yet: each
 * claimed row's missing steps (observed, then confirmed; or reverted), a
 * batch of rows in ONE `recordTransfers` call, and the rows' `ledger_status`
 * in the same transaction. A crash anywhere leaves the whole batch due and
 * the next run repeats it; the ledger is idempotent by natural key, so
 * nothing is half-credited or credited twice. Returns how many rows it told.
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
          const steps = due.flatMap((transfer) => missingSteps(transfer).map((status) => toChainTransfer(transfer, status, deps.displayAddress)));
          if (steps.length > 0) await deps.ledger.recordTransfers(trx, now, steps);
          await markLedgerTold(
            trx,
            due.map((transfer) => ({ transfer, ledgerStatus: ledgerStatusAfter(transfer) })),
            now,
          );
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
 * The ledger steps that bring it from what it was told to the inbox's
 * status. A transfer confirmed at first sight is still observed first
 * (`transfer.observed`, then `transfer.confirmed`: decision 0027); one the
 * ledger never heard of and that vanished needs nothing; a vanished one it
 * knows is reverted (an event only if it had been confirmed: the ledger's rule).
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

function toChainTransfer(transfer: WatchedTransfer, status: LedgerStatus, displayAddress: (address: string) => string): ChainTransfer {
  return {
    issuanceId: transfer.issuanceId,
    chainId: transfer.chainId,
    txHash: transfer.txHash,
    logIndex: transfer.logIndex,
    fromAddress: displayAddress(transfer.fromAddress),
    toAddress: displayAddress(transfer.toAddress),
    amount: transfer.amount,
    status,
  };
}
