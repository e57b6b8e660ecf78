import { appendEvent, type EventType } from '../../src/events/index.js';
import type { IvoryApp } from '../../src/app.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { DeliverWebhooksJob, deliverWebhooksDeps, type DeliverWebhooksOptions } from '../../src/webhook-delivery/index.js';
import type { HostLookup } from '../../src/platform/http-client/ssrf.js';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';

import type { Received } from '../support/webhook-receiver.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
export { startReceiver, type Answer, type Received, type Receiver } from '../support/webhook-receiver.js';

/** Writes one business event the way domain code does: appendEvent inside a transaction. */
export async function emitEvent(
  app: IvoryApp,
  shopId: string,
  type: EventType,
  data: Record<string, unknown> = {},
  issuanceId?: string,
): Promise<{ id: string; bytes: string }> {
  const now = app.context.clock.now();
  const envelope = await inTransaction(app.context.db, (trx) =>
    appendEvent(trx, { now, subscribers: app.context.ledger.eventSubscribers }, { shopId, type, data, ...(issuanceId === undefined ? {} : { issuanceId }) }),
  );
  const row = await app.context.db.selectFrom('events').select('envelope').where('id', '=', envelope.id).executeTakeFirstOrThrow();
  return { id: envelope.id, bytes: row.envelope };
}

export interface RegisteredEndpoint {
  readonly id: string;
  readonly secret: string;
  readonly url: string;
}

export async function registerEndpoint(app: TestApp, token: string, shopId: string, url: string, filters: string[]): Promise<RegisteredEndpoint> {
  const response = await app.request({
    method: 'POST',
    url: `/api/v1/shops/${shopId}/webhooks`,
    headers: authed(token, newIdempotencyKey()),
    payload: { url, filters },
  });
  if (response.statusCode !== 201) throw new Error(`registration failed: ${response.statusCode} ${response.body}`);
  return response.json() as RegisteredEndpoint;
}

/**
 * A delivery worker of its own, with test options: no jitter, and a resolver
 * that knows no names, so endpoints on example hosts fail at once instead of
 * waiting on real DNS (loopback receivers are IP literals, never looked up).
 */
export function deliveryJob(app: IvoryApp, options: DeliverWebhooksOptions = {}): DeliverWebhooksJob {
  return new DeliverWebhooksJob(deliverWebhooksDeps(app.context), { random: () => 0.5, lookup: noNames, ...options });
}

const noNames: HostLookup = async (hostname) => {
  throw Object.assign(new Error(`ENOTFOUND: ${hostname} (test resolver)`), { code: 'ENOTFOUND' });
};

/** Runs the worker until a run finds nothing due at the current (manual) time. */
export async function drainJob(job: DeliverWebhooksJob): Promise<number> {
  let total = 0;
  for (;;) {
    const handled = await job.run();
    total += handled;
    if (handled === 0) return total;
  }
}

/** The earliest time a pending delivery of the shop is due, if any. */
export async function nextDue(app: IvoryApp, shopId: string): Promise<Date | undefined> {
  const row = await app.context.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('due'))
    .where('status', '=', 'pending')
    .where('shop_id', '=', shopId)
    .executeTakeFirst();
  return row?.due === null || row?.due === undefined ? undefined : new Date(row.due as Date | string);
}

export { countRows } from '../support/database.js';

export async function deliveriesOf(app: IvoryApp, eventId: string) {
  return app.context.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
}

/** Waits (real time) until `condition` holds, failing after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export function header(received: Received, name: string): string {
  const value = received.headers[name.toLowerCase()];
  if (typeof value !== 'string') throw new Error(`header ${name} missing`);
  return value;
}

/**
 * The set-up of a webhook test file: one app that may deliver to loopback
 * receivers, closed after the file; receivers and delivery jobs started
 * through it are closed after each test. `onStart` gets the app once built.
 */
export function useWebhookTestApp(onStart: (app: TestApp) => void) {
  let app: TestApp | undefined;
  const receivers: Receiver[] = [];
  const jobs: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    app = await createTestApp({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    onStart(app);
  });
  afterEach(async () => {
    for (const started of receivers.splice(0)) await started.close();
    for (const created of jobs.splice(0)) await created.close();
  });
  afterAll(async () => {
    await app?.close();
  });
  return {
    async receiver(answer?: Receiver['answer']): Promise<Receiver> {
      const started = await startReceiver(answer);
      receivers.push(started);
      return started;
    },
    /** A delivery job on the file's app, or on `target` (a test's own app). */
    job(options: Parameters<typeof deliveryJob>[1] = {}, target: IvoryApp | undefined = app) {
      if (target === undefined) throw new Error('useWebhookTestApp: no app before beforeAll');
      const created = deliveryJob(target, options);
      jobs.push(created);
      return created;
    },
  };
}
