import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { EventType } from '../../src/events/index.js';
import { ManualClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { RETRY_SCHEDULE_SECONDS } from '../../src/webhook-delivery/retry-schedule.js';
import { verifyBrandedSignature } from '../../src/webhook-delivery/signature.js';
import { authed, createTestApp, newIdempotencyKey, TEST_SECRET_KEY, type TestApp } from '../support/app.js';
import { freshDatabase } from '../support/database.js';
import { createOwnerWithShop } from '../support/factories.js';
import {
  deliveriesOf,
  drainJob,
  emitEvent,
  header,
  nextDue,
  registerEndpoint,
  useWebhookTestApp,
  waitFor,
  type Receiver,
} from './webhooks-helpers.js';

// SPEC "Events", delivery rules 1–3 (headers, signature over the raw bytes,
// retries repeat the event id and the bytes), the delivery worker
// (retries with backoff over about three days, timeouts, 410, Retry-After,
// endpoints disabled after failing for days, no head-of-line blocking).

let app: TestApp;
const { receiver, job } = useWebhookTestApp((started) => (app = started));

async function shopWithEndpoint(url: string, filters: string[] = ['transfer', 'invoice', 'payout']) {
  const owner = await createOwnerWithShop(app.context.db);
  const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, url, filters);
  return { owner, endpoint };
}

/** Moves the manual clock to each due time in turn and delivers, until `until` or nothing is pending. */
async function runUntil(target: TestApp, shopId: string, deliver: () => Promise<unknown>, until: Date): Promise<void> {
  for (;;) {
    const due = await nextDue(target, shopId);
    if (due === undefined || due > until) return;
    if (due > target.clock.now()) target.clock.set(due);
    await deliver();
  }
}

describe('SPEC "Events" delivery rules 1–2: headers and signatures over the raw bytes', () => {
  it('sends the stored bytes with the branded and Standard Webhooks headers, verified by stripe and standardwebhooks', async () => {
    const hook = await receiver();
    const { owner, endpoint } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'transfer.confirmed', { issuance_id: randomUUID(), external_id: 'order-ünïcode-€' });
    expect(await drainJob(job())).toBe(1);

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    if (request === undefined) throw new Error('nothing received');
    expect(request.body.equals(Buffer.from(event.bytes, 'utf8'))).toBe(true);
    expect(header(request, 'content-type')).toBe('application/json');
    expect(header(request, 'user-agent')).toBe('Ivory-Webhooks/1 (+http://ivory.test)');
    expect(header(request, 'Ivory-Event-ID')).toBe(event.id);
    expect(header(request, 'Ivory-Attempt-ID')).toMatch(/^[0-9a-f-]{36}$/);
    const signature = header(request, 'Ivory-Signature');
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Number(signature.slice(2, signature.indexOf(',')))).toBe(Math.floor(app.clock.now().getTime() / 1000));

    // The stripe package's verifier, over the raw received bytes, with the whole whsec_ string.
    const verified = Stripe.webhooks.constructEvent(request.body, signature, endpoint.secret) as unknown as { id: string; type: string };
    expect(verified).toMatchObject({ id: event.id, type: 'transfer.confirmed' });
    expect(() => Stripe.webhooks.constructEvent(request.body, signature, `${endpoint.secret}x`)).toThrow();
    // The Standard Webhooks verifier, with the same secret.
    expect(header(request, 'webhook-id')).toBe(event.id);
    const standard = new Webhook(endpoint.secret).verify(request.body, {
      'webhook-id': header(request, 'webhook-id'),
      'webhook-timestamp': header(request, 'webhook-timestamp'),
      'webhook-signature': header(request, 'webhook-signature'),
    });
    expect(standard).toMatchObject({ id: event.id });
    // And our reference verifier (README guide).
    expect(verifyBrandedSignature(signature, endpoint.secret, request.body, Math.floor(Date.now() / 1000))).toBe(true);

    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 1, lease_token: null });
  });

  it('during a rotation both secrets sign (two v1=, two webhook signatures); after 24 h only the new one', async () => {
    const hook = await receiver();
    const { owner, endpoint } = await shopWithEndpoint(hook.url);
    const rotated = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}/rotate-secret`,
      headers: authed(owner.key.token, newIdempotencyKey()),
    });
    const newSecret: string = rotated.json().secret;
    await emitEvent(app, owner.shop.id, 'invoice.closed');
    await drainJob(job());
    const [during] = hook.received;
    if (during === undefined) throw new Error('nothing received');
    const signature = header(during, 'Ivory-Signature');
    expect(signature.match(/v1=/g)).toHaveLength(2);
    for (const secret of [endpoint.secret, newSecret]) {
      expect(() => Stripe.webhooks.constructEvent(during.body, signature, secret)).not.toThrow();
      expect(() =>
        new Webhook(secret).verify(during.body, {
          'webhook-id': header(during, 'webhook-id'),
          'webhook-timestamp': header(during, 'webhook-timestamp'),
          'webhook-signature': header(during, 'webhook-signature'),
        }),
      ).not.toThrow();
    }

    app.clock.advance(24 * 3600 * 1000 + 1000);
    await emitEvent(app, owner.shop.id, 'invoice.closed');
    await drainJob(job());
    const after = hook.received[1];
    if (after === undefined) throw new Error('nothing received');
    const later = header(after, 'Ivory-Signature');
    expect(later.match(/v1=/g)).toHaveLength(1);
    const now = Math.floor(app.clock.now().getTime() / 1000);
    expect(verifyBrandedSignature(later, newSecret, after.body, now)).toBe(true);
    expect(verifyBrandedSignature(later, endpoint.secret, after.body, now)).toBe(false);
  });
});

describe('retries: at-least-once with the same event id and bytes, a new attempt id each time', () => {
  it('500, 500, 200 gives exactly three attempts, same event id and bytes, distinct attempt ids', async () => {
    const hook = await receiver((_request, index) => ({ status: index < 2 ? 500 : 200 }));
    const { owner } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'payout.sent', { payout_id: randomUUID() });
    await drainJob(job());
    expect(hook.received).toHaveLength(1);

    // Not yet due: nothing is sent before the schedule says so.
    app.clock.advance(1000);
    await app.jobs.drain();
    expect(hook.received).toHaveLength(1);

    // Each delay of the schedule, plus its largest jitter (+20%).
    for (const delay of [RETRY_SCHEDULE_SECONDS[1] ?? 0, RETRY_SCHEDULE_SECONDS[2] ?? 0]) {
      app.clock.advance(delay * 1200);
      await app.jobs.drain();
    }
    app.clock.advance(3600 * 1000);
    await app.jobs.drain();

    expect(hook.received).toHaveLength(3);
    expect(hook.received.map((request) => header(request, 'Ivory-Event-ID'))).toEqual([event.id, event.id, event.id]);
    expect(hook.received.every((request) => request.body.toString('utf8') === event.bytes)).toBe(true);
    expect(new Set(hook.received.map((request) => header(request, 'Ivory-Attempt-ID'))).size).toBe(3);

    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3 });
    const attempts = await app.context.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', delivery?.id ?? '')
      .orderBy('started_at')
      .execute();
    expect(attempts.map((attempt) => attempt.status_code)).toEqual([500, 500, 200]);
    expect(attempts.map((attempt) => attempt.id)).toEqual(hook.received.map((request) => header(request, 'Ivory-Attempt-ID')));
  });

  it('a receiver that hangs is timed out and the delivery is retried later', async () => {
    let hang = true;
    const hook = await receiver(() => (hang ? 'hang' : { status: 204 }));
    const { owner } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'transfer.observed');
    const worker = job({ attemptTimeoutMs: 300 });
    expect(await drainJob(worker)).toBe(1);
    expect(hook.received).toHaveLength(1);
    const [attempt] = await app.context.db.selectFrom('webhook_attempts').selectAll().where('shop_id', '=', owner.shop.id).execute();
    expect(attempt).toMatchObject({ status_code: null, error: 'timeout after 300 ms' });
    const [pending] = await deliveriesOf(app, event.id);
    expect(pending?.status).toBe('pending');

    hang = false;
    app.clock.advance(10_000);
    await drainJob(worker);
    expect(hook.received).toHaveLength(2);
    expect((await deliveriesOf(app, event.id))[0]?.status).toBe('succeeded');
  });

  it('follows the schedule to the end: after the last attempt the delivery is failed', async () => {
    const hook = await receiver(() => ({ status: 503 }));
    const { owner } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'payout.failed');
    const worker = job();
    const started = app.clock.now();
    await runUntil(app, owner.shop.id, () => drainJob(worker), new Date(started.getTime() + 10 * 24 * 3600 * 1000));
    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: RETRY_SCHEDULE_SECONDS.length });
    expect(hook.received).toHaveLength(RETRY_SCHEDULE_SECONDS.length);
    // About three days from the first attempt to the last (jitter fixed at 0 by the test's random of 0.5).
    const span = (delivery?.last_attempt_at?.getTime() ?? 0) - started.getTime();
    const nominal = RETRY_SCHEDULE_SECONDS.reduce((sum, seconds) => sum + seconds, 0) * 1000;
    expect(span).toBe(nominal);
    expect(span).toBeGreaterThan(3 * 24 * 3600 * 1000);
  });

  it('nothing is lost when the service restarts between attempts', async () => {
    const database = await freshDatabase();
    const clock = new ManualClock(new Date());
    const config = loadConfig({
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_WRITES_PER_MINUTE: '0',
      PUBLIC_URL: 'http://ivory.test',
      DATA_DIR: '/nonexistent-ivory-test-dir',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    const hook = await receiver((_request, index) => ({ status: index === 0 ? 500 : 200 }));
    try {
      const first = await buildApp({ config, database, clock });
      const owner = await createOwnerWithShop(database.db);
      const endpoint = await first.server.inject({
        method: 'POST',
        url: `/api/v1/shops/${owner.shop.id}/webhooks`,
        headers: authed(owner.key.token, newIdempotencyKey()),
        payload: { url: hook.url, filters: ['transfer'] },
      });
      expect(endpoint.statusCode).toBe(201);
      const event = await emitEvent(first, owner.shop.id, 'transfer.confirmed');
      await first.jobs.drain();
      expect(hook.received).toHaveLength(1);
      await first.close();

      const second = await buildApp({ config, database, clock });
      clock.advance(60_000);
      await second.jobs.drain();
      expect(hook.received).toHaveLength(2);
      expect(header(hook.received[1] ?? hook.received[0]!, 'Ivory-Event-ID')).toBe(event.id);
      expect(hook.received[1]?.body.toString('utf8')).toBe(event.bytes);
      const [delivery] = await database.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', event.id).execute();
      expect(delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
      await second.close();
    } finally {
      await database.close();
    }
  });

  it('a receiver down for a simulated day receives every event afterwards', async () => {
    let down = true;
    const hook = await receiver(() => (down ? 'reset' : { status: 200 }));
    const { owner } = await shopWithEndpoint(hook.url);
    const worker = job({ random: Math.random });
    const types: EventType[] = ['transfer.observed', 'transfer.confirmed', 'invoice.closed', 'payout.sent', 'payout.confirmed'];
    const events = [];
    const dayStart = app.clock.now();
    for (const [index, type] of types.entries()) {
      events.push(await emitEvent(app, owner.shop.id, type, { n: index }));
      app.clock.advance(3 * 3600 * 1000); // spread over the day
      await runUntil(app, owner.shop.id, () => drainJob(worker), app.clock.now());
    }
    const dayEnd = new Date(dayStart.getTime() + 24 * 3600 * 1000);
    await runUntil(app, owner.shop.id, () => drainJob(worker), dayEnd);
    app.clock.set(dayEnd);
    expect(hook.received.length).toBeGreaterThan(types.length * 5);
    for (const event of events) expect((await deliveriesOf(app, event.id))[0]?.status).toBe('pending');

    down = false;
    await runUntil(app, owner.shop.id, () => drainJob(worker), new Date(dayEnd.getTime() + 3 * 24 * 3600 * 1000));
    for (const event of events) expect((await deliveriesOf(app, event.id))[0]?.status).toBe('succeeded');
    const delivered = hook.received.slice(-types.length);
    expect(new Set(delivered.map((request) => header(request, 'Ivory-Event-ID')))).toEqual(new Set(events.map((event) => event.id)));
  });
});

describe('a bug while an attempt is settled ends the run instead of leaving it stuck', () => {
  it('a throw after the request (here: the jitter source) rejects run() and the lease brings the delivery back', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const { owner } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'payout.sent', { payout_id: randomUUID() });
    const broken = job({
      random: () => {
        throw new Error('jitter source broke');
      },
    });
    // Before the fix this run never settled: the attempt's promise rejected unhandled and the loop waited for it.
    await expect(broken.run()).rejects.toThrow('jitter source broke');
    expect(hook.received).toHaveLength(1);
    const [delivery] = await deliveriesOf(app, event.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 0 });

    // Past the lease, a healthy worker sends it again.
    app.clock.advance(10 * 60_000);
    await drainJob(job());
    expect(hook.received).toHaveLength(2);
  });
});

describe('receiver signals: Retry-After, 410 Gone; endpoints failing for days are disabled', () => {
  it('honours Retry-After, clamped between the schedule and 24 h', async () => {
    const answers: Array<{ status: number; headers?: Record<string, string> }> = [
      { status: 503, headers: { 'retry-after': '120' } },
      { status: 429, headers: { 'retry-after': '1' } },
      { status: 503, headers: { 'retry-after': '9999999' } },
      { status: 200 },
    ];
    const hook = await receiver((_request, index) => answers[index] ?? { status: 200 });
    const { owner } = await shopWithEndpoint(hook.url);
    const event = await emitEvent(app, owner.shop.id, 'transfer.confirmed');
    const worker = job();
    const due = async () => (await deliveriesOf(app, event.id))[0]?.next_attempt_at?.getTime() ?? 0;

    await drainJob(worker);
    expect((await due()) - app.clock.now().getTime()).toBe(120_000);
    app.clock.advance(60_000);
    await drainJob(worker);
    expect(hook.received).toHaveLength(1);
    app.clock.advance(60_000);
    await drainJob(worker);
    expect(hook.received).toHaveLength(2);
    // Retry-After: 1 asks for less than the schedule's 30 s after attempt 2: the schedule wins.
    expect((await due()) - app.clock.now().getTime()).toBe((RETRY_SCHEDULE_SECONDS[2] ?? 0) * 1000);
    app.clock.advance((RETRY_SCHEDULE_SECONDS[2] ?? 0) * 1000);
    await drainJob(worker);
    expect(hook.received).toHaveLength(3);
    // A Retry-After of months is clamped to 24 h.
    expect((await due()) - app.clock.now().getTime()).toBe(24 * 3600 * 1000);
    app.clock.advance(24 * 3600 * 1000);
    await drainJob(worker);
    expect((await deliveriesOf(app, event.id))[0]?.status).toBe('succeeded');
  });

  it('410 Gone disables the endpoint (visible in the list), fails its pending deliveries and stops new ones', async () => {
    const hook = await receiver((_request, index) => (index === 0 ? { status: 410 } : { status: 500 }));
    const { owner, endpoint } = await shopWithEndpoint(hook.url);
    const first = await emitEvent(app, owner.shop.id, 'transfer.confirmed');
    const second = await emitEvent(app, owner.shop.id, 'transfer.confirmed');
    await drainJob(job({ maxInFlight: 1 }));
    expect(hook.received).toHaveLength(1);
    expect((await deliveriesOf(app, first.id))[0]?.status).toBe('failed');
    expect((await deliveriesOf(app, second.id))[0]?.status).toBe('failed');

    const list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.key.token) });
    expect(list.json()[0]).toMatchObject({ id: endpoint.id, enabled: false, disabled_reason: 'gone' });
    expect(list.json()[0].disabled_at).toBe(app.clock.now().toISOString());

    const third = await emitEvent(app, owner.shop.id, 'transfer.confirmed');
    expect(await deliveriesOf(app, third.id)).toEqual([]);
  });

  it('an endpoint failing continuously for five days is disabled with reason failing', async () => {
    const hook = await receiver(() => ({ status: 500 }));
    const { owner, endpoint } = await shopWithEndpoint(hook.url);
    const worker = job();
    const started = app.clock.now();
    await emitEvent(app, owner.shop.id, 'payout.sent');
    // The first event's retries run out after about three days: still enabled.
    await runUntil(app, owner.shop.id, () => drainJob(worker), new Date(started.getTime() + 4 * 24 * 3600 * 1000));
    let list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.key.token) });
    expect(list.json()[0]).toMatchObject({ enabled: true, disabled_reason: null });

    app.clock.set(new Date(started.getTime() + 5 * 24 * 3600 * 1000 + 1000));
    const late = await emitEvent(app, owner.shop.id, 'payout.sent');
    const pendingToo = await emitEvent(app, owner.shop.id, 'payout.confirmed');
    await drainJob(job({ maxInFlight: 1 }));
    list = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/webhooks`, headers: authed(owner.key.token) });
    expect(list.json()[0]).toMatchObject({ id: endpoint.id, enabled: false, disabled_reason: 'failing' });
    expect((await deliveriesOf(app, late.id))[0]?.status).toBe('failed');
    expect((await deliveriesOf(app, pendingToo.id))[0]?.status).toBe('failed');

    // Re-enabling starts afresh.
    const enabled = await app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { enabled: true },
    });
    expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, disabled_at: null });
    const row = await app.context.db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpoint.id).executeTakeFirst();
    expect(row?.failing_since).toBeNull();
  });

  it('a success clears the failure streak', async () => {
    let fail = true;
    const hook = await receiver(() => ({ status: fail ? 500 : 200 }));
    const { owner, endpoint } = await shopWithEndpoint(hook.url);
    await emitEvent(app, owner.shop.id, 'payout.sent');
    const worker = job();
    await drainJob(worker);
    const failing = await app.context.db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpoint.id).executeTakeFirst();
    expect(failing?.failing_since).toEqual(app.clock.now());
    fail = false;
    app.clock.advance(60_000);
    await drainJob(worker);
    const cleared = await app.context.db.selectFrom('webhook_endpoints').select('failing_since').where('id', '=', endpoint.id).executeTakeFirst();
    expect(cleared?.failing_since).toBeNull();
  });
});

describe('SPEC "Events": filters select exactly the right events', () => {
  it('groups and exact names; gas.wait and sweep.failed are accepted and never delivered', async () => {
    const hooks = {
      transfers: await receiver(),
      exact: await receiver(),
      payouts: await receiver(),
      signals: await receiver(),
      mixed: await receiver(),
    };
    const owner = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hooks.transfers.url, ['transfer']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hooks.exact.url, ['invoice.closed', 'payout.failed']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hooks.payouts.url, ['payout']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hooks.signals.url, ['gas.wait', 'sweep.failed']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hooks.mixed.url, ['invoice', 'transfer.reverted', 'gas.wait']);
    const all: EventType[] = [
      'transfer.observed',
      'transfer.confirmed',
      'transfer.reverted',
      'invoice.closed',
      'invoice.cancelled',
      'payout.sent',
      'payout.confirmed',
      'payout.reverted',
      'payout.failed',
    ];
    for (const type of all) await emitEvent(app, owner.shop.id, type);
    await drainJob(job());
    const typesOf = (hook: Receiver) => hook.received.map((request) => JSON.parse(request.body.toString('utf8')).type as string).sort();
    expect(typesOf(hooks.transfers)).toEqual(['transfer.confirmed', 'transfer.observed', 'transfer.reverted']);
    expect(typesOf(hooks.exact)).toEqual(['invoice.closed', 'payout.failed']);
    expect(typesOf(hooks.payouts)).toEqual(['payout.confirmed', 'payout.failed', 'payout.reverted', 'payout.sent']);
    expect(typesOf(hooks.signals)).toEqual([]);
    expect(typesOf(hooks.mixed)).toEqual(['invoice.cancelled', 'invoice.closed', 'transfer.reverted']);
  });

  it('a disabled endpoint gets no deliveries; disabling fails what was pending', async () => {
    const hook = await receiver();
    const { owner, endpoint } = await shopWithEndpoint(hook.url, ['invoice']);
    const pending = await emitEvent(app, owner.shop.id, 'invoice.closed');
    await app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { enabled: false },
    });
    const ignored = await emitEvent(app, owner.shop.id, 'invoice.closed');
    await drainJob(job());
    expect(hook.received).toHaveLength(0);
    expect((await deliveriesOf(app, pending.id))[0]?.status).toBe('failed');
    expect(await deliveriesOf(app, ignored.id)).toEqual([]);
  });
});

describe('SSRF at connect time: a name that resolves to a private address is refused', () => {
  it('records an ESSRF attempt and sends nothing', async () => {
    const strict = await createTestApp();
    try {
      const hook = await receiver();
      const owner = await createOwnerWithShop(strict.context.db);
      // Public-looking at registration; the resolver then answers 127.0.0.1 (DNS rebinding).
      const port = new URL(hook.url).port;
      await registerEndpoint(strict, owner.key.token, owner.shop.id, `https://rebind.example.com:${port}/hook`, ['transfer']);
      const worker = job({ lookup: async () => [{ address: '127.0.0.1', family: 4 }] }, strict);
      await emitEvent(strict, owner.shop.id, 'transfer.confirmed');
      await drainJob(worker);
      expect(hook.received).toHaveLength(0);
      const [attempt] = await strict.context.db.selectFrom('webhook_attempts').selectAll().execute();
      expect(attempt?.status_code).toBeNull();
      expect(attempt?.error).toMatch(/ESSRF/);
    } finally {
      await strict.close();
    }
  });
});

describe('issue item 6: one slow endpoint never delays another (no head-of-line blocking)', () => {
  it('a fast endpoint gets all its deliveries while a hanging one holds only its own slots', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const owner = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, slow.url, ['payout']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, fast.url, ['transfer']);
    // The slow endpoint's deliveries are older, so they are first in line.
    for (let index = 0; index < 8; index += 1) await emitEvent(app, owner.shop.id, 'payout.sent', { n: index });
    for (let index = 0; index < 8; index += 1) await emitEvent(app, owner.shop.id, 'transfer.confirmed', { n: index });
    const worker = job({ maxInFlight: 8, maxInFlightPerEndpoint: 4, attemptTimeoutMs: 1_000 });
    const running = worker.run();
    let slowFinishedWhenFastDone = -1;
    await waitFor(() => {
      if (fast.received.length < 8) return false;
      slowFinishedWhenFastDone = slow.completed;
      return true;
    }, 10_000);
    expect(slowFinishedWhenFastDone).toBe(0);
    expect(slow.received.length).toBeLessThanOrEqual(4);
    expect(await running).toBe(16);
    expect(slow.received).toHaveLength(8);
  });
});

describe('ARCHITECTURE rule 4: two workers draining at once never send a delivery twice', () => {
  it('every event is received exactly once', async () => {
    const hook = await receiver();
    const { owner } = await shopWithEndpoint(hook.url);
    const ids = new Set<string>();
    for (let index = 0; index < 60; index += 1) ids.add((await emitEvent(app, owner.shop.id, 'transfer.confirmed', { n: index })).id);
    const one = job({ maxInFlight: 4 });
    const two = job({ maxInFlight: 4 });
    const handled = await Promise.all([drainJob(one), drainJob(two)]);
    expect(handled[0] + handled[1]).toBe(60);
    const received = hook.received.map((request) => header(request, 'Ivory-Event-ID'));
    expect(received).toHaveLength(60);
    expect(new Set(received)).toEqual(ids);
  });
});
