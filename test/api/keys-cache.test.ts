import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_KEYS_CHANNEL } from '../../src/keys/index.js';
import { inTransaction, type DatabaseHandle } from '../../src/platform/database/database.js';
import { notify } from '../../src/platform/database/notify.js';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { lastingDatabase, type LastingDatabase } from '../support/database.js';
import { createOwnerWithShop } from '../support/factories.js';
import { admin, createAdminApp } from './admin-helpers.js';

// Issue 13 item 1: API-key lookups are cached in process; a revoked, disabled,
// scope- or allowlist-changed key, or one of a blocked merchant, stops working
// (or changes) at once in the writing process and within one second in every other.

type Owner = Awaited<ReturnType<typeof createOwnerWithShop>>;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const me = (app: TestApp, token: string, remoteAddress?: string) =>
  app.request({ method: 'GET', url: '/api/v1/me', headers: authed(token), ...(remoteAddress ? { remoteAddress } : {}) });

describe('API-key cache in one process', () => {
  let app: TestApp;
  let owner: Owner;
  beforeAll(async () => {
    app = await createAdminApp();
  });
  afterAll(async () => {
    await app.close();
  });
  beforeEach(async () => {
    owner = await createOwnerWithShop(app.context.db);
    expect((await me(app, owner.key.token)).statusCode).toBe(200); // warms the cache
  });

  const patchKey = (payload: object) =>
    app.request({
      method: 'PATCH',
      url: `/api/v1/shops/${owner.shop.id}/keys/${owner.key.id}`,
      headers: { ...authed(owner.session.token, newIdempotencyKey()), 'content-type': 'application/json' },
      payload,
    });

  it('a cached key is served without reading its row; a change made behind the app is seen after at most the 1 s TTL', async () => {
    // Written directly, without the notification a real write path sends: only the TTL can end the cached answer.
    await app.context.db.updateTable('api_keys').set({ enabled: false }).where('id', '=', owner.key.id).execute();
    expect((await me(app, owner.key.token)).statusCode).toBe(200);
    await sleep(1_050);
    expect((await me(app, owner.key.token)).statusCode).toBe(401);
  });

  it('a revoked key is refused by the very next request', async () => {
    const revoked = await app.request({
      method: 'DELETE',
      url: `/api/v1/shops/${owner.shop.id}/keys/${owner.key.id}`,
      headers: authed(owner.session.token, newIdempotencyKey()),
    });
    expect(revoked.statusCode).toBe(200);
    expect((await me(app, owner.key.token)).statusCode).toBe(401);
  });

  it('a disabled key is refused by the very next request, and works again once enabled', async () => {
    expect((await patchKey({ enabled: false })).statusCode).toBe(200);
    expect((await me(app, owner.key.token)).statusCode).toBe(401);
    expect((await patchKey({ enabled: true })).statusCode).toBe(200);
    expect((await me(app, owner.key.token)).statusCode).toBe(200);
  });

  it('a changed allowlist or scope list applies to the very next request', async () => {
    expect((await patchKey({ allowed_ips: ['10.9.9.9'] })).statusCode).toBe(200);
    expect((await me(app, owner.key.token, '10.1.1.1')).statusCode).toBe(401);
    expect((await me(app, owner.key.token, '10.9.9.9')).statusCode).toBe(200);
    expect((await patchKey({ scopes: ['read'] })).statusCode).toBe(200);
    expect((await me(app, owner.key.token, '10.9.9.9')).json()).toMatchObject({ scopes: ['read'] });
  });

  it("a blocked merchant's key is refused by the very next request, and works again once unblocked", async () => {
    expect((await admin(app, 'POST', `/merchants/${owner.merchant.id}/block`, { payload: { reason: 'fraud' } })).statusCode).toBe(200);
    expect((await me(app, owner.key.token)).statusCode).toBe(401);
    expect((await admin(app, 'POST', `/merchants/${owner.merchant.id}/unblock`)).statusCode).toBe(200);
    expect((await me(app, owner.key.token)).statusCode).toBe(200);
  });
});

const onPostgres = process.env.TEST_DATABASE_URL !== undefined && process.env.TEST_DATABASE_URL !== '';

// Skipped without TEST_DATABASE_URL: embedded PGlite allows one process per database, so
// there is no other process to tell; the in-process cases above cover it.
describe.skipIf(!onPostgres)('API-key cache across two app instances on one PostgreSQL', () => {
  let storage: LastingDatabase;
  let handles: DatabaseHandle[];
  let appA: TestApp;
  let appB: TestApp;
  beforeAll(async () => {
    storage = await lastingDatabase();
    handles = [await storage.open(), await storage.open()];
    appA = await createTestApp({}, undefined, { database: handles[0] });
    appB = await createTestApp({}, undefined, { database: handles[1] });
  });
  afterAll(async () => {
    await appA.close();
    await appB.close();
    for (const handle of handles) await handle.close();
    await storage.drop();
  });

  it('a notification committed on one handle reaches the listener of the other, not before the commit', async () => {
    const received: string[] = [];
    const unlisten = await handles[1]!.listen(API_KEYS_CHANNEL, { onMessage: (payload) => received.push(payload), onGap: () => {} });
    try {
      await inTransaction(handles[0]!.db, async (trx) => {
        await notify(trx, API_KEYS_CHANNEL, 'subject-1');
        await sleep(200);
        expect(received).toEqual([]);
      });
      const deadline = Date.now() + 1_000;
      while (received.length === 0 && Date.now() < deadline) await sleep(10);
      expect(received).toEqual(['subject-1']);
    } finally {
      await unlisten();
    }
  });

  it('a lost LISTEN connection reports the gap (so the cache is cleared), reconnects, and receives again', async () => {
    const received: string[] = [];
    let gaps = 0;
    const unlisten = await handles[1]!.listen('ivory_test_reconnect', { onMessage: (payload) => received.push(payload), onGap: () => (gaps += 1) });
    const waitFor = async (done: () => boolean) => {
      const deadline = Date.now() + 5_000;
      while (!done() && Date.now() < deadline) await sleep(20);
      return done();
    };
    try {
      await sql`select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen "ivory_test_reconnect"' and datname = current_database()`.execute(
        handles[0]!.db,
      );
      // Once at the loss, once after the reconnect (notifications sent in between are lost).
      expect(await waitFor(() => gaps >= 2)).toBe(true);
      await notify(handles[0]!.db, 'ivory_test_reconnect', 'after');
      expect(await waitFor(() => received.includes('after'))).toBe(true);
    } finally {
      await unlisten();
    }
  });

  // How fast is for bench/key-revocation.mjs to measure; a test on a shared machine
  // checks what makes it fast: B's cache is cleared by A's notification, not by its TTL.
  it("a key warmed on B and revoked on A is refused by B once A's notification clears B's cache (not the TTL)", async () => {
    const owner = await createOwnerWithShop(appA.context.db);
    expect((await me(appB, owner.key.token)).statusCode).toBe(200);
    expect(appB.context.apiKeyCache.size).toBeGreaterThan(0);
    const generation = appB.context.apiKeyCache.generation;
    const revoked = await appA.request({
      method: 'DELETE',
      url: `/api/v1/shops/${owner.shop.id}/keys/${owner.key.id}`,
      headers: authed(owner.session.token, newIdempotencyKey()),
    });
    expect(revoked.statusCode).toBe(200);
    const deadline = Date.now() + 10_000;
    while (appB.context.apiKeyCache.generation === generation && Date.now() < deadline) await sleep(10);
    expect(appB.context.apiKeyCache.generation).toBeGreaterThan(generation);
    expect((await me(appB, owner.key.token)).statusCode).toBe(401);
  });
});
