import { tokenSpellings, type Catalogue } from '../catalogue/index.js';
import { addressCodec } from '../chains/index.js';
import { formatDecimal } from '../money/index.js';
import type { ShopId } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { decodeTimeKey, encodeTimeKey } from '../platform/page-cursor.js';
import { UNSENT_STATUSES } from './list-pending-sweeps.js';
import { parsePaymentFilter, type PaymentFilter, type PaymentFilterParameters } from './payment-filter.js';
import { listShopPayments, type PaymentRecord, type PaymentType, type PaymentWhere } from './payments.repository.js';

/** One row of GET /shops/{id}/payments (SPEC: "Response shape: n/s"; ours). */
export interface PaymentView {
  id: string;
  type: PaymentType;
  issuance_id: string;
  public_id: string;
  chain_id: number;
  token: string;
  token_decimals: number;
  /** Base units: a transfer's amount, a payout's gross. */
  amount: string;
  amount_decimal: string;
  /** Transfers: observed, confirmed, reverted. Payouts: the queue status, or `simulated` on a sandbox shop. */
  status: string;
  /** True on a sandbox shop: simulated events, no money moved. */
  sandbox: boolean;
  /** Transfers: credited, overpayment, late or duplicate (null until confirmed); payouts: null. */
  disposition: string | null;
  tx_hash: string | null;
  /** The transaction's page on the network's block explorer; null without a transaction, and always on a sandbox shop. */
  explorer_url: string | null;
  /** Payouts only, base units; null on transfers. */
  fee: string | null;
  to_recipient: string | null;
  to_operator: string | null;
  created_at: string;
}

export interface PaymentPage {
  data: PaymentView[];
  next_cursor: string | null;
}

export const DEFAULT_PAYMENTS_PAGE = 50;
export const MAX_PAYMENTS_PAGE = 100;

export interface PaymentListParameters extends PaymentFilterParameters {
  readonly limit?: string;
  readonly cursor?: string;
}

/**
 * GET /shops/{id}/payments: the shop's incoming transfers and payouts, newest
 * first, by keyset on (created_at, id) so pages stay stable while payments
 * arrive, narrowed by the filters of decision 0038 (none: the whole history,
 * as SPEC shows the route). The caller has already checked read access to
 * `shopId`; the whole query is checked before anything is read.
 */
export async function listPayments(executor: Executor, catalogue: Catalogue, shopId: ShopId, query: PaymentListParameters): Promise<PaymentPage> {
  const limit = parseLimit(query.limit);
  const where = paymentWhere(parsePaymentFilter(query), catalogue);
  const after = query.cursor === undefined ? undefined : decodeTimeKey(query.cursor);
  // One row more than the page tells whether another page follows.
  const rows = await listShopPayments(executor, shopId, { order: 'newest', after, limit: limit + 1, where, unsentStatuses: UNSENT_STATUSES });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map((record) => paymentView(record, catalogue)),
    next_cursor: rows.length > limit && last !== undefined ? encodeTimeKey(last) : null,
  };
}

/** The filter as the repository reads it: the token in the spellings it may be stored in. */
export function paymentWhere(filter: PaymentFilter, catalogue: Catalogue): PaymentWhere {
  const { token, ...rest } = filter;
  return token === undefined ? rest : { ...rest, tokens: tokenSpellings(catalogue, token, filter.chainId) };
}

export function paymentView(record: PaymentRecord, catalogue: Catalogue): PaymentView {
  return {
    id: record.id,
    type: record.type,
    issuance_id: record.issuanceId,
    public_id: record.publicId,
    chain_id: record.chainId,
    token: record.token,
    token_decimals: record.tokenDecimals,
    amount: record.amount.toString(),
    amount_decimal: formatDecimal(record.amount, record.tokenDecimals),
    status: record.status,
    sandbox: record.sandbox,
    disposition: record.disposition,
    tx_hash: record.txHash,
    explorer_url: explorerUrl(record, catalogue),
    fee: record.fee?.toString() ?? null,
    to_recipient: record.toRecipient?.toString() ?? null,
    to_operator: record.toOperator?.toString() ?? null,
    created_at: record.createdAt.toISOString(),
  };
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAYMENTS_PAGE;
  if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PAYMENTS_PAGE) {
    // The bounds as numbers too, as the page lists have always given them.
    throw new IvoryError('invalid_request', { field: 'limit', reason: `must be a whole number from 1 to ${MAX_PAYMENTS_PAGE}`, minimum: 1, maximum: MAX_PAYMENTS_PAGE });
  }
  return Number(value);
}


/** Sandbox hashes are on no chain; a live one links to the explorer the catalogue names (http(s) only, checked at load). */
function explorerUrl(record: PaymentRecord, catalogue: Catalogue): string | null {
  if (record.sandbox || record.txHash === null) return null;
  const network = catalogue.network(record.chainId);
  if (network === undefined || network.explorerUrl === '') return null;
  return addressCodec(network.family).explorerTxUrl(network.explorerUrl, record.txHash);
}
