import { idempotencyKeyField, routeField } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { listNetworks } from '../assets.js';
import { freshKey } from '../idempotency-key.js';
import { issuanceForModel, nextStep } from '../issuance-answer.js';
import type { IvoryTool } from '../tool.js';

const KEY = idempotencyKeyField('Optional. Pass the same value when retrying after a timeout; omitted, a new one is used.');

export const cancelInvoiceTool: IvoryTool = {
  name: 'cancel_invoice',
  title: 'Cancel an invoice',
  description:
    'Cancels an unpaid invoice: its payment page closes for good. It refunds nothing and the address is still watched: money sent anyway is recorded. ' +
    'A multi-option invoice is cancelled by its group id.',
  operation: 'cancelInvoice',
  // Cannot be undone; cancelling an already cancelled invoice changes nothing more.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  input: { id: routeField('cancelInvoice', 'id', 'The invoice or group id.'), idempotency_key: KEY },
  required: ['id'],
  async run(args, context) {
    const cancelled = answerOf(
      await context.api.POST('/shops/{shop_id}/invoices/{id}/cancel', {
        params: { path: { shop_id: context.shopId, id: String(args.id) }, header: { 'Idempotency-Key': freshKey(args) } },
      }),
    );
    return { summary: `The invoice ${cancelled.id} is cancelled. ${nextStep(cancelled)}`, data: issuanceForModel(cancelled, await listNetworks(context)) };
  },
};

export const setDepositEnabledTool: IvoryTool = {
  name: 'set_deposit_enabled',
  title: 'Pause or enable a deposit',
  description:
    'Pauses (enabled false) or re-enables (enabled true) a deposit\'s payment page. Pausing does not stop monitoring: money sent to a paused address is still recorded and paid out.',
  operation: 'setDepositEnabled',
  // Reversible (enable it again), and setting the same value twice leaves it so.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  input: {
    id: routeField('setDepositEnabled', 'id', 'The deposit or deposit group id.'),
    enabled: routeField('setDepositEnabled', 'enabled', 'false to pause the deposit\'s page, true to open it again.'),
    idempotency_key: KEY,
  },
  required: ['id', 'enabled'],
  async run(args, context) {
    const deposit = answerOf(
      await context.api.PATCH('/shops/{shop_id}/deposits/{id}', {
        params: { path: { shop_id: context.shopId, id: String(args.id) }, header: { 'Idempotency-Key': freshKey(args) } },
        body: { enabled: args.enabled === true },
      }),
    );
    return { summary: `The deposit ${deposit.id} is ${deposit.disabled_at === null ? 'enabled' : 'paused'}.`, data: issuanceForModel(deposit, await listNetworks(context)) };
  },
};
