import type { Catalogue } from '../catalogue/index.js';
import { addressCodec } from '../chains/index.js';
import type { Executor } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import type { ShopId } from '../platform/ids.js';
import { decodeCursor, encodeCursor, invalidCursor } from '../platform/page-cursor.js';
import { listUnmatchedTransfers, type UnmatchedKey, type UnmatchedTransferRecord } from './unmatched-transfers.repository.js';

/**
 * Why no issuance could take a transfer. `other_token`: a catalogue token
 * other than the one the issuance at that address is for (each forwarder
 * sweeps only the token its terms commit; the operator recovers the rest).
 */
export type UnmatchedReason = 'other_token';

/** One row of GET /shops/{id}/unmatched-transfers (and the operator's list). */
export interface UnmatchedTransferView {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: number;
  /** The payment address (of issuance `issuance_id`) that received it. */
  address: string;
  token: string;
  /** Base units of `token`. */
  amount: string;
  reason: UnmatchedReason;
  /** observed, confirmed, or reverted (a reorg took it away). */
  status: string;
  issuance_id: string;
  observed_at: string;
}

export interface UnmatchedTransferPage<View = UnmatchedTransferView> {
  data: View[];
  next_cursor: string | null;
}

export const MAX_UNMATCHED_PAGE = 100;
const DEFAULT_UNMATCHED_PAGE = 50;

/** Newest first, by keyset, so pages stay stable while transfers arrive. */
export async function listUnmatched(
  executor: Executor,
  catalogue: Catalogue,
  filter: { readonly shopId?: ShopId; readonly chainId?: number },
  query: { readonly limit?: string | undefined; readonly cursor?: string | undefined },
): Promise<{ page: UnmatchedTransferPage; records: UnmatchedTransferRecord[] }> {
  const limit = parseLimit(query.limit);
  const after = query.cursor === undefined ? undefined : decodeKey(query.cursor);
  const rows = await listUnmatchedTransfers(executor, filter, { after, limit: limit + 1 });
  const records = rows.slice(0, limit);
  const last = records.at(-1);
  return {
    records,
    page: {
      data: records.map((record) => unmatchedView(catalogue, record)),
      next_cursor: rows.length > limit && last !== undefined ? encodeKey(last) : null,
    },
  };
}

function unmatchedView(catalogue: Catalogue, record: UnmatchedTransferRecord): UnmatchedTransferView {
  // Stored in the family's comparison form (EVM: lower case); shown in its display form.
  const family = catalogue.network(record.chainId)?.family;
  const display = (address: string) => (family === undefined ? address : addressCodec(family).display(address));
  return {
    chain_id: record.chainId,
    tx_hash: record.txHash,
    log_index: record.logIndex,
    block_number: Number(record.blockNumber),
    address: display(record.address),
    token: display(record.token),
    amount: record.amount.toString(),
    reason: 'other_token',
    status: record.status,
    issuance_id: record.issuanceId,
    observed_at: record.observedAt.toISOString(),
  };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_UNMATCHED_PAGE;
  if (!/^[1-9]\d{0,2}$/.test(value) || Number(value) > MAX_UNMATCHED_PAGE) throw fieldError('invalid_request', 'limit', `must be an integer from 1 to ${MAX_UNMATCHED_PAGE}`);
  return Number(value);
}

function encodeKey(record: UnmatchedTransferRecord): string {
  return encodeCursor([record.observedAt.toISOString(), String(record.chainId), String(record.blockNumber), record.txHash, String(record.logIndex)]);
}

function decodeKey(cursor: string): UnmatchedKey {
  const [observedAt, chainId, blockNumber, txHash, logIndex] = decodeCursor(cursor, 5);
  const at = new Date(observedAt ?? '');
  const whole = (text: string | undefined) => /^\d{1,19}$/.test(text ?? '');
  if (Number.isNaN(at.getTime()) || !whole(chainId) || !whole(blockNumber) || !whole(logIndex) || txHash === undefined) throw invalidCursor();
  return { observedAt: at, chainId: Number(chainId), blockNumber: BigInt(blockNumber ?? '0'), txHash, logIndex: Number(logIndex) };
}
