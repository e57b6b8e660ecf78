import { idempotencyKeyField, routeField } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { baseUnitsOf, decimalOf } from '../amounts.js';
import { listNetworks, symbolOf } from '../assets.js';
import { derivedKey, keySentence } from '../idempotency-key.js';
import { nextStep } from '../issuance-answer.js';
import { ToolFailure, type IvoryTool, type ToolContext } from '../tool.js';

const KEY = idempotencyKeyField(
  'Optional. Omitted, one is derived from the arguments, so repeating the same call simulates once; pass a new value to simulate the same thing again (two equal partial payments).',
);
const ISSUANCE_ID = routeField('simulateSandboxEvent', 'issuance_id', 'The invoice or deposit id (for a multi-option invoice: the id of the option paid).');

async function issuanceOf(context: ToolContext, id: string) {
  const issuance = answerOf(await context.api.GET('/shops/{shop_id}/issuances/{id}', { params: { path: { shop_id: context.shopId, id } } }));
  if ('group' in issuance) throw new ToolFailure('invalid_simulation', 'That is a group id: simulate on one option\'s id (get_issuance on the group lists them).');
  return issuance;
}

async function simulate(context: ToolContext, tool: string, args: Record<string, unknown>, body: { issuance_id: string; kind: 'transfer.confirmed' | 'invoice.closed' | 'transfer.reverted'; amount: string; reference_event_id?: string }) {
  const key = derivedKey(tool, args);
  const result = answerOf(
    await context.api.POST('/shops/{shop_id}/sandbox/simulate', { params: { path: { shop_id: context.shopId }, header: { 'Idempotency-Key': key.key } }, body }),
  );
  const after = await issuanceOf(context, body.issuance_id);
  const received = decimalOf(after.received, after.token_decimals);
  const symbol = symbolOf(await listNetworks(context), after.chain_id, after.token);
  return {
    summary: `Simulated ${body.kind} (event ${result.event_id ?? 'none'}). The ${after.kind} is now ${after.status}, ${received} ${symbol} received. ${nextStep(after)} ${keySentence(key)}`,
    data: { event_id: result.event_id, transfer_id: result.transfer_id, issuance_id: after.id, status: after.status, received, token: symbol },
  };
}

/** Simulations need to read the issuance (its token's decimals), so a key needs both scopes. */
const ALSO_READS = ['getIssuance'] as const;

export const simulatePaymentTool: IvoryTool = {
  name: 'simulate_payment',
  title: 'Sandbox: simulate a payment',
  description:
    'Sandbox shops only: simulates a confirmed incoming transfer to an invoice or deposit, through the real ledger and webhooks (no money moves). ' +
    'Omit `amount` to pay what the invoice still owes; a smaller amount is a partial payment (they add up). A full payment makes an invoice `funded`.',
  operation: 'simulateSandboxEvent',
  alsoCalls: ALSO_READS,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  input: {
    issuance_id: ISSUANCE_ID,
    amount: routeField('simulateSandboxEvent', 'amount', 'Optional. Decimal token amount paid, e.g. "10.5"; at most 10,000 on a sandbox shop. Omitted: what is still owed.'),
    idempotency_key: KEY,
  },
  required: ['issuance_id'],
  async run(args, context) {
    const issuance = await issuanceOf(context, String(args.issuance_id));
    let amount: string;
    if (args.amount !== undefined) amount = baseUnitsOf(String(args.amount), issuance.token_decimals, 'the token');
    else {
      const owed = BigInt(issuance.amount ?? '0') - BigInt(issuance.received);
      if (owed <= 0n) throw new ToolFailure('invalid_amount', 'Nothing is owed (a deposit has no amount, or the invoice is paid): give `amount`.');
      amount = owed.toString();
    }
    return simulate(context, 'simulate_payment', args, { issuance_id: issuance.id, kind: 'transfer.confirmed', amount });
  },
};

export const simulateCloseTool: IvoryTool = {
  name: 'simulate_close',
  title: 'Sandbox: simulate the invoice closing on chain',
  description: 'Sandbox shops only: simulates the on-chain closing of a funded (fully paid) invoice, which makes it `settled` and sends invoice.closed.',
  operation: 'simulateSandboxEvent',
  alsoCalls: ALSO_READS,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  input: { issuance_id: ISSUANCE_ID, idempotency_key: KEY },
  required: ['issuance_id'],
  async run(args, context) {
    return simulate(context, 'simulate_close', args, { issuance_id: String(args.issuance_id), kind: 'invoice.closed', amount: '0' });
  },
};

export const simulateRevertTool: IvoryTool = {
  name: 'simulate_revert',
  title: 'Sandbox: simulate a reversal of a payment',
  description:
    'Sandbox shops only: simulates the reversal (a chain reorganisation) of an earlier simulated payment, which un-credits its whole amount and sends transfer.reverted. ' +
    'Name the payment by the `event_id` simulate_payment returned.',
  operation: 'simulateSandboxEvent',
  alsoCalls: ALSO_READS,
  // It takes back money credited earlier.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  input: {
    issuance_id: ISSUANCE_ID,
    reference_event_id: routeField('simulateSandboxEvent', 'reference_event_id', 'The event_id of the simulated payment to reverse.'),
    idempotency_key: KEY,
  },
  required: ['issuance_id', 'reference_event_id'],
  async run(args, context) {
    return simulate(context, 'simulate_revert', args, {
      issuance_id: String(args.issuance_id),
      kind: 'transfer.reverted',
      amount: '0',
      reference_event_id: String(args.reference_event_id),
    });
  },
};
