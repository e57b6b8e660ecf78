import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { API_PREFIX, registeredRoutes } from '../../src/platform/http/server.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { countRows } from '../support/database.js';
import { createOwnerWithShop } from '../support/factories.js';

// Issue 11, item 5; SPEC "Versioning" and "Sign-in" (last line): legacy
// `/projects` routes are aliases of the `/shops` routes, sharing their
// idempotency scope; project_limit and project_count mirror the shop fields.

let app: TestApp;
let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;
beforeAll(async () => {
  app = await createTestApp();
  owner = await createOwnerWithShop(app.context.db);
});
afterAll(async () => app.close());

const SHOPS = `${API_PREFIX}/shops/`;
const invoiceBody = { chain_id: 8453, token: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '5000000' };

function createInvoice(key: string, url: string, body: object = invoiceBody) {
  return app.request({ method: 'POST', url, headers: authed(owner.session.token, key), payload: body });
}

describe('SPEC "Versioning": /projects aliases', () => {
  it('every /shops route the app registers, whichever module adds it, also answers under /projects', async () => {
    const shopRoutes = registeredRoutes(app.server).filter((route) => route.url.startsWith(SHOPS));
    expect(shopRoutes.length).toBeGreaterThan(20);
    for (const route of shopRoutes) {
      const path = route.url.slice(SHOPS.length).replace(/:[a-z_]+/g, () => newId());
      // Without a credential every shop route answers 401; a path no route serves answers 404.
      const viaProjects = await app.request({ method: route.method as 'GET', url: `${API_PREFIX}/projects/${path}` });
      expect(`${route.method} ${route.url}: ${viaProjects.statusCode}`).toBe(`${route.method} ${route.url}: 401`);
    }
    const unknown = await app.request({ method: 'GET', url: `${API_PREFIX}/projects/${newId()}/no-such-thing` });
    expect(unknown.statusCode).toBe(404);
  });

  it('an Idempotency-Key used on /shops/{id}/invoices replays its stored answer on /projects/{id}/invoices; a different body is 409 idempotency_conflict', async () => {
    const key = newIdempotencyKey();
    const viaShops = await createInvoice(key, `${API_PREFIX}/shops/${owner.shop.id}/invoices`);
    expect(viaShops.statusCode, viaShops.body).toBe(202);
    const issuances = await countRows(app.context.db, 'issuances');
    const viaProjects = await createInvoice(key, `${API_PREFIX}/projects/${owner.shop.id}/invoices`);
    expect(viaProjects.statusCode).toBe(202);
    expect(viaProjects.json()).toEqual(viaShops.json());
    expect(await countRows(app.context.db, 'issuances')).toBe(issuances);
    const conflict = await createInvoice(key, `${API_PREFIX}/projects/${owner.shop.id}/invoices`, { ...invoiceBody, amount: '6000000' });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json()).toEqual({ error: { code: 'idempotency_conflict', message: 'idempotency_conflict' } });
    expect(await countRows(app.context.db, 'issuances')).toBe(issuances);
  });

  it('/merchants/{id}/projects is the alias of /merchants/{id}/shops, for listing and creating (one idempotency scope)', async () => {
    const listed = await app.request({ method: 'GET', url: `${API_PREFIX}/merchants/${owner.merchant.id}/projects`, headers: authed(owner.session.token) });
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual(
      (await app.request({ method: 'GET', url: `${API_PREFIX}/merchants/${owner.merchant.id}/shops`, headers: authed(owner.session.token) })).json(),
    );
    const key = newIdempotencyKey();
    const body = { name: 'Live', sandbox: false, recipient: '0x000000000000000000000000000000000000dEaD' };
    const created = await app.request({
      method: 'POST',
      url: `${API_PREFIX}/merchants/${owner.merchant.id}/projects`,
      headers: authed(owner.session.token, key),
      payload: body,
    });
    expect(created.statusCode, created.body).toBe(201);
    const replayed = await app.request({
      method: 'POST',
      url: `${API_PREFIX}/merchants/${owner.merchant.id}/shops`,
      headers: authed(owner.session.token, key),
      payload: body,
    });
    expect(replayed.json()).toEqual(created.json());
  });

  it('project_limit and project_count mirror shop_limit and shop_count on GET /merchants', async () => {
    const merchants = await app.request({ method: 'GET', url: `${API_PREFIX}/merchants`, headers: authed(owner.session.token) });
    const [merchant] = merchants.json<{ shop_limit: number; shop_count: number; project_limit: number; project_count: number }[]>();
    expect(merchant).toBeDefined();
    expect(merchant?.project_limit).toBe(merchant?.shop_limit);
    expect(merchant?.project_count).toBe(merchant?.shop_count);
  });
});
