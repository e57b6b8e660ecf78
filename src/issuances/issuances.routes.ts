import type { FastifySchemaValidationError } from 'fastify';
import { Type } from 'typebox';
import { IssuanceAccessCache, replyShopIdempotent, requireShopAccess } from '../merchants/index.js';
import type { Catalogue } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import type { Config } from '../platform/config.js';
import type { Db } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { sendAnswer } from '../platform/http/idempotency.js';
import { SESSION_OR_READ_KEY, SESSION_OR_WRITE_KEY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { cancelMerchantInvoice } from './cancel-merchant-invoice.js';
import { createDeposit, createInvoice } from './create-invoice.js';
import { getIssuance } from './get-issuance.js';
import { listIssuances } from './list-issuances.js';
import type { LedgerPorts } from './payout-port.js';
import { setDepositEnabled } from './set-deposit-enabled.js';

const ShopParams = Type.Object({ shop_id: Type.String() });
const IssuanceParams = Type.Object({ shop_id: Type.String(), id: Type.String() });

/** One body for invoices and deposits: fields a deposit refuses still get their SPEC code, not invalid_json. */
const CreateBody = Type.Object(
  {
    chain_id: Type.Optional(Type.Integer()),
    token: Type.Optional(Type.String()),
    assets: Type.Optional(
      Type.Array(Type.Object({ chain_id: Type.Integer(), token: Type.String() }, { additionalProperties: false }), { maxItems: 50 }),
    ),
    amount: Type.Optional(Type.String()),
    external_id: Type.Optional(Type.String()),
    expires_in: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    return_url: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const CREATE_FIELD_ERRORS = {
  assets: 'invalid_assets',
  amount: 'invalid_amount',
  expires_in: 'invalid_expires_in',
} as const;

const text = (description: string) => Type.Optional(Type.String({ description }));
/**
 * GET issuances. Values arrive as text (no coercion) and are parsed, and
 * refused with `details` naming the parameter, by the use case; a parameter
 * the route does not know, or one given twice, is refused the same way
 * rather than ignored (a typo in a filter must not list everything).
 */
const ListQuery = Type.Object(
  {
    limit: text('Items per page, 1 to 100; default 50.'),
    cursor: text('`next_cursor` of the previous page, as returned.'),
    kind: text('`invoice` or `deposit`.'),
    status: text('One of `registering`, `open`, `funded`, `settled`, `reconciling` (a group\'s status as its own GET shows it). Cancellation is not a status: see `cancelled`.'),
    cancelled: text('`true`: only those with `cancelled_at` set; `false`: only those without.'),
    external_id: text('Exact match.'),
    created_after: text('RFC 3339 date-time with a zone; only issuances created after it.'),
    created_before: text('RFC 3339 date-time with a zone; only issuances created before it.'),
    chain_id: text('Only issuances on this network (a group: any of its options).'),
    token: text('Only issuances of this token address, any letter case on EVM (a group: any of its options).'),
  },
  { additionalProperties: false },
);

const DepositPatchBody = Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false });

/**
 * SPEC "Invoices and deposits". `accessCache` keeps the issuance terms API
 * keys were granted, for invoice creation in one statement.
 */
/**
 * The part of the app context (`app-context.ts`) the routes are built from,
 * named here because the app context names this module's ledger ports and
 * may not be imported back (no import cycles, type-only ones included).
 */
export interface IssuancesContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly catalogue: Catalogue;
  readonly config: Pick<Config, 'payUrl'>;
  readonly chains: ChainAdapters;
  readonly ledger: LedgerPorts;
}

export async function issuancesRoutes(api: IvoryServer, context: IssuancesContext, accessCache = new IssuanceAccessCache()): Promise<void> {
  const { db, clock, catalogue, config, ledger } = context;
  const adapters = context.chains;
  const payUrl = config.payUrl;

  const issuing = { db, clock, catalogue, adapters, payUrl, accessCache };
  for (const [path, create] of [['invoices', createInvoice], ['deposits', createDeposit]] as const) {
    api.post(
      `/shops/:shop_id/${path}`,
      { schema: { params: ShopParams, body: CreateBody }, config: { auth: SESSION_OR_WRITE_KEY, idempotent: true, fieldErrors: CREATE_FIELD_ERRORS } },
      async (request, reply) =>
        sendAnswer(reply, await create(issuing, { request, reply, principal: principalOf(request), shopId: request.params.shop_id, body: request.body })),
    );
  }

  api.get('/shops/:shop_id/issuances/:id', { schema: { params: IssuanceParams }, config: { auth: SESSION_OR_READ_KEY } }, async (request) => {
    const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
    return getIssuance(db, { payUrl, ledger }, access.shopId, request.params.id);
  });

  api.get(
    '/shops/:shop_id/issuances',
    { schema: { params: ShopParams, querystring: ListQuery }, attachValidation: true, config: { auth: SESSION_OR_READ_KEY } },
    async (request) => {
      const access = await requireShopAccess(db, principalOf(request), request.params.shop_id, 'read');
      if (request.validationError !== undefined) throw queryError(request.validationError.validation);
      return listIssuances(db, { payUrl, catalogue, ledger }, access.shopId, request.query);
    },
  );

  api.post(
    '/shops/:shop_id/invoices/:id/cancel',
    { schema: { params: IssuanceParams }, config: { auth: SESSION_OR_WRITE_KEY, idempotent: true } },
    async (request, reply) =>
      replyShopIdempotent(db, request, reply, 'write', async (trx, access) => ({ status: 200, body: await cancelMerchantInvoice(trx, { now: clock.now(), payUrl, ledger }, access.shopId, request.params.id) })),
  );

  api.patch(
    '/shops/:shop_id/deposits/:id',
    { schema: { params: IssuanceParams, body: DepositPatchBody }, config: { auth: SESSION_OR_WRITE_KEY, idempotent: true } },
    async (request, reply) =>
      replyShopIdempotent(db, request, reply, 'write', async (trx, access) => {
        const body = await setDepositEnabled(
          trx,
          { now: clock.now(), payUrl, ledger },
          { shopId: access.shopId, merchantId: access.merchantId, sandbox: access.shop.sandbox, id: request.params.id, enabled: request.body.enabled },
        );
        return { status: 200, body };
      }),
  );
}

/** A query the schema refused: the parameter it names, and why. */
function queryError(validation: readonly FastifySchemaValidationError[]): IvoryError {
  const [first] = validation;
  const unknown = first?.keyword === 'additionalProperties' ? String((first.params as { additionalProperty?: unknown }).additionalProperty) : undefined;
  if (unknown !== undefined) return new IvoryError('invalid_request', { field: unknown, reason: 'is not a parameter of this list' });
  // Every parameter is text: the only other refusal is one given more than once.
  return new IvoryError('invalid_request', { field: first?.instancePath.slice(1) ?? '', reason: 'must be given once' });
}
