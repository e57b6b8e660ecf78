import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type IvoryApp } from '../../src/app.js';
import { systemClock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { openPostgres, type DatabaseHandle } from '../../src/platform/database/database.js';
import { authed, newIdempotencyKey, TEST_SECRET_KEY } from '../support/app.js';
import { lastingDatabase, usingPostgres, type LastingDatabase } from '../support/database.js';
import { createOwnerWithShop } from '../support/factories.js';
import { startTcpCut, type TcpCut } from '../support/tcp-cut.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { BASE, BASE_USDC, usdc } from './issuances-helpers.js';

// Issue 22 item 4: PostgreSQL restarted under load. While the server cannot be
// reached the API answers 503 `unavailable` quickly (never 500, never a hang),
// with nothing stored; once it is back the same requests (same Idempotency-Key)
// succeed exactly once and the workers resume by themselves: every event is
// delivered. Embedded PGlite lives in the process and cannot restart: PostgreSQL only.

const postgres = usingPostgres();

describe.skipIf(!postgres)('PostgreSQL restarted under load (issue 22 item 4)', () => {
  let storage: LastingDatabase;
  let relay: TcpCut;
  let database: DatabaseHandle;
  let app: IvoryApp;
  let receiver: Receiver;
  let owner: Awaited<ReturnType<typeof createOwnerWithShop>>;

  beforeAll(async () => {
    storage = await lastingDatabase();
    const url = new URL(storage.url ?? '');
    relay = await startTcpCut({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(relay.port);
    database = await openPostgres(url.toString(), 10);
    const config = loadConfig({
      SECRET_KEY: TEST_SECRET_KEY,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '0',
      RATE_LIMIT_WRITES_PER_MINUTE: '0',
      PUBLIC_URL: 'http://ivory.test',
      DATA_DIR: '/nonexistent-ivory-test-dir',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    // Real workers, polling on their own: nobody drains them by hand.
    app = await buildApp({ config, database, clock: systemClock, runJobs: true });
    receiver = await startReceiver();
    owner = await createOwnerWithShop(database.db);
    const endpoint = await app.server.inject({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/webhooks`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { url: receiver.url, filters: ['transfer'] },
    });
    expect(endpoint.statusCode).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await relay?.restore().catch(() => undefined);
    await app?.close();
    await database?.close();
    await receiver?.close();
    await relay?.close();
    await storage?.drop();
  });

  const createInvoice = (key: string) =>
    app.server.inject({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/invoices`,
      headers: authed(owner.key.token, key),
      payload: { chain_id: BASE, token: BASE_USDC, amount: usdc(10) },
    });
  const listInvoices = () => app.server.inject({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/issuances`, headers: authed(owner.key.token) });

  /** Waits for the allocation worker to open the invoice (created 202 `registering`). */
  async function opened(invoiceId: string): Promise<void> {
    for (let tries = 0; tries < 200; tries += 1) {
      const row = await database.db.selectFrom('issuances').select('status').where('id', '=', invoiceId).executeTakeFirstOrThrow();
      if (row.status !== 'registering') return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`invoice ${invoiceId} stayed registering`);
  }

  const pay = (invoiceId: string) =>
    app.server.inject({
      method: 'POST',
      url: `/api/v1/shops/${owner.shop.id}/sandbox/simulate`,
      headers: authed(owner.key.token, newIdempotencyKey()),
      payload: { issuance_id: invoiceId, kind: 'transfer.confirmed', amount: usdc(1) },
    });

  it('answers 503 unavailable within seconds while the database is gone, then the same requests succeed once each and every event is delivered', async () => {
    const before = await createInvoice(newIdempotencyKey());
    expect(before.statusCode).toBe(202);
    await opened(before.json().id);
    // An event whose delivery is still due when the database goes away.
    expect((await pay(before.json().id)).statusCode).toBe(200);

    await relay.cut();
    const keys = Array.from({ length: 12 }, () => newIdempotencyKey());
    const started = Date.now();
    const during = await Promise.all([...keys.map((key) => createInvoice(key)), listInvoices(), listInvoices(), pay(before.json().id)]);
    const elapsed = Date.now() - started;
    for (const answer of during) {
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ error: { code: 'unavailable' } });
      expect(answer.headers['retry-after']).toBe('5');
    }
    // The pool's connect timeout (5 s) bounds the wait; a hang would run into the test timeout.
    expect(elapsed).toBeLessThan(15_000);

    await relay.restore();
    // The same requests again, as a client does after a 503: each creates its invoice once.
    const after = await Promise.all(keys.map((key) => createInvoice(key)));
    expect(after.map((answer) => answer.statusCode)).toEqual(keys.map(() => 202));
    const again = await Promise.all(keys.map((key) => createInvoice(key)));
    expect(again.map((answer) => answer.json().id)).toEqual(after.map((answer) => answer.json().id));
    expect((await listInvoices()).statusCode).toBe(200);
    const invoices = await database.db.selectFrom('issuances').select('id').where('shop_id', '=', owner.shop.id).execute();
    expect(invoices).toHaveLength(keys.length + 1);
    for (const answer of after) {
      await opened(answer.json().id);
      expect((await pay(answer.json().id)).statusCode).toBe(200);
    }

    // The workers resumed by themselves: every transfer event delivered, none twice.
    const events = await database.db.selectFrom('events').select('id').where('shop_id', '=', owner.shop.id).where('type', 'like', 'transfer.%').execute();
    expect(events).toHaveLength(keys.length + 1);
    const deadline = Date.now() + 40_000;
    while (receiver.received.length < events.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    await new Promise((resolve) => setTimeout(resolve, 500)); // a duplicate would arrive late
    const delivered = receiver.received.map((request) => (JSON.parse(request.body.toString()) as { id: string }).id);
    expect(delivered.toSorted()).toEqual(events.map((event) => event.id).toSorted());
  }, 90_000);
});
