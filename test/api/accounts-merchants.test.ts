import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createMerchant, createOwnerWithShop, createShop } from '../support/factories.js';
import { onboard, signInWithWallet } from '../support/wallet.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function listMerchants(token: string) {
  return app.request({ method: 'GET', url: '/api/v1/merchants', headers: authed(token) });
}

async function merchantCount(): Promise<number> {
  const row = await app.context.db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

describe('SPEC "Merchants and team" GET /merchants', () => {
  it('answers [] to a user without merchants', async () => {
    const { token } = await signInWithWallet(app);
    const response = await listMerchants(token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('lists the onboarded merchant with role, limits and the project_* aliases', async () => {
    const { token } = await signInWithWallet(app);
    await onboard(app, token, 'Acme');
    const response = await listMerchants(token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { id: expect.any(String), name: 'Acme', role: 'owner', shop_limit: 20, shop_count: 0, project_limit: 20, project_count: 0 },
    ]);
  });

  it('counts active shops only', async () => {
    const { token, userId } = await signInWithWallet(app);
    const merchant = await createMerchant(app.context.db, userId);
    await createShop(app.context.db, merchant.id, { sandbox: true });
    await createShop(app.context.db, merchant.id, { sandbox: false });
    const archived = await createShop(app.context.db, merchant.id, { sandbox: false });
    await app.context.db.updateTable('shops').set({ archived_at: app.clock.now() }).where('id', '=', archived.id).execute();
    const [listed] = (await listMerchants(token)).json<{ shop_count: number; project_count: number }[]>();
    expect(listed?.shop_count).toBe(2);
    expect(listed?.project_count).toBe(2);
  });

  it('lists every merchant the user holds grants on, once each, preferring the merchant-wide grant', async () => {
    const { token, userId } = await signInWithWallet(app);
    const owner = await signInWithWallet(app);
    const wide = await createMerchant(app.context.db, owner.userId, { name: 'Wide' });
    const wideShop = await createShop(app.context.db, wide.id);
    await app.context.db
      .insertInto('grants')
      .values([
        { id: newId(), merchant_id: wide.id, user_id: userId, role: 'owner', shop_id: wideShop.id },
        { id: newId(), merchant_id: wide.id, user_id: userId, role: 'viewer', shop_id: null },
      ])
      .execute();
    const shopsOnly = await createMerchant(app.context.db, owner.userId, { name: 'Shops only' });
    const first = await createShop(app.context.db, shopsOnly.id, { sandbox: true });
    const second = await createShop(app.context.db, shopsOnly.id, { sandbox: false });
    await app.context.db
      .insertInto('grants')
      .values([
        { id: newId(), merchant_id: shopsOnly.id, user_id: userId, role: 'viewer', shop_id: first.id },
        { id: newId(), merchant_id: shopsOnly.id, user_id: userId, role: 'developer', shop_id: second.id },
      ])
      .execute();

    const listed = (await listMerchants(token)).json<{ id: string; name: string; role: string }[]>();
    expect(listed.map(({ id, name, role }) => ({ id, name, role }))).toEqual([
      { id: wide.id, name: 'Wide', role: 'viewer' },
      { id: shopsOnly.id, name: 'Shops only', role: 'developer' },
    ]);
    // The other owner's list is untouched by these grants.
    expect((await listMerchants(owner.token)).json<{ role: string }[]>().map((merchant) => merchant.role)).toEqual(['owner', 'owner']);
  });

  it('shows an API key only its own merchant, with role developer', async () => {
    const mine = await createOwnerWithShop(app.context.db);
    await createOwnerWithShop(app.context.db);
    await createMerchant(app.context.db, mine.user.id, { name: 'Another of the same owner' });
    const response = await listMerchants(mine.key.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([
      { id: mine.merchant.id, name: 'Test merchant', role: 'developer', shop_limit: 20, shop_count: 1, project_limit: 20, project_count: 1 },
    ]);
  });

  it('needs the exact read scope: a write-only key gets 403 forbidden', async () => {
    const { shop, merchant } = await createOwnerWithShop(app.context.db);
    const writeOnly = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id }, { scopes: ['write'] });
    const response = await listMerchants(writeOnly.token);
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
    const readOnly = await createApiKey(app.context.db, { id: shop.id, merchantId: merchant.id }, { scopes: ['read'] });
    expect((await listMerchants(readOnly.token)).statusCode).toBe(200);
  });

  it('answers 401 without a credential', async () => {
    const response = await app.request({ method: 'GET', url: '/api/v1/merchants' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });
});

describe('SPEC "Merchants and team" POST /merchants: always 403 forbidden', () => {
  it.each([
    ['no body', {}],
    ['a JSON body', { payload: { name: 'New merchant' } }],
    ['an Idempotency-Key and a body', { payload: { name: 'New merchant' }, idempotent: true }],
    ['malformed JSON', { headers: { 'content-type': 'application/json' }, payload: '{nope' }],
    ['a foreign content type', { headers: { 'content-type': 'text/csv' }, payload: 'a,b' }],
  ])('answers a session with %s 403 forbidden and creates nothing', async (_label, options) => {
    const { token } = await signInWithWallet(app);
    const before = await merchantCount();
    const response = await app.request({
      method: 'POST',
      url: '/api/v1/merchants',
      headers: { ...authed(token, 'idempotent' in options ? newIdempotencyKey() : undefined), ...('headers' in options ? options.headers : {}) },
      ...('payload' in options ? { payload: options.payload } : {}),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { code: 'forbidden', message: 'forbidden' } });
    expect(await merchantCount()).toBe(before);
  });

  it('answers an API key 403 forbidden', async () => {
    const { key } = await createOwnerWithShop(app.context.db);
    const response = await app.request({ method: 'POST', url: '/api/v1/merchants', headers: authed(key.token), payload: { name: 'x' } });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('forbidden');
  });

  it('checks credentials first: 401 without one', async () => {
    const response = await app.request({ method: 'POST', url: '/api/v1/merchants', payload: { name: 'x' } });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('unauthorized');
  });
});
