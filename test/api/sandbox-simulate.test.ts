import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { BASE, BASE_USDC, createInvoice, eventsOf, openInvoice, pay, payoutsOf, read, simulate, storedCounts, usdc } from './issuances-helpers.js';

// SPEC "Sandbox" (simulate: kinds, empty body, idempotency, internal signals send no webhook),
// "Limits" (10,000 tokens per simulated transfer), LEDGER "Sandbox".

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

async function fundedInvoice() {
  const owner = await createOwnerWithShop(app.context.db);
  const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
  const paid = await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(100));
  return { owner, id: invoice.id as string, paid, token: owner.key.token, shopId: owner.shop.id };
}

describe('POST sandbox/simulate: the internal signals', () => {
  it('gas.wait and sweep.failed change the scheduled payout only: no event, no webhook delivery', async () => {
    const { id, token, shopId } = await fundedInvoice();
    const before = await storedCounts(app, shopId);
    const deliveries = async () =>
      Number((await app.context.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<string>().as('n')).where('shop_id', '=', shopId).executeTakeFirstOrThrow()).n);
    const deliveriesBefore = await deliveries();

    const wait = await simulate(app, token, shopId, { issuance_id: id, kind: 'gas.wait', amount: '0' });
    expect(wait.statusCode).toBe(200);
    expect(wait.json()).toMatchObject({ kind: 'gas.wait', event_id: null, payout: { status: 'waiting_gas', attempts: 0 } });
    expect((await payoutsOf(app, id))[0]?.status).toBe('waiting_gas');

    const failed = await simulate(app, token, shopId, { issuance_id: id, kind: 'sweep.failed', amount: '0' });
    expect(failed.json()).toMatchObject({ event_id: null, payout: { status: 'scheduled', attempts: 1 } });
    expect((await payoutsOf(app, id))[0]).toMatchObject({ status: 'scheduled', attempts: 1, next_attempt_at: null });

    expect(await storedCounts(app, shopId)).toEqual(before);
    expect(await deliveries()).toBe(deliveriesBefore);
    expect((await read(app, token, shopId, id)).status).toBe('funded');
  });

  it('without a scheduled payout they are invalid_simulation', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    for (const kind of ['gas.wait', 'sweep.failed']) {
      const response = await simulate(app, owner.key.token, owner.shop.id, { issuance_id: invoice.id, kind, amount: '0' });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_simulation');
    }
  });
});

describe('POST sandbox/simulate: refusals, nothing stored', () => {
  it.each([
    ['an empty body', {}, 400, 'invalid_request'],
    ['no kind', { amount: '1' }, 400, 'invalid_request'],
    ['an unknown kind', { kind: 'transfer.observed', amount: '1' }, 400, 'invalid_simulation'],
    ['an amount that is not base units', { kind: 'transfer.confirmed', amount: '1.5' }, 400, 'invalid_amount'],
    ['a zero transfer', { kind: 'transfer.confirmed', amount: '0' }, 400, 'invalid_amount'],
    ['more than 10,000 tokens', { kind: 'transfer.confirmed', amount: usdc(10_000.000001) }, 400, 'sandbox_amount_limit'],
    ['invoice.closed on an open invoice', { kind: 'invoice.closed', amount: '0' }, 400, 'invalid_simulation'],
    ['invoice.closed with an amount', { kind: 'invoice.closed', amount: '5' }, 400, 'invalid_amount'],
    ['transfer.reverted without reference_event_id', { kind: 'transfer.reverted', amount: '0' }, 400, 'invalid_simulation'],
    ['transfer.reverted of an unknown event', { kind: 'transfer.reverted', amount: '0', reference_event_id: crypto.randomUUID() }, 400, 'invalid_simulation'],
    ['an unknown field', { kind: 'transfer.confirmed', amount: '1', extra: 1 }, 400, 'invalid_json'],
  ])('%s → %i %s', async (_name, body, status, code) => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const before = await storedCounts(app, owner.shop.id);
    const payload = 'kind' in body || 'amount' in body ? { issuance_id: invoice.id, ...body } : body;
    const response = await simulate(app, owner.key.token, owner.shop.id, payload);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json().error.code).toBe(code);
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
  });

  it('no body at all fails (SPEC: an empty body fails)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await app.request({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/sandbox/simulate`,
      headers: { ...authed(owner.key.token, newIdempotencyKey()), 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_json');
  });

  it('a transfer to an issuance still registering (no address yet) is invalid_simulation', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = (await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) })).json();
    const response = await simulate(app, owner.key.token, owner.shop.id, { issuance_id: created.id, kind: 'transfer.confirmed', amount: usdc(10) });
    expect(response.json().error.code).toBe('invalid_simulation');
  });

  it('an unknown issuance is 404 not_found; another shop’s too', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const other = await fundedInvoice();
    for (const id of [crypto.randomUUID(), 'not-a-uuid', other.id]) {
      const response = await simulate(app, owner.key.token, owner.shop.id, { issuance_id: id, kind: 'transfer.confirmed', amount: '1' });
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
  });

  it('a reversal referencing another issuance’s event, or reverted twice, is invalid_simulation', async () => {
    const first = await fundedInvoice();
    const second = await openInvoice(app, first.token, first.shopId, usdc(50));
    const wrong = await simulate(app, first.token, first.shopId, { issuance_id: second.id, kind: 'transfer.reverted', amount: '0', reference_event_id: first.paid.event_id });
    expect(wrong.json().error.code).toBe('invalid_simulation');
    const once = await simulate(app, first.token, first.shopId, { issuance_id: first.id, kind: 'transfer.reverted', amount: '0', reference_event_id: first.paid.event_id });
    expect(once.statusCode).toBe(200);
    const twice = await simulate(app, first.token, first.shopId, { issuance_id: first.id, kind: 'transfer.reverted', amount: '0', reference_event_id: first.paid.event_id });
    expect(twice.json().error.code).toBe('invalid_simulation');
    const partial = await fundedInvoice();
    const wrongAmount = await simulate(app, partial.token, partial.shopId, { issuance_id: partial.id, kind: 'transfer.reverted', amount: '1', reference_event_id: partial.paid.event_id });
    expect(wrongAmount.json().error.code).toBe('invalid_amount');
  });

  it('a live shop is forbidden (real money is never simulated)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const live = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const key = await createApiKey(app.context.db, { id: live.id, merchantId: owner.merchant.id });
    const response = await simulate(app, key.token, live.id, { issuance_id: crypto.randomUUID(), kind: 'transfer.confirmed', amount: '1' });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
  });

  it('a read-only key may not simulate', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const reader = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const response = await simulate(app, reader.token, owner.shop.id, { issuance_id: crypto.randomUUID(), kind: 'transfer.confirmed', amount: '1' });
    expect(response.statusCode).toBe(403);
  });
});

describe('POST sandbox/simulate: kind, as documented and as answered (issue 20)', () => {
  it('the OpenAPI document lists SPEC\'s five kinds as an enum; each is taken, any other is still 400 invalid_simulation', async () => {
    const document = (await app.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    const body = document.paths['/shops/{shop_id}/sandbox/simulate'].post.requestBody.content['application/json'].schema;
    const kinds = body.properties.kind.enum as string[];
    expect(kinds).toEqual(['transfer.confirmed', 'invoice.closed', 'transfer.reverted', 'gas.wait', 'sweep.failed']);
    expect(body.properties.kind.type).toBe('string');

    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    for (const kind of kinds) {
      // Amount "0" is refused by transfer.confirmed and the rest need a state this invoice is not in:
      // whatever the refusal, it is never the unknown kind's.
      const response = await simulate(app, owner.key.token, owner.shop.id, { issuance_id: invoice.id, kind, amount: '0' });
      expect(response.statusCode, kind).toBe(400);
      expect(response.json().error.details?.reason, kind).not.toBe('unknown_kind');
    }
    for (const kind of ['transfer.observed', 'TRANSFER.CONFIRMED', '', 'payout.confirmed']) {
      const response = await simulate(app, owner.key.token, owner.shop.id, { issuance_id: invoice.id, kind, amount: '0' });
      expect(response.statusCode, kind).toBe(400);
      expect(response.json().error, kind).toMatchObject({ code: 'invalid_simulation', details: { reason: 'unknown_kind' } });
    }
  });
});

describe('POST sandbox/simulate: idempotency', () => {
  it('the same key repeats the stored answer and inserts nothing more; each new event needs a new key', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const key = newIdempotencyKey();
    const body = { issuance_id: invoice.id, kind: 'transfer.confirmed', amount: usdc(10) };
    const first = await simulate(app, owner.key.token, owner.shop.id, body, key);
    const again = await simulate(app, owner.key.token, owner.shop.id, body, key);
    expect(again.json()).toEqual(first.json());
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).received).toBe(usdc(10));
    await simulate(app, owner.key.token, owner.shop.id, body);
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).received).toBe(usdc(20));
    expect(await eventsOf(app, invoice.id)).toHaveLength(2);
  });
});
