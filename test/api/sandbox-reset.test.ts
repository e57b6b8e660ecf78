import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createShop } from '../support/factories.js';
import { BASE, BASE_USDC, createDeposit, createGrantedSession, createInvoice, openInvoice, pay, storedCounts, usdc } from './issuances-helpers.js';

// SPEC "Sandbox": POST sandbox/reset (S owner, I) deletes sandbox payment history; earlier
// idempotency keys keep their stored results.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function reset(token: string, shopId: string, key = newIdempotencyKey()) {
  return app.request({ method: 'POST', url: `/api/v1/shops/${shopId}/sandbox/reset`, headers: authed(token, key) });
}

describe('POST sandbox/reset', () => {
  it('deletes issuances, groups, transfers, payouts, their events and deliveries; idempotency records stay', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    await app.context.db
      .insertInto('webhook_endpoints')
      .values({ id: crypto.randomUUID(), shop_id: owner.shop.id, url: 'https://hooks.example.com/x', filters: JSON.stringify(['transfer', 'invoice']), secret_sealed: app.context.secrets.seal('whsec_x') })
      .execute();
    const createKey = newIdempotencyKey();
    const created = await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }, createKey);
    const invoice = await openInvoice(app, token, owner.shop.id, usdc(10));
    await pay(app, token, owner.shop.id, invoice.id, usdc(10));
    await createInvoice(app, token, owner.shop.id, { assets: [{ chain_id: BASE, token: BASE_USDC }], amount: '10' });
    await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect((await storedCounts(app, owner.shop.id)).events).toBeGreaterThan(0);

    const response = await reset(owner.session.token, owner.shop.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ reset: true });
    expect(await storedCounts(app, owner.shop.id)).toEqual({ issuances: 0, groups: 0, transfers: 0, payouts: 0, events: 0 });
    const deliveries = await app.context.db.selectFrom('webhook_deliveries').select('id').where('shop_id', '=', owner.shop.id).execute();
    expect(deliveries).toEqual([]);

    // The earlier key still answers its stored result.
    const replay = await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }, createKey);
    expect(replay.json()).toEqual(created.json());
    expect((await storedCounts(app, owner.shop.id)).issuances).toBe(0);
  });

  it('needs an owner session: API keys and developers are refused; a live shop is forbidden', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const byKey = await reset(owner.key.token, owner.shop.id);
    expect(byKey.statusCode).toBe(403);
    const developer = await createGrantedSession(app, owner.merchant.id, 'developer');
    const byDeveloper = await reset(developer.token, owner.shop.id);
    expect(byDeveloper.statusCode).toBe(403);
    expect(byDeveloper.json().error.code).toBe('forbidden');
    const live = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const byLive = await reset(owner.session.token, live.id);
    expect(byLive.statusCode).toBe(403);
    expect(byLive.json().error.code).toBe('forbidden');
    const missingKey = await app.request({ method: 'POST', url: `/api/v1/shops/${owner.shop.id}/sandbox/reset`, headers: authed(owner.session.token) });
    expect(missingKey.json().error.code).toBe('idempotency_key_required');
  });
});
