import type { Clock } from '../../platform/clock.js';
import { inTransaction, type Db } from '../../platform/database/database.js';
import { findAddressCursor, moveAddressCursor } from './address-cursor.repository.js';
import { confirmTransfer, listObservedTransfers, markVanished, upsertTransfers } from './inbox.repository.js';
import { tellLedger, type TellLedgerDeps } from './tell-ledger.js';
import type { AddressSignatureSource } from './transfer-source.js';

export interface AddressSignatureScanDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly chainId: number;
  readonly source: AddressSignatureSource;
  readonly ledger: Pick<TellLedgerDeps, 'ledger' | 'workers' | 'batchSize' | 'displayAddress'>;
}

/**
 * One pass of the ingest pipeline over a per-address source (Solana): for
 * each watched address, read what came after its cursor and commit the
 * transfers with the cursor's compare-and-set in one transaction; then ask
 * the source the fate of every transfer still observed (final: confirmed;
 * proven gone: dropped or reverted); then tell the ledger. Reads happen
 * outside any transaction; a commit that finds the cursor moved is discarded.
 * Returns how much it did (cursors moved, fates settled, rows told).
 */
export async function addressSignaturePass(deps: AddressSignatureScanDeps, addresses: readonly string[]): Promise<number> {
  const { db, clock, chainId, source } = deps;
  let done = 0;
  for (const address of addresses) {
    const after = await findAddressCursor(db, chainId, address);
    const read = await source.read(address, after);
    const committed = await inTransaction(db, async (trx) => {
      if (!(await moveAddressCursor(trx, chainId, address, after, read.newest, clock.now()))) return false;
      await upsertTransfers(trx, read.transfers, clock.now());
      return true;
    });
    // Transfers above the cursor come back every pass until final: only a moved cursor is progress.
    if (committed && read.newest !== after) done += 1;
  }
  const observed = await listObservedTransfers(db, chainId);
  if (observed.length > 0) {
    const fates = await source.fates(observed);
    done += await inTransaction(db, async (trx) => {
      let settled = 0;
      for (const [index, transfer] of observed.entries()) {
        const fate = fates[index];
        if (fate === 'final') await confirmTransfer(trx, transfer, clock.now());
        else if (fate === 'gone') await markVanished(trx, transfer, clock.now());
        else continue;
        settled += 1;
      }
      return settled;
    });
  }
  return done + (await tellLedger({ db, clock, chainId, ...deps.ledger }));
}
