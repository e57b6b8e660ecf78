import { routeField, type JsonSchema } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { listNetworks, resolveAsset } from '../assets.js';
import { issuanceForModel, nextStep } from '../issuance-answer.js';
import { ToolFailure, type IvoryTool } from '../tool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

export const getIssuanceTool: IvoryTool = {
  name: 'get_issuance',
  title: 'Get an invoice or deposit',
  description:
    'Reads one invoice or deposit (or a multi-option group) by id: status (registering, open, funded, settled, reconciling), amount and received so far ' +
    '(decimal token amounts), payment address, payment URL, and whether it is cancelled or paused. Poll this after creating until `address` is set.',
  operation: 'getIssuance',
  annotations: READ_ONLY,
  input: { id: routeField('getIssuance', 'id', 'The invoice, deposit or group id (a UUID) that create_invoice or list_issuances returned.') },
  required: ['id'],
  async run(args, context) {
    const issuance = answerOf(await context.api.GET('/shops/{shop_id}/issuances/{id}', { params: { path: { shop_id: context.shopId, id: String(args.id) } } }));
    return { summary: `The ${issuance.kind} ${issuance.id} is ${issuance.status}. ${nextStep(issuance)}`, data: issuanceForModel(issuance, await listNetworks(context)) };
  },
};

const FILTERS = ['kind', 'status', 'cancelled', 'external_id', 'created_after', 'created_before', 'limit', 'cursor'] as const;
const FILTER_TEXT: Readonly<Record<(typeof FILTERS)[number], string>> = {
  kind: 'Optional. `invoice` or `deposit`.',
  status: 'Optional. One of registering, open, funded, settled, reconciling. Cancellation is not a status: see `cancelled`.',
  cancelled: 'Optional. "true": only cancelled ones; "false": only those not cancelled.',
  external_id: 'Optional. Only those with exactly this external_id.',
  created_after: 'Optional. An RFC 3339 date-time with a zone, e.g. 2026-01-31T00:00:00Z.',
  created_before: 'Optional. An RFC 3339 date-time with a zone.',
  limit: 'Optional. Items per page, "1" to "100"; default "50".',
  cursor: 'Optional. `next_cursor` of the previous answer, to read the next page.',
};
const NETWORK: JsonSchema = { type: 'string', description: 'Optional. Only those on this network (name as list_networks gives it).' };
const TOKEN: JsonSchema = { type: 'string', description: 'Optional, with `network`. Only those in this token (symbol).' };

export const listIssuancesTool: IvoryTool = {
  name: 'list_issuances',
  title: 'List invoices and deposits',
  description: 'Lists the shop\'s invoices and deposits, newest first, with optional filters (all combined). Pages: pass `next_cursor` back as `cursor`.',
  operation: 'listIssuances',
  annotations: READ_ONLY,
  input: { ...Object.fromEntries(FILTERS.map((name) => [name, routeField('listIssuances', name, FILTER_TEXT[name])])), network: NETWORK, token: TOKEN },
  async run(args, context) {
    const networks = await listNetworks(context);
    const query: Record<string, string> = Object.fromEntries(FILTERS.filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]));
    if (args.token !== undefined && args.network === undefined) throw new ToolFailure('invalid_request', 'A token filter needs the network too.');
    if (args.network !== undefined) {
      if (args.token !== undefined) {
        const asset = resolveAsset(networks, String(args.network), String(args.token));
        Object.assign(query, { chain_id: String(asset.chainId), token: asset.token });
      } else {
        const network = networks.find((candidate) => candidate.name.toLowerCase() === String(args.network).toLowerCase());
        if (network === undefined) throw new ToolFailure('unsupported_network', `No network is named "${String(args.network)}": call list_networks.`);
        query.chain_id = String(network.chain_id);
      }
    }
    const page = answerOf(await context.api.GET('/shops/{shop_id}/issuances', { params: { path: { shop_id: context.shopId }, query } }));
    const more = page.next_cursor === null ? 'This is the last page.' : `More: call again with cursor "${page.next_cursor}".`;
    return { summary: `${page.data.length} issuances. ${more}`, data: { issuances: page.data.map((issuance) => issuanceForModel(issuance, networks)), next_cursor: page.next_cursor } };
  },
};
