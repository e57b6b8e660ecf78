import type { PayoutStatus, TransferStatus } from '../platform/database/schema.js';
import { chainIdFilter, instantFilter, oneOfFilter, tokenFilter, uuidFilter } from '../platform/list-filters.js';
import type { ShownPayoutStatus } from '../payouts/index.js';
import type { PaymentType } from './payments.repository.js';

/**
 * The filters of GET /shops/{id}/payments and GET /shops/{id}/export.csv
 * (decision 0038; SPEC shows only `limit`): the same parameters on both, so
 * an export is exactly what the filtered list shows. Pure: checked before
 * anything is read.
 */

/** The filter parameters as the query carries them, all optional, as text. */
export interface PaymentFilterParameters {
  readonly issuance_id?: string;
  readonly type?: string;
  readonly status?: string;
  readonly chain_id?: string;
  readonly token?: string;
  readonly created_after?: string;
  readonly created_before?: string;
}

export type PaymentStatus = TransferStatus | ShownPayoutStatus;

const TYPES: readonly PaymentType[] = ['transfer', 'payout'];
const TRANSFER_STATUSES: readonly TransferStatus[] = ['observed', 'confirmed', 'reverted'];
const PAYOUT_STATUSES: readonly PayoutStatus[] = ['scheduled', 'waiting_gas', 'sending', 'sent', 'confirmed', 'failed', 'cancelled', 'reverted'];
/** Every status a row of the history can show, each once, in the order the reason lists them. */
const STATUSES: readonly PaymentStatus[] = [...new Set<PaymentStatus>([...TRANSFER_STATUSES, ...PAYOUT_STATUSES, 'simulated'])];

export interface PaymentFilter {
  /** An issuance id, or a group id standing for all its options. */
  readonly issuanceId?: string;
  readonly type?: PaymentType;
  /** As the history shows it (`simulated` for a sandbox payout not withdrawn). */
  readonly status?: PaymentStatus;
  readonly chainId?: number;
  /** As the caller wrote it; the use case turns it into the stored spellings. */
  readonly token?: string;
  /** RFC 3339 instants, exclusive bounds on created_at, passed to SQL as written. */
  readonly createdAfter?: string;
  readonly createdBefore?: string;
}

export function parsePaymentFilter(query: PaymentFilterParameters): PaymentFilter {
  const filter: { -readonly [Key in keyof PaymentFilter]: PaymentFilter[Key] } = {};
  if (query.issuance_id !== undefined) filter.issuanceId = uuidFilter('issuance_id', query.issuance_id);
  if (query.type !== undefined) filter.type = oneOfFilter('type', query.type, TYPES);
  if (query.status !== undefined) filter.status = oneOfFilter('status', query.status, STATUSES);
  if (query.chain_id !== undefined) filter.chainId = chainIdFilter('chain_id', query.chain_id);
  if (query.token !== undefined) filter.token = tokenFilter('token', query.token);
  if (query.created_after !== undefined) filter.createdAfter = instantFilter('created_after', query.created_after);
  if (query.created_before !== undefined) filter.createdBefore = instantFilter('created_before', query.created_before);
  return filter;
}
