import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { PublicNetworkSchema } from '../catalogue/index.js';
import type { AppContext } from '../app-context.js';
import { PUBLIC } from '../platform/http/principal.js';
import { API_PREFIX, type IvoryServer } from '../platform/http/server.js';
import type { Checkout, CheckoutGroup, CheckoutUrls } from './checkout.js';
import { CheckoutAnswerCache } from './checkout-answer-cache.js';
import { readCheckoutStamp } from './checkout.repository.js';
import { getCheckout } from './get-checkout.js';

/**
 * Response schemas: Fastify compiles them into a serializer (GET /checkout is a
 * hot public path), which also guarantees nothing outside SPEC's field lists
 * ever leaves. Nullable values use a type list rather than anyOf, which the
 * serializer handles without running a validator per value.
 */
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

const BrandingSchema = Type.Object({ name: Type.String(), logo_url: Type.Optional(Type.String()) });

/** Fields a Checkout and a Checkout group share (SPEC lists them for both). */
const commonProperties = {
  public_id: Type.String(),
  shop_id: Type.String(),
  kind: Type.String(),
  status: Type.String(),
  cancelled_at: NullableString,
  cancel_reason: NullableString,
  disabled_at: NullableString,
  expires_at: NullableString,
  description: Type.String(),
  return_url: Type.String(),
  branding: BrandingSchema,
  merchant_name: Type.String(),
  sandbox: Type.Boolean(),
};

const optionProperties = {
  ...commonProperties,
  family: Type.String(),
  chain_id: Type.Integer(),
  token: Type.String(),
  token_decimals: Type.Integer(),
  network: PublicNetworkSchema,
  amount: Type.String(),
  address: Type.String(),
  tx_hash: Type.String(),
  received: Type.String(),
};

/** SPEC "Checkout". */
const CheckoutSchema = Type.Object({ ...optionProperties, payment_url: Type.String() });

/** SPEC "Checkout group": options are complete Checkouts without payment_url. */
const CheckoutGroupSchema = Type.Object({
  group: Type.Literal(true),
  ...commonProperties,
  amount: Type.String(),
  paid_public_id: NullableString,
  payment_url: Type.String(),
  options: Type.Array(Type.Object(optionProperties)),
});

/**
 * One of the two, told apart by `group` with if/then/else: the serializer
 * tests only that one property, where anyOf would validate whole objects.
 */
const CheckoutResponseSchema = Type.Unsafe<Checkout | CheckoutGroup>({
  type: 'object',
  if: { type: 'object', properties: { group: { const: true } }, required: ['group'] },
  then: CheckoutGroupSchema,
  else: CheckoutSchema,
});

const Params = Type.Object({ public_id: Type.String() });

export function checkoutUrls(context: AppContext): CheckoutUrls {
  return { payUrl: context.config.payUrl, baseUrl: `${context.config.publicUrl}${API_PREFIX}` };
}

const JSON_UTF8 = 'application/json; charset=utf-8';

/** An answer already serialized by the route's schema: the typed reply only accepts the object form. */
function sendSerialized(reply: FastifyReply, body: string): FastifyReply {
  return reply.send(body);
}

/**
 * SPEC "Public": GET /checkout/{public_id}, no credentials. A single
 * issuance's answer is served from `CheckoutAnswerCache` while its view stamp
 * is unchanged (one narrow read instead of building the answer again);
 * groups, and any answer not yet cached, are read and serialized in full.
 */
export async function checkoutRoutes(api: IvoryServer, context: AppContext, cache = new CheckoutAnswerCache()): Promise<void> {
  const deps = { catalogue: context.catalogue, isLive: context.isLive, urls: checkoutUrls(context) };
  api.get(
    '/checkout/:public_id',
    { schema: { params: Params, response: { 200: CheckoutResponseSchema } }, config: { auth: PUBLIC, notFoundStatus: 400 } },
    async (request, reply) => {
      const publicId = request.params.public_id;
      // Status moves with every transfer: never let an HTTP cache answer for us.
      void reply.header('Cache-Control', 'no-store').type(JSON_UTF8);
      if (cache.has(publicId)) {
        const stamp = await readCheckoutStamp(context.db, publicId);
        const cached = stamp === undefined ? undefined : cache.get(publicId, stamp);
        if (cached !== undefined) return sendSerialized(reply, cached);
      }

      const found = await getCheckout(context.db, deps, publicId);
      // The route's compiled serializer, so a cached answer is the same bytes as a fresh one.
      const body = String(reply.serialize(found.view));
      if (found.type === 'single') cache.set(publicId, found.stamp, body);
      return sendSerialized(reply, body);
    },
  );
}
