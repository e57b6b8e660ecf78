import { routeField } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { decimalOf } from '../amounts.js';
import { listNetworks, networkNameOf, symbolOf } from '../assets.js';
import type { IvoryTool } from '../tool.js';

export const listPaymentsTool: IvoryTool = {
  name: 'list_payments',
  title: 'List payments',
  description:
    'Lists the shop\'s payment history, newest first: incoming transfers (observed, confirmed, reverted) and payouts to the merchant, ' +
    'with decimal token amounts, the fee and what the merchant receives. On a sandbox shop every entry is simulated (status `simulated` for payouts).',
  operation: 'listPayments',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  input: {
    limit: routeField('listPayments', 'limit', 'Optional. Items per page, "1" to "100".'),
    cursor: routeField('listPayments', 'cursor', 'Optional. `next_cursor` of the previous answer.'),
  },
  async run(args, context) {
    const query = Object.fromEntries((['limit', 'cursor'] as const).filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]));
    const page = answerOf(await context.api.GET('/shops/{shop_id}/payments', { params: { path: { shop_id: context.shopId }, query } }));
    const networks = await listNetworks(context);
    const payments = page.data.map((payment) => ({
      id: payment.id,
      type: payment.type,
      status: payment.status,
      issuance_id: payment.issuance_id,
      network: networkNameOf(networks, payment.chain_id),
      token: symbolOf(networks, payment.chain_id, payment.token),
      amount: payment.amount_decimal,
      fee: decimalOf(payment.fee, payment.token_decimals),
      to_recipient: decimalOf(payment.to_recipient, payment.token_decimals),
      to_operator: decimalOf(payment.to_operator, payment.token_decimals),
      disposition: payment.disposition,
      tx_hash: payment.tx_hash,
      sandbox: payment.sandbox,
      created_at: payment.created_at,
    }));
    const more = page.next_cursor === null ? 'This is the last page.' : `More: call again with cursor "${page.next_cursor}".`;
    return { summary: `${payments.length} payments. ${more}`, data: { payments, next_cursor: page.next_cursor } };
  },
};
