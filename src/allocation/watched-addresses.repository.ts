import { sql } from 'kysely';
import { addressCodec, type ChainFamily } from '../chains/index.js';
import type { Executor } from '../platform/database/database.js';

/** A live issuance's payment address, as a chain watcher matches incoming transfers against it. */
export interface WatchedIssuanceAddress {
  readonly issuanceId: string;
  /** The family's comparison key of the address (`AddressCodec.normalise`: lower case on EVM). */
  readonly address: string;
  /** The token contract or mint, normalised the same way. */
  readonly token: string;
  /** When the row last changed: the cursor of incremental loads. */
  readonly allocatedAt: Date;
  /** Registering or open and not cancelled, when read (a Solana Pay reference is read only then; decision 0039). */
  readonly open: boolean;
}

/**
 * Every live issuance of the family on `chainId` that has an address, in (updated_at,
 * id) order after `after` (all when null). The address is set once, with
 * `updated_at`; later changes only re-deliver a row the watcher already
 * knows. Cancelled and settled issuances stay watched: SPEC keeps their
 * addresses monitored (late transfers, cancelled invoices paid anyway).
 */
export async function listWatchedAddresses(
  executor: Executor,
  family: ChainFamily,
  chainId: number,
  after: { readonly allocatedAt: Date; readonly issuanceId: string } | null,
): Promise<WatchedIssuanceAddress[]> {
  let query = executor
    .selectFrom('issuances')
    .select(['id', 'address', 'token', 'updated_at', 'status', 'cancelled_at'])
    .where('chain_id', '=', chainId)
    .where('family', '=', family)
    .where('sandbox', '=', false)
    .where('address', 'is not', null);
  if (after !== null) query = query.where(sql<boolean>`(updated_at, id) > (${after.allocatedAt}, ${after.issuanceId}::uuid)`);
  const rows = await query.orderBy('updated_at').orderBy('id').execute();
  const codec = addressCodec(family);
  return rows.map((row) => ({
    issuanceId: row.id,
    address: codec.normalise(row.address ?? ''),
    token: codec.normalise(row.token),
    allocatedAt: row.updated_at,
    open: row.cancelled_at === null && (row.status === 'registering' || row.status === 'open'),
  }));
}
