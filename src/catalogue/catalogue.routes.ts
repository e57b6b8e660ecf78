import { Type, type Static } from 'typebox';
import { listedNetwork } from './catalogue.js';
import type { Catalogue, IsLive, ListedNetwork } from './network.js';
import { IvoryError } from '../platform/errors.js';
import { PUBLIC } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';

/** SPEC "Network"; kept in step with `ListedNetwork` (the serializer drops anything not listed). */
const PublicTokenSchema = Type.Object({
  address: Type.String(),
  symbol: Type.String(),
  decimals: Type.Integer(),
  status: Type.Optional(Type.Literal('ready')),
  icon_url: Type.Optional(Type.String()),
});

export const PublicNetworkSchema = Type.Object({
  chain_id: Type.Integer(),
  name: Type.String(),
  native_symbol: Type.String(),
  explorer_url: Type.String(),
  main_factory: Type.String(),
  invoice_factory: Type.String(),
  start_block: Type.Integer(),
  tokens: Type.Array(PublicTokenSchema),
  minimum_payment: Type.String(),
  family: Type.String(),
  live: Type.Boolean({
    description:
      'True when this deployment takes live payments on the network: its operator configured a node and the factory contracts for it. ' +
      'A token with status ready is usable in sandbox everywhere listed, and for live invoices only where live is true; elsewhere a live shop gets network_not_ready.',
  }),
});
// Compile-time guard: the schema must keep every field of the record the API shows.
const _networkFits: (network: ListedNetwork) => Static<typeof PublicNetworkSchema> = (network) => ({ ...network, tokens: [...network.tokens] });

const IconParams = Type.Object({ chain_id: Type.String(), token: Type.String(), hash: Type.String() });

const CHAIN_ID = /^[1-9][0-9]{0,15}$/;
const CONTENT_HASH = /^[0-9a-f]{64}$/;
/** The hash in the path is of the content, so a URL never names other bytes: cache for good. */
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/**
 * SPEC "Public": the network list and token icons.
 * Takes only the parts of the app context it uses: `AppContext` names this
 * module, and importing it back would be a (type-only) import cycle.
 */
export async function catalogueRoutes(api: IvoryServer, context: { readonly catalogue: Catalogue; readonly isLive: IsLive }): Promise<void> {
  const { catalogue } = context;

  // `live` is read at each request: which networks a chain adapter serves is the composition root's to say.
  api.get('/networks', { schema: { response: { 200: Type.Array(PublicNetworkSchema) } }, config: { auth: PUBLIC } }, async () =>
    // The serializer only reads the records, so their readonly token lists are handed over as they are.
    catalogue.publicNetworks().map((network) => listedNetwork(network, context.isLive) as Static<typeof PublicNetworkSchema>),
  );

  api.get('/token-icons/:chain_id/:token/:hash', { schema: { params: IconParams }, config: { auth: PUBLIC } }, async (request, reply) => {
    const { chain_id: chainIdText, token, hash } = request.params;
    const chainId = CHAIN_ID.test(chainIdText) ? Number(chainIdText) : undefined;
    // A malformed path is as unknown as a stale hash: 404, never 400 (SPEC "Public").
    const icon =
      chainId !== undefined && Number.isSafeInteger(chainId) && CONTENT_HASH.test(hash) ? catalogue.icon(chainId, token, hash) : undefined;
    if (icon === undefined) throw new IvoryError('not_found');
    return reply
      .header('Content-Type', icon.contentType)
      .header('Cache-Control', IMMUTABLE_CACHE)
      .header('X-Content-Type-Options', 'nosniff')
      // Icons are often SVG; opened directly, one must not run script at our origin.
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .send(icon.bytes);
  });
}
