import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireMerchantAccess, requireShopAccess } from '../../src/merchants/index.js';
import { newId } from '../../src/platform/crypto.js';
import { IvoryError } from '../../src/platform/errors.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createApiKey, createMerchant, createOwnerWithShop, createSession, createShop, createUser } from '../support/factories.js';
import { errorCode, json, keyPrincipal, member, sessionPrincipal } from './merchants-helpers.js';

async function codeOf(promise: Promise<unknown>): Promise<{ code: string; details: unknown } | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (error instanceof IvoryError) return { code: error.code, details: error.details };
    throw error;
  }
}

// ARCHITECTURE "Data rules": one helper scopes every shop request; SPEC
// "Authentication" 3 and 8, "Errors" (onboarding_required, shop_not_found,
// shop_archived, account_disabled).
describe('requireShopAccess / requireMerchantAccess', () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
  let liveShop: { id: string };

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createOwnerWithShop(app.context.db);
    liveShop = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
  });
  afterAll(async () => {
    await app.close();
  });

  const db = () => app.context.db;

  it('roles: viewer reads only, developer reads and writes, owner does everything (SPEC "Authentication" 8)', async () => {
    const expected = {
      viewer: { read: 'ok', write: 'forbidden', owner: 'forbidden' },
      developer: { read: 'ok', write: 'ok', owner: 'forbidden' },
      owner: { read: 'ok', write: 'ok', owner: 'ok' },
    } as const;
    for (const role of ['viewer', 'developer', 'owner'] as const) {
      for (const scope of ['merchant', 'shop'] as const) {
        const person = await member(db(), owner.merchant.id, role, scope === 'shop' ? owner.shop.id : null);
        for (const need of ['read', 'write', 'owner'] as const) {
          const outcome = await codeOf(requireShopAccess(db(), sessionPrincipal(person.userId), owner.shop.id, need));
          const wanted = expected[role][need];
          expect(outcome === 'ok' ? 'ok' : outcome.code, `${role}/${scope}/${need}`).toBe(wanted);
        }
      }
    }
  });

  it('returns the shop row, merchant id and role', async () => {
    const access = await requireShopAccess(db(), sessionPrincipal(owner.user.id), owner.shop.id, 'owner');
    expect(access.shop.id).toBe(owner.shop.id);
    expect(access.merchantId).toBe(owner.merchant.id);
    expect(access.role).toBe('owner');
    const keyed = await requireShopAccess(db(), keyPrincipal(owner.shop.id, owner.merchant.id), owner.shop.id, 'write');
    expect(keyed.role).toBeNull();
  });

  it('the highest of a merchant-wide and a shop grant counts for that shop only', async () => {
    const person = await member(db(), owner.merchant.id, 'viewer');
    await app.context.db
      .insertInto('grants')
      .values({ id: newId(), merchant_id: owner.merchant.id, user_id: person.userId, role: 'owner', shop_id: liveShop.id })
      .execute();
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(person.userId), liveShop.id, 'owner'))).toBe('ok');
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(person.userId), owner.shop.id, 'write'))).toMatchObject({ code: 'forbidden' });
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(person.userId), owner.merchant.id, 'owner'))).toMatchObject({
      code: 'forbidden',
    });
  });

  it('a shop-scoped grant does not reach the other shops of the merchant: 404 shop_not_found', async () => {
    const person = await member(db(), owner.merchant.id, 'owner', owner.shop.id);
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(person.userId), liveShop.id, 'read'))).toMatchObject({ code: 'shop_not_found' });
  });

  it("another merchant's user gets 404 shop_not_found, never a hint that the shop exists", async () => {
    const stranger = await createOwnerWithShop(db());
    for (const need of ['read', 'write', 'owner'] as const) {
      expect(await codeOf(requireShopAccess(db(), sessionPrincipal(stranger.user.id), owner.shop.id, need))).toMatchObject({ code: 'shop_not_found' });
    }
  });

  it('unknown and malformed shop ids are 404 shop_not_found for sessions and keys', async () => {
    for (const shopId of [newId(), 'not-a-uuid', '', "1' or '1'='1"]) {
      expect(await codeOf(requireShopAccess(db(), sessionPrincipal(owner.user.id), shopId, 'read'))).toMatchObject({ code: 'shop_not_found' });
      expect(await codeOf(requireShopAccess(db(), keyPrincipal(owner.shop.id, owner.merchant.id), shopId, 'read'))).toMatchObject({
        code: 'shop_not_found',
      });
    }
  });

  it("an API key reaches only its own shop (403 forbidden on its merchant's other shops, 404 shop_not_found on other merchants') and is never an owner", async () => {
    const key = keyPrincipal(owner.shop.id, owner.merchant.id);
    expect(await codeOf(requireShopAccess(db(), key, liveShop.id, 'read'))).toMatchObject({ code: 'forbidden' });
    const stranger = await createOwnerWithShop(db());
    expect(await codeOf(requireShopAccess(db(), key, stranger.shop.id, 'read'))).toMatchObject({ code: 'shop_not_found' });
    expect(await codeOf(requireShopAccess(db(), key, owner.shop.id, 'owner'))).toMatchObject({ code: 'forbidden' });
    expect(await codeOf(requireShopAccess(db(), key, owner.shop.id, 'read'))).toBe('ok');
  });

  it('a user who has not onboarded gets 403 onboarding_required', async () => {
    const person = await member(db(), owner.merchant.id, 'owner');
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', person.userId).execute();
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(person.userId), owner.shop.id, 'read'))).toMatchObject({
      code: 'onboarding_required',
    });
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(person.userId), owner.merchant.id, 'read'))).toMatchObject({
      code: 'onboarding_required',
    });
  });

  it('a blocked merchant is 403 account_disabled with the reason, for sessions and keys', async () => {
    const blocked = await createOwnerWithShop(db());
    await app.context.db.updateTable('merchants').set({ blocked_at: new Date(), blocked_reason: 'fraud review' }).where('id', '=', blocked.merchant.id).execute();
    const expected = { code: 'account_disabled', details: { reason: 'fraud review' } };
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(blocked.user.id), blocked.shop.id, 'read'))).toEqual(expected);
    expect(await codeOf(requireShopAccess(db(), keyPrincipal(blocked.shop.id, blocked.merchant.id), blocked.shop.id, 'read'))).toEqual(expected);
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(blocked.user.id), blocked.merchant.id, 'read'))).toEqual(expected);
  });

  it('an archived shop is shop_archived', async () => {
    const archived = await createShop(db(), owner.merchant.id, { sandbox: false });
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', archived.id).execute();
    expect(await codeOf(requireShopAccess(db(), sessionPrincipal(owner.user.id), archived.id, 'read'))).toMatchObject({ code: 'shop_archived' });
  });

  it('merchant access: unknown or ungranted merchant is 404 not_found; a key only its own merchant, seeing its own shop', async () => {
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(owner.user.id), newId(), 'read'))).toMatchObject({ code: 'not_found' });
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(owner.user.id), 'nope', 'read'))).toMatchObject({ code: 'not_found' });
    const stranger = await createOwnerWithShop(db());
    expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(stranger.user.id), owner.merchant.id, 'read'))).toMatchObject({
      code: 'not_found',
    });
    expect(await codeOf(requireMerchantAccess(db(), keyPrincipal(stranger.shop.id, stranger.merchant.id), owner.merchant.id, 'read'))).toMatchObject({
      code: 'not_found',
    });
    const keyed = await requireMerchantAccess(db(), keyPrincipal(owner.shop.id, owner.merchant.id), owner.merchant.id, 'read');
    expect(keyed.shopIds).toEqual([owner.shop.id]);
    const wide = await requireMerchantAccess(db(), sessionPrincipal(owner.user.id), owner.merchant.id, 'owner');
    expect(wide.shopIds).toBeNull();
    expect(wide.role).toBe('owner');
  });

  it('merchant access: shop-scoped people read (their shops only) but cannot act on the merchant', async () => {
    const person = await member(db(), owner.merchant.id, 'owner', liveShop.id);
    const read = await requireMerchantAccess(db(), sessionPrincipal(person.userId), owner.merchant.id, 'read');
    expect(read.shopIds).toEqual([liveShop.id]);
    for (const need of ['write', 'owner'] as const) {
      expect(await codeOf(requireMerchantAccess(db(), sessionPrincipal(person.userId), owner.merchant.id, need))).toMatchObject({ code: 'forbidden' });
    }
  });
});

// The same rules through HTTP, one route per need: GET /shops/{id} (read),
// POST /shops/{id}/keys (write), PATCH /shops/{id} (owner).
describe('shop access over HTTP', () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createOwnerWithShop(app.context.db);
  });
  afterAll(async () => {
    await app.close();
  });

  const read = (token: string, shopId = owner.shop.id) => app.request({ method: 'GET', url: `/api/v1/shops/${shopId}`, headers: authed(token) });
  // Reading the shop's keys is integration work: developer and up (decision 0016).
  const write = (token: string, shopId = owner.shop.id) => app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/keys`, headers: authed(token) });
  const administer = (token: string, shopId = owner.shop.id) =>
    app.request({ method: 'PATCH', url: `/api/v1/shops/${shopId}`, headers: json(authed(token, newIdempotencyKey())), payload: {} });

  it('viewer, developer and owner sessions', async () => {
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    const developer = await member(app.context.db, owner.merchant.id, 'developer');
    expect((await read(viewer.token)).statusCode).toBe(200);
    expect(errorCode(await write(viewer.token))).toBe('forbidden');
    expect((await write(viewer.token)).statusCode).toBe(403);
    expect(errorCode(await administer(viewer.token))).toBe('forbidden');
    expect((await read(developer.token)).statusCode).toBe(200);
    expect((await write(developer.token)).statusCode).toBe(200);
    expect((await administer(developer.token)).statusCode).toBe(403);
    expect((await read(owner.session.token)).statusCode).toBe(200);
    expect((await write(owner.session.token)).statusCode).toBe(200);
    expect((await administer(owner.session.token)).statusCode).toBe(200);
  });

  it("a session of another merchant: 404 shop_not_found on every route", async () => {
    const stranger = await createOwnerWithShop(app.context.db);
    for (const call of [read, write, administer]) {
      const response = await call(stranger.session.token);
      expect(response.statusCode).toBe(404);
      expect(errorCode(response)).toBe('shop_not_found');
    }
  });

  it('a key of another shop: 403 forbidden; a key on session-only routes: 403 forbidden', async () => {
    const other = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const otherKey = await createApiKey(app.context.db, { id: other.id, merchantId: owner.merchant.id });
    const response = await read(otherKey.token);
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('forbidden');
    expect((await read(otherKey.token, newId())).statusCode).toBe(404);
    for (const call of [write, administer]) {
      const refused = await call(owner.key.token);
      expect(refused.statusCode).toBe(403);
      expect(errorCode(refused)).toBe('forbidden');
    }
  });

  it('a key without the read scope cannot read: 403 forbidden (SPEC "Authentication" 3: write does not imply read)', async () => {
    const writeOnly = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const response = await read(writeOnly.token);
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('forbidden');
    const readOnly = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    expect((await read(readOnly.token)).statusCode).toBe(200);
  });

  it('no credential: 401 unauthorized', async () => {
    const response = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}` });
    expect(response.statusCode).toBe(401);
    expect(errorCode(response)).toBe('unauthorized');
  });

  it('not onboarded: 403 onboarding_required', async () => {
    const user = await createUser(app.context.db);
    await createMerchant(app.context.db, user.id);
    await app.context.db.updateTable('users').set({ onboarded_at: null }).where('id', '=', user.id).execute();
    const session = await createSession(app.context.db, user.id);
    const response = await read(session.token);
    expect(response.statusCode).toBe(403);
    expect(errorCode(response)).toBe('onboarding_required');
  });

  it('blocked merchant: 403 account_disabled with details.reason for its sessions', async () => {
    const blocked = await createOwnerWithShop(app.context.db);
    await app.context.db.updateTable('merchants').set({ blocked_at: new Date(), blocked_reason: 'terms' }).where('id', '=', blocked.merchant.id).execute();
    const response = await read(blocked.session.token, blocked.shop.id);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: { code: 'account_disabled', message: 'account_disabled', details: { reason: 'terms' } } });
  });

  it('archived shop: 400 shop_archived', async () => {
    const archived = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', archived.id).execute();
    const response = await read(owner.session.token, archived.id);
    expect(response.statusCode).toBe(400);
    expect(errorCode(response)).toBe('shop_archived');
  });
});
