import { inTransaction, type Db, type Tx } from '../../platform/database/database.js';
import { fieldError, IvoryError } from '../../platform/errors.js';
import { insertRescan, type Rescan } from './rescan.repository.js';
import { findScanCursor } from './scan-cursor.repository.js';

/**
 * POST /admin/v1/networks/{chain_id}/rescan: read `fromBlock..toBlock` again
 * and record what the first read missed. Only blocks the watcher already
 * scanned (later ones it reads anyway), from the network's first block on,
 * one rescan per network at a time. Idempotent by construction: a transfer is
 * keyed by (network, transaction, position), so a range already credited
 * changes nothing. `audit` runs in the same transaction (the operator log).
 */
export async function requestRescan(
  db: Db,
  request: { readonly chainId: number; readonly startBlock: number; readonly fromBlock: number; readonly toBlock: number; readonly now: Date },
  audit: (trx: Tx) => Promise<void>,
): Promise<Rescan> {
  const { chainId, fromBlock, toBlock } = request;
  if (fromBlock < request.startBlock) throw fieldError('invalid_request', 'from_block', `must be at least the network's start_block, ${request.startBlock}`);
  if (toBlock < fromBlock) throw fieldError('invalid_request', 'to_block', 'must not be below from_block');
  const cursor = await findScanCursor(db, chainId);
  const lastScanned = cursor === undefined ? BigInt(request.startBlock) - 1n : cursor.nextBlock - 1n;
  if (BigInt(toBlock) > lastScanned) {
    throw fieldError('invalid_request', 'to_block', `must not be beyond the last block scanned, ${lastScanned} (later blocks are read anyway)`);
  }
  return inTransaction(db, async (trx) => {
    const rescan = { chainId, fromBlock: BigInt(fromBlock), toBlock: BigInt(toBlock) };
    if (!(await insertRescan(trx, rescan, request.now))) {
      throw new IvoryError('invalid_state', { field: 'chain_id', reason: 'a rescan of this network is in progress: see GET /admin/v1/networks' });
    }
    await audit(trx);
    return { ...rescan, nextBlock: rescan.fromBlock };
  });
}
