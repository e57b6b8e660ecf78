import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckoutAnswerCache } from '../../src/checkout/checkout-answer-cache.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { BASE, BASE_USDC, cancel, createInvoice, openInvoice, pay, transfersOf, usdc } from './issuances-helpers.js';

// Issue 13 item 1 (decision 0019): GET /checkout/{public_id} serves a single
// issuance's answer from a per-process cache while the view stamps of the rows
// it is made of are unchanged. Every change below is made *behind* the cached
// answer — through the app, or straight in the database as another process
// would — and the next answer must show it.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

async function checkoutRaw(publicId: string) {
  const response = await app.request({ method: 'GET', url: `/api/v1/checkout/${publicId}` });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

async function checkout(publicId: string) {
  return (await checkoutRaw(publicId)).json();
}

describe('GET /checkout answer cache', () => {
  it('a cached answer is byte for byte the fresh one, with the same headers', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(25));
    const first = await checkoutRaw(invoice.public_id);
    const second = await checkoutRaw(invoice.public_id);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(second.headers['cache-control']).toBe('no-store');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
  });

  it('allocation (an issuance update by the worker) shows at once: registering, then open with the address', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(5) });
    const publicId = created.json().public_id as string;
    expect(await checkout(publicId)).toMatchObject({ status: 'registering', address: '' });
    await app.jobs.drain();
    expect(await checkout(publicId)).toMatchObject({ status: 'open', address: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) });
  });

  it('payments show at once: received, status and the latest confirmed transfer hash', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    expect(await checkout(invoice.public_id)).toMatchObject({ received: '0', tx_hash: '' });
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(40));
    const [first] = await transfersOf(app, invoice.id);
    expect(await checkout(invoice.public_id)).toMatchObject({ status: 'open', received: usdc(40), tx_hash: first!.tx_hash });
    app.clock.advance(1000);
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(60));
    const transfers = await transfersOf(app, invoice.id);
    expect(await checkout(invoice.public_id)).toMatchObject({ status: 'funded', received: usdc(100), tx_hash: transfers.at(-1)!.tx_hash });
  });

  it('changes written straight to the database, as another process would, show at once: issuance, transfer, shop, merchant', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(40));
    const db = app.context.db;
    await checkout(invoice.public_id);

    await db.updateTable('issuances').set({ description: 'Changed behind the cache' }).where('id', '=', invoice.id).execute();
    expect((await checkout(invoice.public_id)).description).toBe('Changed behind the cache');

    // A transfer's hash changing (only the transfers row is written) reaches the answer through its issuance's stamp.
    const [transfer] = await transfersOf(app, invoice.id);
    const otherHash = `0x${'ab'.repeat(32)}`;
    await db.updateTable('transfers').set({ tx_hash: otherHash }).where('id', '=', transfer!.id).execute();
    expect((await checkout(invoice.public_id)).tx_hash).toBe(otherHash);

    await db.updateTable('shops').set({ branding_name: 'Renamed shop' }).where('id', '=', owner.shop.id).execute();
    expect((await checkout(invoice.public_id)).branding).toEqual({ name: 'Renamed shop' });

    await db.updateTable('merchants').set({ name: 'Renamed merchant' }).where('id', '=', owner.merchant.id).execute();
    expect((await checkout(invoice.public_id)).merchant_name).toBe('Renamed merchant');
  });

  it('cancelling shows at once', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    expect((await checkout(invoice.public_id)).cancelled_at).toBeNull();
    const cancelled = await cancel(app, owner.key.token, owner.shop.id, invoice.id);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(await checkout(invoice.public_id)).toMatchObject({ cancelled_at: expect.any(String), cancel_reason: 'merchant' });
  });

  it('while the stamps are unchanged the answer is the cached one (shown by a change made with the stamp trigger off)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { description: 'Cached' });
    expect((await checkout(invoice.public_id)).description).toBe('Cached');
    await app.context.db.transaction().execute(async (trx) => {
      await sql`alter table issuances disable trigger issuances_view_stamp`.execute(trx);
      await sql`update issuances set description = 'Not seen' where id = ${invoice.id}`.execute(trx);
      await sql`alter table issuances enable trigger issuances_view_stamp`.execute(trx);
    });
    expect((await checkout(invoice.public_id)).description).toBe('Cached');
  });

  it('every update moves a stamp, so two updates in a row are two different stamps (triggers of migration 202611260020)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const stampOf = async () =>
      (await sql<{ view_stamp: string }>`select view_stamp from issuances where id = ${invoice.id}`.execute(app.context.db)).rows[0]!.view_stamp;
    const before = await stampOf();
    await sql`update issuances set description = description where id = ${invoice.id}`.execute(app.context.db);
    const once = await stampOf();
    await sql`update issuances set description = description where id = ${invoice.id}`.execute(app.context.db);
    expect(BigInt(once)).toBe(BigInt(before) + 1n);
    expect(BigInt(await stampOf())).toBe(BigInt(before) + 2n);
  });

  it('a transfer write moves its issuance stamp unless the same transaction already updated the issuance, and the answer shows it either way (migration 202611300500)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(40));
    const [transfer] = await transfersOf(app, invoice.id);
    const db = app.context.db;
    const stampOf = async () => BigInt((await sql<{ view_stamp: string }>`select view_stamp from issuances where id = ${invoice.id}`.execute(db)).rows[0]!.view_stamp);
    await checkout(invoice.public_id);

    // Alone, the transfer write moves the stamp once (the statement trigger).
    let before = await stampOf();
    await sql`update transfers set tx_hash = ${`0x${'cd'.repeat(32)}`} where id = ${transfer!.id}`.execute(db);
    expect(await stampOf()).toBe(before + 1n);
    expect((await checkout(invoice.public_id)).tx_hash).toBe(`0x${'cd'.repeat(32)}`);

    // After an update of the issuance in the same transaction (as the batch ledger writes), it is not moved again.
    before = await stampOf();
    await db.transaction().execute(async (trx) => {
      await sql`update issuances set description = 'Batch' where id = ${invoice.id}`.execute(trx);
      await sql`update transfers set tx_hash = ${`0x${'ef'.repeat(32)}`} where id = ${transfer!.id}`.execute(trx);
    });
    expect(await stampOf()).toBe(before + 1n);
    expect(await checkout(invoice.public_id)).toMatchObject({ description: 'Batch', tx_hash: `0x${'ef'.repeat(32)}` });

    // An update undone by a rolled-back savepoint does not count: the transfer write moves the stamp itself.
    before = await stampOf();
    await db.transaction().execute(async (trx) => {
      await sql`savepoint undone`.execute(trx);
      await sql`update issuances set description = 'Undone' where id = ${invoice.id}`.execute(trx);
      await sql`rollback to savepoint undone`.execute(trx);
      await sql`update transfers set tx_hash = ${`0x${'12'.repeat(32)}`} where id = ${transfer!.id}`.execute(trx);
    });
    expect(await stampOf()).toBe(before + 1n);
    expect(await checkout(invoice.public_id)).toMatchObject({ description: 'Batch', tx_hash: `0x${'12'.repeat(32)}` });
  });
});

describe('CheckoutAnswerCache', () => {
  it('answers only for the stamp it was given, and drops the oldest entry past its capacity', () => {
    const cache = new CheckoutAnswerCache(2);
    cache.set('a', '1.1.1.-1', '{"a":1}');
    expect(cache.get('a', '1.1.1.-1')).toBe('{"a":1}');
    expect(cache.get('a', '2.1.1.-1')).toBeUndefined();
    cache.set('b', 's', 'B');
    cache.set('c', 's', 'C');
    expect(cache.size).toBe(2);
    expect(cache.get('a', '1.1.1.-1')).toBeUndefined();
    expect(cache.get('c', 's')).toBe('C');
  });
});
