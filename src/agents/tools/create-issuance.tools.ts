import { idempotencyKeyField, routeField, type JsonSchema } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { baseUnitsOf } from '../amounts.js';
import { listNetworks, resolveAsset } from '../assets.js';
import { derivedKey, keySentence } from '../idempotency-key.js';
import { issuanceForModel, nextStep } from '../issuance-answer.js';
import { ToolFailure, type IvoryTool, type ToolContext } from '../tool.js';

/** Creating with a derived key: the same call again returns the same record, so repeating it is harmless. */
const CREATES = { readOnlyHint: false, destructiveHint: false, idempotentHint: true } as const;

const NETWORK: JsonSchema = { type: 'string', description: 'Network name as list_networks gives it, e.g. "Base" (any letter case).' };
const TOKEN: JsonSchema = { type: 'string', description: 'Token symbol as list_networks gives it for that network, e.g. "USDC".' };
const KEY = idempotencyKeyField(
  'Optional. Any string of 1 to 128 bytes. Omitted, one is derived from the arguments: the same call again returns the same record instead of creating a second one.',
);
const OPTIONS: JsonSchema = {
  type: 'array',
  minItems: 1,
  maxItems: 50,
  description: 'The token/network pairs the payer may choose from, each distinct.',
  items: { type: 'object', properties: { network: NETWORK, token: TOKEN }, required: ['network', 'token'], additionalProperties: false },
};

function describing(operation: string) {
  return {
    external_id: routeField(operation, 'external_id', 'Optional. Your reference (order number); shown in webhooks and searchable with list_issuances. It does not prevent duplicates.'),
    description: routeField(operation, 'description', 'Optional. What the payment is for, shown to the payer on the payment page.'),
    return_url: routeField(operation, 'return_url', 'Optional. A link back to the merchant shown on the payment page after payment.'),
    idempotency_key: KEY,
  };
}

type Body = Record<string, unknown>;

async function create(context: ToolContext, kind: 'invoices' | 'deposits', body: Body, key: { key: string; derived: boolean }, networks: Awaited<ReturnType<typeof listNetworks>>) {
  const request = { params: { path: { shop_id: context.shopId }, header: { 'Idempotency-Key': key.key } }, body: body as never };
  const created = answerOf(kind === 'invoices' ? await context.api.POST('/shops/{shop_id}/invoices', request) : await context.api.POST('/shops/{shop_id}/deposits', request));
  const view = issuanceForModel(created, networks);
  return { summary: `Created ${created.kind} ${created.id}. ${nextStep(created)} ${keySentence(key)}`, data: view };
}

function optional(args: Record<string, unknown>, names: readonly string[]): Body {
  return Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
}

export const createInvoiceTool: IvoryTool = {
  name: 'create_invoice',
  title: 'Create an invoice',
  description:
    'Creates a one-time invoice for a fixed amount of one token on one network, e.g. 25 USDC on Base. ' +
    'The answer has the invoice id and its status; the payment address is allocated in the background (status `registering`): call get_issuance until `address` is set, then give the payer `payment_url`.',
  operation: 'createInvoice',
  annotations: CREATES,
  input: {
    amount: routeField('createInvoice', 'amount', 'Decimal token amount, e.g. "25" or "10.5" (never base units).'),
    token: TOKEN,
    network: NETWORK,
    expires_in: routeField('createInvoice', 'expires_in', 'Optional. How long the invoice stays payable: 1d, 7d, 30d (default), 180d or 365d.'),
    ...describing('createInvoice'),
  },
  required: ['amount', 'token', 'network'],
  async run(args, context) {
    const networks = await listNetworks(context);
    const asset = resolveAsset(networks, String(args.network), String(args.token));
    const body = {
      chain_id: asset.chainId,
      token: asset.token,
      amount: baseUnitsOf(String(args.amount), asset.decimals, asset.symbol),
      ...optional(args, ['expires_in', 'external_id', 'description', 'return_url']),
    };
    return create(context, 'invoices', body, derivedKey('create_invoice', args), networks);
  },
};

export const createMultiOptionInvoiceTool: IvoryTool = {
  name: 'create_multi_option_invoice',
  title: 'Create an invoice payable in several tokens or networks',
  description:
    'Creates one invoice the payer can pay with any one of several token/network options (e.g. USDC on Base or USDT on Tron), for the same decimal amount in each. ' +
    'It is paid once, through whichever option the payer picks on `payment_url`. Each option must reach its network\'s minimum payment.',
  operation: 'createInvoice',
  annotations: CREATES,
  input: {
    amount: routeField('createInvoice', 'amount', 'Decimal token amount asked in each option, e.g. "25" or "10.5".'),
    options: OPTIONS,
    expires_in: routeField('createInvoice', 'expires_in', 'Optional. How long the invoice stays payable: 1d, 7d, 30d (default), 180d or 365d.'),
    ...describing('createInvoice'),
  },
  required: ['amount', 'options'],
  async run(args, context) {
    const networks = await listNetworks(context);
    const assets = optionsOf(args.options).map((option) => resolveAsset(networks, option.network, option.token));
    const body = {
      assets: assets.map((asset) => ({ chain_id: asset.chainId, token: asset.token })),
      amount: String(args.amount).trim(),
      ...optional(args, ['expires_in', 'external_id', 'description', 'return_url']),
    };
    return create(context, 'invoices', body, derivedKey('create_multi_option_invoice', args), networks);
  },
};

export const createDepositTool: IvoryTool = {
  name: 'create_deposit',
  title: 'Create a deposit address',
  description:
    'Creates a reusable deposit: an address (and payment page) that accepts any number of top-ups of any size and never expires. ' +
    'Give either `network` and `token`, or `options` for several token/network pairs (one address each). Paused and re-enabled with set_deposit_enabled.',
  operation: 'createDeposit',
  annotations: CREATES,
  input: { network: NETWORK, token: TOKEN, options: OPTIONS, ...describing('createDeposit') },
  async run(args, context) {
    const networks = await listNetworks(context);
    let target: Body;
    if (args.options !== undefined) {
      if (args.network !== undefined || args.token !== undefined) throw new ToolFailure('invalid_assets', 'Give either network and token, or options, not both.');
      target = { assets: optionsOf(args.options).map((option) => resolveAsset(networks, option.network, option.token)).map((asset) => ({ chain_id: asset.chainId, token: asset.token })) };
    } else {
      if (args.network === undefined || args.token === undefined) throw new ToolFailure('invalid_assets', 'Give network and token (or options).');
      const asset = resolveAsset(networks, String(args.network), String(args.token));
      target = { chain_id: asset.chainId, token: asset.token };
    }
    return create(context, 'deposits', { ...target, ...optional(args, ['external_id', 'description', 'return_url']) }, derivedKey('create_deposit', args), networks);
  },
};

function optionsOf(value: unknown): { network: string; token: string }[] {
  // The SDK has validated the arguments against the input schema before the tool runs.
  return value as { network: string; token: string }[];
}
