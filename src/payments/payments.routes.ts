import { Type } from 'typebox';
import { requireShopAccess } from '../merchants/index.js';
import type { AppContext } from '../app-context.js';
import { SESSION_OR_READ_KEY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { exportPaymentsCsv } from './export-payments-csv.js';
import { listPayments, paymentWhere } from './list-payments.js';
import { parsePaymentFilter } from './payment-filter.js';
import { listUnmatched } from './list-unmatched-transfers.js';

const ShopParams = Type.Object({ shop_id: Type.String() });
// Query values arrive as text (no coercion): parsed, and refused with their own codes, by the use case.
const text = (description: string) => Type.Optional(Type.String({ description }));
const PageQuery = { limit: text('Items per page, 1 to 100; default 50.'), cursor: text('`next_cursor` of the previous page, as returned.') };
const PaymentsQuery = Type.Object(PageQuery);
/** Decision 0038: the same filters on the list and on the export, so an export is what the filtered list shows. */
const PaymentFilterQuery = {
  issuance_id: text('Only the payments of this issuance; a group id: of all its options.'),
  type: text('`transfer` (incoming) or `payout`.'),
  status: text('A status as the rows show it: `observed`, `confirmed`, `reverted`, `scheduled`, `waiting_gas`, `sending`, `sent`, `failed`, `cancelled`, `simulated`.'),
  chain_id: text('Only payments on this network.'),
  token: text('Only payments of this token address, any letter case on EVM.'),
  created_after: text('RFC 3339 date-time with a zone; only payments recorded after it.'),
  created_before: text('RFC 3339 date-time with a zone; only payments recorded before it.'),
};
const FilteredPaymentsQuery = Type.Object({ ...PageQuery, ...PaymentFilterQuery });
const ExportQuery = Type.Object(PaymentFilterQuery);

const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const PaymentSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  issuance_id: Type.String(),
  public_id: Type.String(),
  chain_id: Type.Integer(),
  token: Type.String(),
  token_decimals: Type.Integer(),
  amount: Type.String(),
  amount_decimal: Type.String(),
  status: Type.String({
    description:
      'Transfers: `observed`, `confirmed`, `reverted`. Payouts: `scheduled`, `waiting_gas`, `sending`, `sent`, `confirmed`, ' +
      '`failed`, `cancelled`, `reverted` — or, on a sandbox shop, `simulated`: a sandbox payout never moves money, so it is ' +
      'never sent, has no `tx_hash` and stays `simulated` (`cancelled` if a reversal withdrew it).',
  }),
  sandbox: Type.Boolean({ description: 'True on a sandbox shop: a simulated transfer or payout; no money moved.' }),
  disposition: NullableString,
  tx_hash: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'The transaction; null for a payout not yet sent, and always for a sandbox payout.' }),
  explorer_url: Type.Unsafe<string | null>({ type: ['string', 'null'], description: "The transaction's page on the network's block explorer; null without a transaction, and always on a sandbox shop." }),
  fee: NullableString,
  to_recipient: NullableString,
  to_operator: NullableString,
  created_at: Type.String(),
});
const PaymentPageSchema = Type.Object({ data: Type.Array(PaymentSchema), next_cursor: NullableString });

export const UnmatchedTransferSchema = Type.Object({
  chain_id: Type.Integer(),
  tx_hash: Type.String(),
  log_index: Type.Integer(),
  block_number: Type.Integer(),
  address: Type.String({ description: 'The payment address (of issuance `issuance_id`) that received the transfer.' }),
  token: Type.String({ description: 'A catalogue token of the network, not the one the issuance at `address` is for.' }),
  amount: Type.String({ description: 'Base units of `token`.' }),
  reason: Type.Literal('other_token', { description: '`other_token`: no issuance at that address takes this token; it is recorded, never credited or swept.' }),
  status: Type.String({ description: '`observed`, `confirmed`, or `reverted` (a reorg took it away).' }),
  issuance_id: Type.String(),
  observed_at: Type.String(),
});
const UnmatchedPageSchema = Type.Object({ data: Type.Array(UnmatchedTransferSchema), next_cursor: NullableString });

/**
 * SPEC "Shops": GET /shops/{id}/payments and GET /shops/{id}/export.csv.
 * Both read the shop's history: a session with read access or a `read` key.
 */
export async function paymentsRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { db, catalogue } = context;

  api.get(
    '/shops/:shop_id/payments',
    { schema: { params: ShopParams, querystring: FilteredPaymentsQuery, response: { 200: PaymentPageSchema } }, config: { auth: SESSION_OR_READ_KEY } },
    async (request) => {
      const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
      return listPayments(db, catalogue, access.shopId, request.query);
    },
  );

  api.get(
    '/shops/:shop_id/unmatched-transfers',
    {
      schema: {
        description:
          'Transfers of catalogue tokens to this shop\'s payment addresses that no issuance can take (a token other than the issuance\'s), ' +
          'newest first. Recorded, never credited or swept. Paused deposits and cancelled invoices are not listed here: they are credited.',
        params: ShopParams,
        querystring: PaymentsQuery,
        response: { 200: UnmatchedPageSchema },
      },
      config: { auth: SESSION_OR_READ_KEY },
    },
    async (request) => {
      const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
      return (await listUnmatched(db, catalogue, { shopId: access.shopId }, request.query)).page;
    },
  );

  api.get(
    '/shops/:shop_id/export.csv',
    { schema: { params: ShopParams, querystring: ExportQuery }, config: { auth: SESSION_OR_READ_KEY } },
    async (request, reply) => {
      // Access and the filter are decided before the first byte: a refusal is still a JSON error, never a broken download.
      const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
      const where = paymentWhere(parsePaymentFilter(request.query), catalogue);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${access.shop.id}-payments.csv"`)
        .header('Cache-Control', 'no-store')
        .send(exportPaymentsCsv(db, catalogue, access.shopId, where));
    },
  );
}
