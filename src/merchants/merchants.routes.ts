import { Type, type Static } from 'typebox';
import type { Catalogue, IsLive } from '../catalogue/index.js';
import { familyRules } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/database/database.js';
import { replyIdempotent } from '../platform/http/idempotency.js';
import { PUBLIC, SESSION_FRESH_MFA, SESSION_ONLY, SESSION_OR_KEY, SESSION_OR_READ_KEY, principalOf } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import { IMAGE_BODY_LIMIT } from '../platform/image.js';
import { createShop } from './create-shop.js';
import { getBrandingAsset } from './get-branding-asset.js';
import { getShopRecipient } from './get-shop-recipient.js';
import { listMerchantNetworks } from './list-merchant-networks.js';
import { listShops } from './list-shops.js';
import { RECIPIENT_FAMILIES } from './merchants.repository.js';
import { requireShopAccess } from './require-shop-access.js';
import { replyShopIdempotent } from './reply-shop-idempotent.js';
import { LOGO_OUTPUT_SIDE, setShopBranding } from './set-shop-branding.js';
import { setShopRecipient } from './set-shop-recipient.js';
import { shopRecord } from './shop.js';
import { listMerchantFeeTerms } from './merchant-controls.repository.js';
import { shopTerms } from './shop-terms.js';
import { updateShop } from './update-shop.js';

const PayoutTarget = Type.Union([Type.Literal('address'), Type.Literal('wallet')]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

const MerchantParams = Type.Object({ merchant_id: Type.String() });
const ShopParams = Type.Object({ shop_id: Type.String() });

const CreateShopBody = Type.Object(
  {
    name: Type.String(),
    sandbox: Type.Boolean(),
    recipient: Type.Optional(NullableString),
    delegate: Type.Optional(NullableString),
    payout_target: Type.Optional(PayoutTarget),
    solana_payout_target: Type.Optional(PayoutTarget),
    tron_payout_target: Type.Optional(PayoutTarget),
  },
  { additionalProperties: false },
);

const UpdateShopBody = Type.Object(
  {
    recipient: Type.Optional(Type.String()),
    delegate: Type.Optional(NullableString),
    solana_payout_target: Type.Optional(PayoutTarget),
    tron_payout_target: Type.Optional(PayoutTarget),
  },
  { additionalProperties: false },
);

/** The payout fields a create and an update body share, named as the use cases name them. */
function payoutFields<Body extends Static<typeof UpdateShopBody> | Static<typeof CreateShopBody>>(body: Body) {
  return {
    recipient: body.recipient as Body['recipient'],
    delegate: body.delegate,
    solanaPayoutTarget: body.solana_payout_target,
    tronPayoutTarget: body.tron_payout_target,
  };
}

const BrandingBody = Type.Object(
  {
    name: Type.Optional(NullableString),
    logo: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: `Standard base64 of a PNG or JPEG up to 2048x2048 px; stored as a PNG of at most ${LOGO_OUTPUT_SIDE}x${LOGO_OUTPUT_SIDE} px. null removes the logo.`,
      }),
    ),
  },
  { additionalProperties: false },
);
const BrandingSchema = Type.Object({ shop_id: Type.String(), name: Type.String(), logo_url: NullableString });

const RecipientBody = Type.Object({ address: Type.String() }, { additionalProperties: false });

export const ShopRecordSchema = Type.Object({
  id: Type.String(),
  merchant_id: Type.String(),
  name: Type.String(),
  sandbox: Type.Boolean(),
  recipient: NullableString,
  delegate: NullableString,
  payout_target: PayoutTarget,
  solana_payout_target: PayoutTarget,
  tron_payout_target: PayoutTarget,
  solana_recipient: NullableString,
  tron_recipient: NullableString,
  created_at: Type.String(),
  archived_at: Type.Union([Type.String(), Type.Null()], { description: 'When the shop was archived; null while it is active (decision 0038).' }),
});

const ShopListQuery = Type.Object({
  include_archived: Type.Optional(Type.String({ description: '`true`: archived shops are listed too, with their `archived_at`; default `false`.' })),
});

const FeeTermsSchema = Type.Object({ bps: Type.Integer(), minimum: Type.String(), maximum: Type.String() });
const TermsSchema = Type.Array(
  Type.Object({
    chain_id: Type.Integer(),
    name: Type.String(),
    family: Type.String(),
    invoice: FeeTermsSchema,
    deposit: FeeTermsSchema,
    sweep_threshold: Type.String(),
    minimum_sweep: Type.String(),
    maximum_sweep: Type.String(),
  }),
);

/** Assets never change under an id (a new logo is a new asset), so caches may keep them for good. */
const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/**
 * SPEC "Merchants and team" (networks, shops), "Shops" (shop settings, terms,
 * Solana/Tron recipients) and "Public" (branding assets).
 *
 * Takes only the parts of the app context it uses: `AppContext` names `keys/`,
 * which imports this module, so importing it here would be a (type-only) import cycle.
 */
export async function merchantsRoutes(
  api: IvoryServer,
  context: { readonly db: Db; readonly clock: Clock; readonly catalogue: Catalogue; readonly isLive: IsLive; readonly config: Pick<Config, 'publicUrl'> },
): Promise<void> {
  const { db, clock, catalogue } = context;
  const baseUrl = `${context.config.publicUrl}${API_PREFIX}`;

  api.get(
    '/merchants/:merchant_id/networks',
    { schema: { params: MerchantParams }, config: { auth: SESSION_OR_READ_KEY } },
    async (request) => listMerchantNetworks(db, { catalogue, isLive: context.isLive }, principalOf(request), request.params.merchant_id),
  );

  api.get(
    '/merchants/:merchant_id/shops',
    { schema: { params: MerchantParams, querystring: ShopListQuery, response: { 200: Type.Array(ShopRecordSchema) } }, config: { auth: SESSION_OR_READ_KEY } },
    async (request) => listShops(db, principalOf(request), request.params.merchant_id, request.query),
  );

  api.post(
    '/merchants/:merchant_id/shops',
    {
      schema: { params: MerchantParams, body: CreateShopBody },
      config: {
        auth: SESSION_ONLY,
        idempotent: true,
        fieldErrors: { name: 'invalid_name', recipient: 'invalid_recipient', delegate: 'invalid_recipient' },
      },
    },
    async (request, reply) => {
      const body = request.body;
      return replyIdempotent(db, request, reply, async (trx, principal) => ({
        status: 201,
        body: await createShop(trx, clock, principal, request.params.merchant_id, {
          name: body.name,
          sandbox: body.sandbox,
          payoutTarget: body.payout_target,
          ...payoutFields(body),
        }),
      }));
    },
  );

  api.get(
    '/shops/:shop_id',
    { schema: { params: ShopParams, response: { 200: ShopRecordSchema } }, config: { auth: SESSION_OR_READ_KEY } },
    async (request) => shopRecord((await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read')).shop),
  );

  api.patch(
    '/shops/:shop_id',
    {
      schema: { params: ShopParams, body: UpdateShopBody },
      config: { auth: SESSION_FRESH_MFA, idempotent: true, fieldErrors: { recipient: 'invalid_recipient', delegate: 'invalid_recipient' } },
    },
    async (request, reply) => {
      const body = request.body;
      return replyIdempotent(db, request, reply, async (trx, principal) => ({
        status: 200,
        body: await updateShop(trx, clock, principal, request.params.shop_id, payoutFields(body)),
      }));
    },
  );

  api.patch(
    '/shops/:shop_id/branding',
    {
      // Only routes taking a picture accept bodies this large (the default stays 1 MB); larger ones are 413.
      bodyLimit: IMAGE_BODY_LIMIT,
      schema: { params: ShopParams, body: BrandingBody, response: { 200: BrandingSchema } },
      config: { auth: SESSION_ONLY, idempotent: true, fieldErrors: { name: 'invalid_name', logo: 'invalid_image' } },
    },
    async (request, reply) =>
      replyShopIdempotent(db, request, reply, 'owner', async (trx, access) => ({
        status: 200,
        body: await setShopBranding(trx, clock, access, request.body, baseUrl),
      })),
  );

  api.get(
    '/shops/:shop_id/terms',
    { schema: { params: ShopParams, response: { 200: TermsSchema } }, config: { auth: SESSION_OR_KEY } },
    async (request) => {
      const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
      return shopTerms(catalogue, await listMerchantFeeTerms(db, access.merchantId));
    },
  );

  for (const family of RECIPIENT_FAMILIES) {
    const path = `/shops/:shop_id/${family}-recipient`;
    api.get(path, { schema: { params: ShopParams }, config: { auth: SESSION_OR_KEY } }, async (request) =>
      getShopRecipient(db, principalOf(request), request.params.shop_id, family),
    );
    api.put(
      path,
      {
        schema: { params: ShopParams, body: RecipientBody },
        config: {
          auth: SESSION_FRESH_MFA,
          idempotent: true,
          fieldErrors: { address: familyRules(family).malformedRecipient },
        },
      },
      async (request, reply) =>
        replyIdempotent(db, request, reply, async (trx, principal) => ({
          status: 200,
          body: await setShopRecipient(trx, { clock, catalogue }, principal, request.params.shop_id, family, request.body.address),
        })),
    );
  }

  api.get('/assets/:id', { schema: { params: Type.Object({ id: Type.String() }) }, config: { auth: PUBLIC } }, async (request, reply) => {
    const asset = await getBrandingAsset(db, request.params.id);
    return reply
      .header('Content-Type', asset.contentType)
      .header('Cache-Control', IMMUTABLE_CACHE)
      .header('ETag', `"${asset.sha256}"`)
      .header('X-Content-Type-Options', 'nosniff')
      // Opened directly, an image must not be able to run anything at our origin.
      .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
      .send(asset.bytes);
  });
}
