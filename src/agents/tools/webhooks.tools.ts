import { idempotencyKeyField, routeField } from '../api-document.js';
import { answerOf } from '../api-answer.js';
import { derivedKey, freshKey, keySentence } from '../idempotency-key.js';
import type { IvoryTool } from '../tool.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;
const pageText = (next: string | null) => (next === null ? 'This is the last page.' : `More: call again with cursor "${next}".`);
const queryOf = (args: Record<string, unknown>, names: readonly string[]) =>
  Object.fromEntries(names.filter((name) => args[name] !== undefined).map((name) => [name, String(args[name])]));

const EVENT_FILTERS = ['type', 'delivery_status', 'limit', 'cursor'] as const;
export const listEventsTool: IvoryTool = {
  name: 'list_events',
  title: 'List events',
  description:
    'Lists the shop\'s business events, newest first (transfer.confirmed, invoice.closed, invoice.cancelled, payout.confirmed, …) with their data and how many deliveries to webhook endpoints are pending, succeeded or failed.',
  operation: 'listEvents',
  annotations: READ_ONLY,
  input: {
    type: routeField('listEvents', 'type', 'Optional. Only events of this type, e.g. "transfer.confirmed".'),
    delivery_status: routeField('listEvents', 'delivery_status', 'Optional. Only events with a delivery in this status: pending, succeeded or failed.'),
    limit: routeField('listEvents', 'limit', 'Optional. Items per page, "1" to "100".'),
    cursor: routeField('listEvents', 'cursor', 'Optional. `next_cursor` of the previous answer.'),
  },
  async run(args, context) {
    const page = answerOf(await context.api.GET('/shops/{shop_id}/events', { params: { path: { shop_id: context.shopId }, query: queryOf(args, EVENT_FILTERS) } }));
    return { summary: `${page.data.length} events. ${pageText(page.next_cursor)}`, data: page };
  },
};

const DELIVERY_FILTERS = ['event_id', 'endpoint_id', 'status', 'limit', 'cursor'] as const;
export const listDeliveriesTool: IvoryTool = {
  name: 'list_deliveries',
  title: 'List webhook deliveries',
  description: 'Lists webhook deliveries, newest first, each with its attempts (HTTP status, latency, error). Use a delivery\'s id with replay_delivery.',
  operation: 'listWebhookDeliveries',
  annotations: READ_ONLY,
  input: {
    event_id: routeField('listWebhookDeliveries', 'event_id', 'Optional. Only deliveries of this event.'),
    endpoint_id: routeField('listWebhookDeliveries', 'endpoint_id', 'Optional. Only deliveries to this endpoint.'),
    status: routeField('listWebhookDeliveries', 'status', 'Optional. pending, succeeded or failed.'),
    limit: routeField('listWebhookDeliveries', 'limit', 'Optional. Items per page, "1" to "100".'),
    cursor: routeField('listWebhookDeliveries', 'cursor', 'Optional. `next_cursor` of the previous answer.'),
  },
  async run(args, context) {
    const page = answerOf(
      await context.api.GET('/shops/{shop_id}/deliveries', { params: { path: { shop_id: context.shopId }, query: queryOf(args, DELIVERY_FILTERS) } }),
    );
    return { summary: `${page.data.length} deliveries. ${pageText(page.next_cursor)}`, data: page };
  },
};

export const replayDeliveryTool: IvoryTool = {
  name: 'replay_delivery',
  title: 'Replay a webhook delivery',
  description:
    'Sends a webhook delivery again: the same event id and the original bytes, newly signed. It creates no new business event; receivers deduplicate by event id.',
  operation: 'replayWebhookDelivery',
  // Every call queues one more send.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  input: {
    id: routeField('replayWebhookDelivery', 'id', 'The delivery id (from list_deliveries).'),
    idempotency_key: idempotencyKeyField('Optional. Pass the same value when retrying after a timeout; omitted, each call replays once more.'),
  },
  required: ['id'],
  async run(args, context) {
    const delivery = answerOf(
      await context.api.POST('/shops/{shop_id}/deliveries/{id}/replay', {
        params: { path: { shop_id: context.shopId, id: String(args.id) }, header: { 'Idempotency-Key': freshKey(args) } },
      }),
    );
    return { summary: `Delivery ${delivery.id} of event ${delivery.event_id} is queued again.`, data: delivery };
  },
};

export const registerWebhookTool: IvoryTool = {
  name: 'register_webhook',
  title: 'Register a webhook endpoint',
  description:
    'Registers an HTTPS endpoint that receives the shop\'s events, signed. The answer carries the signing `secret` ONCE: give it to the user to store; it cannot be read again.',
  operation: 'createWebhookEndpoint',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  input: {
    url: routeField('createWebhookEndpoint', 'url', 'A public https URL (local and private addresses are refused).'),
    filters: routeField(
      'createWebhookEndpoint',
      'filters',
      'Event names (transfer.confirmed, transfer.reverted, invoice.closed, invoice.cancelled, payout.sent, payout.confirmed, payout.failed, …) or the groups transfer, invoice, payout.',
    ),
    idempotency_key: idempotencyKeyField('Optional. Omitted, one is derived from the arguments: the same call again returns the same endpoint.'),
  },
  required: ['url', 'filters'],
  async run(args, context) {
    const key = derivedKey('register_webhook', args);
    const endpoint = answerOf(
      await context.api.POST('/shops/{shop_id}/webhooks', {
        params: { path: { shop_id: context.shopId }, header: { 'Idempotency-Key': key.key } },
        body: { url: String(args.url), filters: args.filters as string[] },
      }),
    );
    return { summary: `Endpoint ${endpoint.id} registered; its secret is shown this once. ${keySentence(key)}`, data: endpoint };
  },
};
