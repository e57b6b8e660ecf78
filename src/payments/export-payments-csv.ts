import { Readable } from 'node:stream';
import type { ShopId } from '../platform/ids.js';
import type { Catalogue } from '../catalogue/index.js';
import { formatDecimal } from '../money/index.js';
import type { Executor } from '../platform/database/database.js';
import { UNSENT_STATUSES } from './list-pending-sweeps.js';
import { listShopPayments, type PaymentKey, type PaymentRecord, type PaymentWhere } from './payments.repository.js';

/**
 * GET /shops/{id}/export.csv: the shop's whole payment history for accounting,
 * one row per incoming transfer and per payout, oldest first. Amounts are
 * decimal token strings (exact: formatted from base units, never through a
 * float) and, for the row's own amount, base units too.
 *
 * Streamed page by page: memory stays flat whatever the history's size. The
 * pages are read outside any transaction on purpose — a slow client must not
 * hold a transaction open (on embedded storage that would stall every other
 * request); a payment recorded while the export runs may or may not appear.
 */

export const CSV_COLUMNS = [
  'kind',
  'id',
  'issuance_id',
  'public_id',
  'external_id',
  'chain_id',
  'token',
  'symbol',
  'amount',
  'amount_base_units',
  'fee',
  'to_recipient',
  'to_operator',
  'status',
  'disposition',
  'tx_hash',
  'created_at',
  'confirmed_at',
] as const;

export const CSV_PAGE_SIZE = 500;

/**
 * One field, RFC 4180: quoted when it holds a comma, a quote, CR or LF, with
 * quotes doubled. Before that, a field a spreadsheet would read as a formula
 * (starting with `=`, `+`, `-`, `@`, or a tab or CR that some programs skip
 * first) gets a leading apostrophe: external_id and description-like values
 * come from merchants' systems and payers' data, and opening the export in
 * Excel or LibreOffice must not run `=HYPERLINK(...)` or DDE payloads (CSV
 * injection). Ivory's own values never start so — amounts are never negative,
 * ids, hashes and timestamps start with a letter or digit — so none of them
 * change.
 */
export function csvField(value: string): string {
  const neutralised = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(neutralised) ? `"${neutralised.replace(/"/g, '""')}"` : neutralised;
}

/** One record with its CRLF terminator (RFC 4180). */
export function csvRecord(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

function decimalOrEmpty(amount: bigint | null, decimals: number): string {
  return amount === null ? '' : formatDecimal(amount, decimals);
}

export function paymentCsvValues(record: PaymentRecord, symbol: string): string[] {
  return [
    record.type,
    record.id,
    record.issuanceId,
    record.publicId,
    record.externalId ?? '',
    String(record.chainId),
    record.token,
    symbol,
    formatDecimal(record.amount, record.tokenDecimals),
    record.amount.toString(),
    decimalOrEmpty(record.fee, record.tokenDecimals),
    decimalOrEmpty(record.toRecipient, record.tokenDecimals),
    decimalOrEmpty(record.toOperator, record.tokenDecimals),
    record.status,
    record.disposition ?? '',
    record.txHash ?? '',
    record.createdAt.toISOString(),
    record.confirmedAt?.toISOString() ?? '',
  ];
}

/**
 * The CSV text in chunks: the header, then one chunk per page of at most
 * `pageSize` records. `where` is the list's filter (decision 0038), already
 * checked: the export holds exactly the rows the filtered list shows.
 */
export async function* paymentsCsvChunks(
  executor: Executor,
  catalogue: Catalogue,
  shopId: ShopId,
  where: PaymentWhere = {},
  pageSize = CSV_PAGE_SIZE,
): AsyncGenerator<string> {
  yield csvRecord(CSV_COLUMNS);
  let after: PaymentKey | undefined;
  for (;;) {
    const page = await listShopPayments(executor, shopId, { order: 'oldest', after, limit: pageSize, where, unsentStatuses: UNSENT_STATUSES });
    if (page.length === 0) return;
    yield page.map((record) => csvRecord(paymentCsvValues(record, catalogue.token(record.chainId, record.token)?.symbol ?? ''))).join('');
    if (page.length < pageSize) return;
    after = page.at(-1);
  }
}

export function exportPaymentsCsv(executor: Executor, catalogue: Catalogue, shopId: ShopId, where: PaymentWhere = {}): Readable {
  return Readable.from(paymentsCsvChunks(executor, catalogue, shopId, where), { objectMode: false });
}
