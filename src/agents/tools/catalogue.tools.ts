import { answerOf } from '../api-answer.js';
import { listNetworks } from '../assets.js';
import type { IvoryTool } from '../tool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

export const listNetworksTool: IvoryTool = {
  name: 'list_networks',
  title: 'List networks and tokens',
  description:
    'Lists the networks and stablecoins this Ivory accepts: for each network its name (use it as `network` in other tools), ' +
    'whether it takes live payments (`live`; sandbox shops can use every listed network), the smallest invoice amount, and its ready tokens by symbol (use the symbol as `token`).',
  operation: 'listNetworks',
  annotations: READ_ONLY,
  input: {},
  async run(_args, context) {
    const networks = await listNetworks(context);
    const data = networks.map((network) => ({
      network: network.name,
      chain_id: network.chain_id,
      family: network.family,
      live: network.live,
      minimum_payment: network.minimum_payment,
      tokens: network.tokens.filter((token) => token.status === 'ready').map((token) => ({ symbol: token.symbol, decimals: token.decimals, address: token.address })),
    }));
    return { summary: `${data.length} networks. Amounts in every tool are decimal token amounts (10.5 means ten and a half tokens).`, data };
  },
};

export const getTermsTool: IvoryTool = {
  name: 'get_terms',
  title: 'Read the shop\'s fee terms',
  description:
    'Reads the shop\'s fee terms per network: for invoices and deposits, `bps` (hundredths of a percent: 50 is 0.5 %) and the minimum and maximum fee ' +
    '(integer strings in 18-decimal units whatever the token), and for deposits the sweep threshold (a decimal token amount). The merchant receives the amount minus the fee.',
  operation: 'getShopTerms',
  annotations: READ_ONLY,
  input: {},
  async run(_args, context) {
    const terms = answerOf(await context.api.GET('/shops/{shop_id}/terms', { params: { path: { shop_id: context.shopId } } }));
    return { summary: `Fee terms on ${terms.length} networks.`, data: terms };
  },
};
