import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { authed, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import {
  countRows,
  deliveriesOf,
  drainJob,
  emitEvent,
  header,
  nextDue,
  registerEndpoint,
  useWebhookTestApp,
} from './webhooks-helpers.js';

// SPEC "Webhooks": GET /shops/{shop_id}/deliveries (shop access) and
// POST /shops/{shop_id}/deliveries/{id}/replay (I: the stored bytes, the same
// event id, no new business event); the events list and windowed
// recovery.

let app: TestApp;
const { receiver, job } = useWebhookTestApp((started) => (app = started));

function get(token: string, url: string) {
  return app.request({ method: 'GET', url: `/api/v1${url}`, headers: authed(token) });
}

function post(token: string, url: string, payload?: Record<string, unknown>, key = newIdempotencyKey()) {
  return app.request({ method: 'POST', url: `/api/v1${url}`, headers: authed(token, key), ...(payload === undefined ? {} : { payload }) });
}

describe('SPEC "Webhooks": GET /shops/{shop_id}/deliveries', () => {
  it('lists newest first with attempts (time, status code, latency, error, excerpt) and filters by event, endpoint, status', async () => {
    const ok = await receiver(() => ({ status: 200, body: 'stored, thanks' }));
    const broken = await receiver(() => ({ status: 500, body: 'boom' }));
    const owner = await createOwnerWithShop(app.context.db);
    const good = await registerEndpoint(app, owner.key.token, owner.shop.id, ok.url, ['transfer']);
    const bad = await registerEndpoint(app, owner.key.token, owner.shop.id, broken.url, ['transfer']);
    const first = await emitEvent(app, owner.shop.id, 'transfer.observed');
    app.clock.advance(1000);
    const second = await emitEvent(app, owner.shop.id, 'transfer.confirmed');
    await drainJob(job());

    const all = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries`);
    expect(all.statusCode).toBe(200);
    const body = all.json();
    expect(body.next_cursor).toBeNull();
    expect(body.data).toHaveLength(4);
    expect(body.data.slice(0, 2).map((delivery: { event_id: string }) => delivery.event_id)).toEqual([second.id, second.id]);
    expect(body.data.slice(2).map((delivery: { event_id: string }) => delivery.event_id)).toEqual([first.id, first.id]);

    const failing = body.data.find((delivery: { endpoint_id: string; event_id: string }) => delivery.endpoint_id === bad.id && delivery.event_id === first.id);
    expect(failing).toMatchObject({ status: 'pending', event_type: 'transfer.observed', attempt_count: 1 });
    expect(failing.next_attempt_at).not.toBeNull();
    expect(failing.attempts).toHaveLength(1);
    expect(failing.attempts[0]).toMatchObject({ status_code: 500, error: null, response_excerpt: 'boom' });
    expect(failing.attempts[0].attempt_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(failing.attempts[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(failing.attempts[0].started_at).toBe(app.clock.now().toISOString());

    const byEndpoint = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?endpoint_id=${good.id}`);
    expect(byEndpoint.json().data.map((delivery: { status: string }) => delivery.status)).toEqual(['succeeded', 'succeeded']);
    expect(byEndpoint.json().data[0].attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'stored, thanks' });
    const byEvent = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?event_id=${first.id}`);
    expect(byEvent.json().data).toHaveLength(2);
    const byStatus = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?status=pending&event_id=${second.id}`);
    expect(byStatus.json().data).toHaveLength(1);
    expect(byStatus.json().data[0].endpoint_id).toBe(bad.id);
  });

  it('pages with an opaque cursor: every delivery exactly once, newest first', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, 'https://hooks.example.com/a', ['invoice']);
    const ids: string[] = [];
    for (let index = 0; index < 7; index += 1) {
      ids.push((await emitEvent(app, owner.shop.id, 'invoice.closed', { n: index })).id);
      if (index % 2 === 0) app.clock.advance(1000); // some share a created_at, some do not
    }
    const seen: string[] = [];
    const times: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? 'limit=3' : `limit=3&cursor=${cursor}`;
      const page = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?${query}`);
      expect(page.statusCode).toBe(200);
      for (const delivery of page.json().data as Array<{ event_id: string; created_at: string }>) {
        seen.push(delivery.event_id);
        times.push(Date.parse(delivery.created_at));
      }
      cursor = page.json().next_cursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(seen.at(-1)).toBe(ids[0]);
  });

  it('refuses bad query values with invalid_request or invalid_cursor', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (const [query, code] of [
      ['limit=0', 'invalid_request'],
      ['limit=101', 'invalid_request'],
      ['limit=ten', 'invalid_request'],
      ['status=done', 'invalid_request'],
      ['event_id=nope', 'invalid_request'],
      ['endpoint_id=1', 'invalid_request'],
      ['cursor=garbage', 'invalid_cursor'],
      [`cursor=${Buffer.from('["x","y"]').toString('base64url')}`, 'invalid_cursor'],
    ] as const) {
      const response = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code, query).toBe(code);
    }
  });

  it("never shows another shop's deliveries", async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const other = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, other.key.token, other.shop.id, 'https://hooks.example.com/other', ['payout']);
    const event = await emitEvent(app, other.shop.id, 'payout.sent');
    const mine = await get(owner.key.token, `/shops/${owner.shop.id}/deliveries?event_id=${event.id}`);
    expect(mine.json().data).toEqual([]);
    const theirs = await get(owner.key.token, `/shops/${other.shop.id}/deliveries`);
    expect(theirs.statusCode).toBe(404); // another merchant's shop: as if absent (decision 0016)
  });
});

describe('SPEC "Webhooks": POST /shops/{shop_id}/deliveries/{id}/replay', () => {
  it('resends the stored bytes with the same event id and a new attempt id; creates no event', async () => {
    const hook = await receiver();
    const owner = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hook.url, ['payout']);
    const event = await emitEvent(app, owner.shop.id, 'payout.confirmed', { payout_id: randomUUID() }, randomUUID());
    await drainJob(job());
    const [delivery] = await deliveriesOf(app, event.id);
    const eventsBefore = await countRows(app.context.db, 'events');

    const replay = await post(owner.key.token, `/shops/${owner.shop.id}/deliveries/${delivery?.id}/replay`);
    expect(replay.statusCode).toBe(202);
    expect(replay.json()).toMatchObject({ id: delivery?.id, event_id: event.id, status: 'pending', attempt_count: 1 });
    expect(replay.json().attempts).toHaveLength(1);
    // The request itself sends nothing (ARCHITECTURE rule 1): the worker does.
    expect(hook.received).toHaveLength(1);
    await drainJob(job());
    expect(hook.received).toHaveLength(2);
    const [original, resent] = hook.received;
    if (original === undefined || resent === undefined) throw new Error('missing requests');
    expect(resent.body.equals(original.body)).toBe(true);
    expect(resent.body.toString('utf8')).toBe(event.bytes);
    expect(header(resent, 'Ivory-Event-ID')).toBe(event.id);
    expect(header(resent, 'webhook-id')).toBe(event.id);
    expect(header(resent, 'Ivory-Attempt-ID')).not.toBe(header(original, 'Ivory-Attempt-ID'));
    expect(await countRows(app.context.db, 'events')).toBe(eventsBefore);
    expect((await deliveriesOf(app, event.id))[0]).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('is idempotent, needs write access, and answers not_found for unknown deliveries', async () => {
    const hook = await receiver();
    const owner = await createOwnerWithShop(app.context.db);
    const other = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, hook.url, ['invoice']);
    const event = await emitEvent(app, owner.shop.id, 'invoice.cancelled', { reason: 'expired' });
    await drainJob(job());
    const [delivery] = await deliveriesOf(app, event.id);
    const path = `/shops/${owner.shop.id}/deliveries/${delivery?.id}/replay`;

    const key = newIdempotencyKey();
    expect((await post(owner.session.token, path, undefined, key)).statusCode).toBe(202);
    expect((await post(owner.session.token, path, undefined, key)).statusCode).toBe(202);
    await drainJob(job());
    expect(hook.received).toHaveLength(2); // one replay, not two

    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    expect((await post(readKey.token, path)).statusCode).toBe(403);
    expect((await post(other.key.token, path)).statusCode).toBe(404); // another merchant's shop: as if absent (decision 0016)
    const foreign = await post(other.key.token, `/shops/${other.shop.id}/deliveries/${delivery?.id}/replay`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const unknown = await post(owner.key.token, `/shops/${owner.shop.id}/deliveries/${id}/replay`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('not_found');
    }
    const missingKey = await app.request({ method: 'POST', url: `/api/v1${path}`, headers: authed(owner.key.token) });
    expect(missingKey.json().error.code).toBe('idempotency_key_required');
    await drainJob(job());
    expect(hook.received).toHaveLength(2);
  });

  it('refuses a replay to a disabled endpoint with invalid_state, queueing nothing', async () => {
    const hook = await receiver();
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, hook.url, ['invoice']);
    const event = await emitEvent(app, owner.shop.id, 'invoice.closed');
    await drainJob(job());
    await app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${owner.shop.id}/webhooks/${endpoint.id}`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { enabled: false },
    });
    const [delivery] = await deliveriesOf(app, event.id);
    const replay = await post(owner.key.token, `/shops/${owner.shop.id}/deliveries/${delivery?.id}/replay`);
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toMatchObject({ code: 'invalid_state', details: { reason: 'endpoint_disabled' } });
    expect((await deliveriesOf(app, event.id))[0]?.status).toBe('succeeded');
  });
});

describe('windowed recovery: POST /shops/{shop_id}/webhooks/{id}/recover {since}', () => {
  it('re-queues the failed deliveries of that endpoint since the time given, and only those', async () => {
    let up = false;
    const hook = await receiver(() => ({ status: up ? 200 : 500 }));
    const other = await receiver(() => ({ status: 500 }));
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, hook.url, ['transfer']);
    const otherEndpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, other.url, ['transfer']);
    const old = await emitEvent(app, owner.shop.id, 'transfer.confirmed', { n: 'old' });
    app.clock.advance(3600 * 1000);
    const since = app.clock.now();
    const recent = await emitEvent(app, owner.shop.id, 'transfer.confirmed', { n: 'recent' });
    const worker = job();
    // Run every retry to the end: all four deliveries fail.
    for (let due = await nextDue(app, owner.shop.id); due !== undefined; due = await nextDue(app, owner.shop.id)) {
      if (due > app.clock.now()) app.clock.set(due);
      await drainJob(worker);
    }
    for (const event of [old, recent]) {
      expect((await deliveriesOf(app, event.id)).map((delivery) => delivery.status)).toEqual(['failed', 'failed']);
    }

    up = true;
    const recover = await post(owner.key.token, `/shops/${owner.shop.id}/webhooks/${endpoint.id}/recover`, { since: since.toISOString() });
    expect(recover.statusCode).toBe(202);
    expect(recover.json()).toEqual({ endpoint_id: endpoint.id, since: since.toISOString(), requeued: 1 });
    const receivedBefore = hook.received.length;
    await drainJob(worker);
    expect(hook.received).toHaveLength(receivedBefore + 1);
    expect(header(hook.received.at(-1)!, 'Ivory-Event-ID')).toBe(recent.id);
    const statusOf = async (eventId: string, endpointId: string) =>
      (await deliveriesOf(app, eventId)).find((delivery) => delivery.endpoint_id === endpointId)?.status;
    expect(await statusOf(recent.id, endpoint.id)).toBe('succeeded');
    expect(await statusOf(old.id, endpoint.id)).toBe('failed');
    expect(await statusOf(recent.id, otherEndpoint.id)).toBe('failed');

    // Recovering again finds nothing failed in the window.
    const again = await post(owner.key.token, `/shops/${owner.shop.id}/webhooks/${endpoint.id}/recover`, { since: since.toISOString() });
    expect(again.json().requeued).toBe(0);
  });

  it('refuses a bad since with invalid_request and an unknown endpoint with not_found', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const endpoint = await registerEndpoint(app, owner.key.token, owner.shop.id, 'https://hooks.example.com/r', ['transfer']);
    for (const payload of [{ since: 'yesterday' }, { since: '2026-01-01' }, { since: 5 }, {}, { since: '2026-01-01T00:00:00Z', extra: 1 }]) {
      const response = await post(owner.key.token, `/shops/${owner.shop.id}/webhooks/${endpoint.id}/recover`, payload);
      expect(response.statusCode, JSON.stringify(payload)).toBe(400);
      expect(['invalid_request', 'invalid_json']).toContain(response.json().error.code);
    }
    const unknown = await post(owner.key.token, `/shops/${owner.shop.id}/webhooks/${randomUUID()}/recover`, { since: '2026-01-01T00:00:00Z' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });
});

describe('GET /shops/{shop_id}/events: the events list', () => {
  it('lists newest first with delivery counts; filters by type, group and delivery status; pages by cursor', async () => {
    const ok = await receiver();
    const broken = await receiver(() => ({ status: 500 }));
    const owner = await createOwnerWithShop(app.context.db);
    await registerEndpoint(app, owner.key.token, owner.shop.id, ok.url, ['transfer', 'invoice']);
    await registerEndpoint(app, owner.key.token, owner.shop.id, broken.url, ['invoice']);
    const transfer = await emitEvent(app, owner.shop.id, 'transfer.confirmed', { issuance_id: 'x' });
    const invoice = await emitEvent(app, owner.shop.id, 'invoice.closed');
    const payout = await emitEvent(app, owner.shop.id, 'payout.sent');
    await drainJob(job());
    // A month later the events are still listed.
    app.clock.advance(35 * 24 * 3600 * 1000);

    const all = await get(owner.key.token, `/shops/${owner.shop.id}/events`);
    expect(all.statusCode).toBe(200);
    expect(all.json().data.map((event: { id: string }) => event.id)).toEqual([payout.id, invoice.id, transfer.id]);
    expect(all.json().data[2]).toMatchObject({
      id: transfer.id,
      type: 'transfer.confirmed',
      data: { issuance_id: 'x' },
      deliveries: { pending: 0, succeeded: 1, failed: 0 },
    });
    expect(all.json().data[0].deliveries).toEqual({ pending: 0, succeeded: 0, failed: 0 });
    expect(all.json().data[1].deliveries).toEqual({ pending: 1, succeeded: 1, failed: 0 });

    const byType = await get(owner.key.token, `/shops/${owner.shop.id}/events?type=invoice.closed`);
    expect(byType.json().data.map((event: { id: string }) => event.id)).toEqual([invoice.id]);
    const byGroup = await get(owner.key.token, `/shops/${owner.shop.id}/events?type=transfer`);
    expect(byGroup.json().data.map((event: { id: string }) => event.id)).toEqual([transfer.id]);
    const undelivered = await get(owner.key.token, `/shops/${owner.shop.id}/events?delivery_status=pending`);
    expect(undelivered.json().data.map((event: { id: string }) => event.id)).toEqual([invoice.id]);
    const delivered = await get(owner.key.token, `/shops/${owner.shop.id}/events?delivery_status=succeeded`);
    expect(delivered.json().data.map((event: { id: string }) => event.id)).toEqual([invoice.id, transfer.id]);

    const firstPage = await get(owner.key.token, `/shops/${owner.shop.id}/events?limit=2`);
    expect(firstPage.json().data).toHaveLength(2);
    const secondPage = await get(owner.key.token, `/shops/${owner.shop.id}/events?limit=2&cursor=${firstPage.json().next_cursor}`);
    expect(secondPage.json().data.map((event: { id: string }) => event.id)).toEqual([transfer.id]);
    expect(secondPage.json().next_cursor).toBeNull();

    for (const query of ['type=gas.wait', 'type=nope', 'delivery_status=ok', 'cursor=abc', 'limit=1000']) {
      const response = await get(owner.key.token, `/shops/${owner.shop.id}/events?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(['invalid_request', 'invalid_cursor']).toContain(response.json().error.code);
    }
  });
});
