import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, sha256Hex } from '../../src/platform/crypto.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { errorCode, member } from './merchants-helpers.js';

// SPEC "Shop terms" (GET /shops/{id}/terms), "Merchants and team" GET
// /merchants/{id}/networks, "Public" GET /assets/{id}.
describe('terms, merchant networks, branding assets', () => {
  let app: TestApp;
  let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;

  beforeAll(async () => {
    app = await createTestApp();
    owner = await createOwnerWithShop(app.context.db);
  });
  afterAll(async () => {
    await app.close();
  });

  it('terms: one entry per public network, fee bounds as 18-decimal integer strings, sweep amounts as decimals', async () => {
    const response = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/terms`, headers: authed(owner.session.token) });
    expect(response.statusCode).toBe(200);
    const terms = response.json();
    const catalogue = app.context.catalogue;
    expect(terms.map((entry: { chain_id: number }) => entry.chain_id)).toEqual(catalogue.publicNetworks().map((network) => network.chain_id));
    for (const entry of terms) {
      const network = catalogue.network(entry.chain_id)!;
      expect(entry).toEqual({
        chain_id: network.chainId,
        name: network.name,
        family: network.family,
        invoice: { bps: network.fees.invoice.bps, minimum: network.fees.invoice.minimum.toString(), maximum: network.fees.invoice.maximum.toString() },
        deposit: { bps: network.fees.deposit.bps, minimum: network.fees.deposit.minimum.toString(), maximum: network.fees.deposit.maximum.toString() },
        sweep_threshold: network.sweep.sweepThreshold,
        minimum_sweep: network.sweep.minimumSweep,
        maximum_sweep: network.sweep.maximumSweep,
      });
      expect(entry.invoice.minimum).toMatch(/^\d+$/);
    }
    const base = terms.find((entry: { chain_id: number }) => entry.chain_id === 8453);
    expect(base?.invoice).toEqual({ bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' });
  });

  it("terms: any key of the shop (either scope), any role; not another shop (another merchant's: as if absent)", async () => {
    const get = (token: string, shopId = owner.shop.id) => app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/terms`, headers: authed(token) });
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    expect((await get(writeKey.token)).statusCode).toBe(200);
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    expect((await get(viewer.token)).statusCode).toBe(200);
    const stranger = await createOwnerWithShop(app.context.db);
    expect(errorCode(await get(stranger.key.token))).toBe('shop_not_found');
    expect(errorCode(await get(stranger.session.token))).toBe('shop_not_found');
    expect((await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/terms` })).statusCode).toBe(401);
  });

  it('merchant networks: the public list with wallet_bridge false on Solana entries only', async () => {
    const response = await app.request({
      method: 'GET',
      url: `/api/v1/merchants/${owner.merchant.id}/networks`,
      headers: authed(owner.session.token),
    });
    expect(response.statusCode).toBe(200);
    const networks = response.json();
    // No node is configured in tests, so no network is live (decision 0023).
    const expected = JSON.parse(JSON.stringify(app.context.catalogue.publicNetworks())).map((network: { family: string }) =>
      network.family === 'solana' ? { ...network, live: false, wallet_bridge: false } : { ...network, live: false },
    );
    expect(networks).toEqual(expected);
    expect(networks.some((network: { wallet_bridge?: boolean }) => network.wallet_bridge === false)).toBe(true);
  });

  it('merchant networks: a read key of the merchant reads it; a write-only key 403; another merchant 404 not_found for keys and sessions', async () => {
    const get = (token: string, merchantId = owner.merchant.id) =>
      app.request({ method: 'GET', url: `/api/v1/merchants/${merchantId}/networks`, headers: authed(token) });
    expect((await get(owner.key.token)).statusCode).toBe(200);
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    expect(errorCode(await get(writeKey.token))).toBe('forbidden');
    const stranger = await createOwnerWithShop(app.context.db);
    const keyElsewhere = await get(stranger.key.token);
    expect(keyElsewhere.statusCode).toBe(404);
    expect(errorCode(keyElsewhere)).toBe('not_found');
    const sessionElsewhere = await get(stranger.session.token);
    expect(sessionElsewhere.statusCode).toBe(404);
    expect(errorCode(sessionElsewhere)).toBe('not_found');
    expect((await get(owner.session.token, 'nope')).statusCode).toBe(404);
  });

  it('branding assets: bytes with their content type and immutable cache headers; unknown ids 404 not_found JSON', async () => {
    const bytes = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
    const id = newId();
    await app.context.db
      .insertInto('branding_assets')
      .values({ id, shop_id: owner.shop.id, content_type: 'image/png', bytes, sha256: sha256Hex(bytes) })
      .execute();
    const response = await app.request({ method: 'GET', url: `/api/v1/assets/${id}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('image/png');
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(response.rawPayload.equals(bytes)).toBe(true);
    for (const unknown of [newId(), 'not-a-uuid', `${id}x`]) {
      const missing = await app.request({ method: 'GET', url: `/api/v1/assets/${unknown}` });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: { code: 'not_found', message: 'not_found' } });
    }
  });
});
