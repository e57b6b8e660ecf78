import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { replyIdempotentChange, type IdempotentOptions } from '../platform/http/idempotency.js';
import { SESSION_OR_KEY, SESSION_OR_WRITE_KEY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { createWebhookEndpoint } from './create-webhook-endpoint.js';
import { deleteWebhookEndpoint } from './delete-webhook-endpoint.js';
import { listDeliveries } from './list-deliveries.js';
import { listEvents } from './list-events.js';
import { listWebhookEndpoints } from './list-webhook-endpoints.js';
import { revealSecret, type SealedSecretBody } from './one-time-secret.js';
import { recoverWebhookDeliveries } from './recover-webhook-deliveries.js';
import { replayDelivery } from './replay-delivery.js';
import { rotateWebhookSecret } from './rotate-webhook-secret.js';
import { updateWebhookEndpoint } from './update-webhook-endpoint.js';

const ShopParams = Type.Object({ shop_id: Type.String() });
/** An endpoint or a delivery of the shop. */
const ItemParams = Type.Object({ shop_id: Type.String(), id: Type.String() });

const Filters = Type.Array(Type.String());

const CreateBody = Type.Object({ url: Type.String(), filters: Filters }, { additionalProperties: false });

const UpdateBody = Type.Object(
  { url: Type.Optional(Type.String()), filters: Type.Optional(Filters), enabled: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);

const RecoverBody = Type.Object({ since: Type.String() }, { additionalProperties: false });

const DeliveriesQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.String()),
  event_id: Type.Optional(Type.String()),
  endpoint_id: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
});

const EventsQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  issuance_id: Type.Optional(Type.String({ description: 'Only events about this issuance; a group id: about any of its options.' })),
  limit: Type.Optional(Type.String()),
  type: Type.Optional(Type.String()),
  delivery_status: Type.Optional(Type.String()),
});

/** The config of every change (see webhooksRoutes). */
const WRITE = { auth: SESSION_OR_WRITE_KEY, idempotent: true } as const;

const ENDPOINT_FIELD_ERRORS = { url: 'invalid_webhook_url', filters: 'invalid_filters', enabled: 'invalid_request' } as const;

/**
 * SPEC "Webhooks" (endpoints, the delivery log, replay) and what merchants
 * expect beside it: update, delete, secret rotation, windowed recovery and the
 * events list. Reads need shop access by session or any key of the shop;
 * changes need a session or a `write` key, and an Idempotency-Key.
 */
export async function webhooksRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { db, clock, secrets } = context;
  const allowPrivate = context.config.webhookAllowPrivate;
  // The answer shows the signing secret: stored sealed (one-time-secret.ts).
  const secretAnswer: IdempotentOptions = { sealWith: secrets, legacyBody: (stored) => revealSecret(stored as SealedSecretBody, secrets) };

  api.post(
    '/shops/:shop_id/webhooks',
    { schema: { params: ShopParams, body: CreateBody }, config: { ...WRITE, fieldErrors: ENDPOINT_FIELD_ERRORS } },
    async (request, reply) =>
      replyIdempotentChange(
        db,
        request,
        reply,
        201,
        async (trx, principal) =>
          revealSecret(await createWebhookEndpoint(trx, { clock, secrets, allowPrivate }, principal, request.params.shop_id, request.body), secrets),
        secretAnswer,
      ),
  );

  api.get('/shops/:shop_id/webhooks', { schema: { params: ShopParams }, config: { auth: SESSION_OR_KEY } }, async (request) =>
    listWebhookEndpoints(db, clock, principalOf(request), request.params.shop_id),
  );

  api.patch(
    '/shops/:shop_id/webhooks/:id',
    { schema: { params: ItemParams, body: UpdateBody }, config: { ...WRITE, fieldErrors: ENDPOINT_FIELD_ERRORS } },
    async (request, reply) => {
      const { shop_id: shopId, id } = request.params;
      return replyIdempotentChange(db, request, reply, 200, (trx, principal) => updateWebhookEndpoint(trx, { clock, allowPrivate }, principal, shopId, id, request.body));
    },
  );

  api.delete('/shops/:shop_id/webhooks/:id', { schema: { params: ItemParams }, config: WRITE }, async (request, reply) => {
    const { shop_id: shopId, id } = request.params;
    return replyIdempotentChange(db, request, reply, 200, (trx, principal) => deleteWebhookEndpoint(trx, clock, principal, shopId, id));
  });

  api.post('/shops/:shop_id/webhooks/:id/rotate-secret', { schema: { params: ItemParams }, config: WRITE }, async (request, reply) => {
    const { shop_id: shopId, id } = request.params;
    return replyIdempotentChange(
      db,
      request,
      reply,
      200,
      async (trx, principal) => revealSecret(await rotateWebhookSecret(trx, { clock, secrets }, principal, shopId, id), secrets),
      secretAnswer,
    );
  });

  api.post(
    '/shops/:shop_id/webhooks/:id/recover',
    { schema: { params: ItemParams, body: RecoverBody }, config: { ...WRITE, fieldErrors: { since: 'invalid_request' } } },
    async (request, reply) => {
      const { shop_id: shopId, id } = request.params;
      return replyIdempotentChange(db, request, reply, 202, (trx, principal) => recoverWebhookDeliveries(trx, clock, principal, shopId, id, request.body.since));
    },
  );

  api.get(
    '/shops/:shop_id/deliveries',
    { schema: { params: ShopParams, querystring: DeliveriesQuery }, config: { auth: SESSION_OR_KEY } },
    async (request) => listDeliveries(db, principalOf(request), request.params.shop_id, request.query),
  );

  api.post('/shops/:shop_id/deliveries/:id/replay', { schema: { params: ItemParams }, config: WRITE }, async (request, reply) => {
    const { shop_id: shopId, id } = request.params;
    return replyIdempotentChange(db, request, reply, 202, (trx, principal) => replayDelivery(trx, clock, principal, shopId, id));
  });

  api.get(
    '/shops/:shop_id/events',
    { schema: { params: ShopParams, querystring: EventsQuery }, config: { auth: SESSION_OR_KEY } },
    async (request) => listEvents(db, principalOf(request), request.params.shop_id, request.query),
  );
}
