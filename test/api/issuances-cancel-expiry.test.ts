import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelMerchantIssuances } from '../../src/issuances/index.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  cancel,
  createDeposit,
  createInvoice,
  eventsOf,
  openInvoice,
  pay,
  read,
  storedCounts,
  usdc,
} from './issuances-helpers.js';

// SPEC "States and transitions" (expiry, merchant cancel, merchant blocked), "Invoices and
// deposits" (cancel route: group by its own id, issuance_in_group), `expires_in`.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;
const base = { chain_id: BASE, token: BASE_USDC, amount: usdc(10) };

describe('merchant cancel', () => {
  it('sets cancelled_at, keeps the status, writes invoice.cancelled without reason; repeating answers 200 unchanged', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const first = await cancel(app, owner.key.token, owner.shop.id, invoice.id);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ id: invoice.id, status: 'open' });
    expect(first.json().cancelled_at).not.toBeNull();
    const second = await cancel(app, owner.key.token, owner.shop.id, invoice.id);
    expect(second.statusCode).toBe(200);
    expect(second.json().cancelled_at).toBe(first.json().cancelled_at);
    const events = await eventsOf(app, invoice.id);
    expect(events.map((event) => event.type)).toEqual(['invoice.cancelled']);
    expect(events[0]?.data).not.toHaveProperty('reason');
    expect(events[0]?.data).toMatchObject({ invoice_cancelled: true, type: 'invoice' });
  });

  it('a paid invoice cannot be cancelled: 400 invalid_state, nothing changes', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(10));
    const before = await storedCounts(app, owner.shop.id);
    const response = await cancel(app, owner.key.token, owner.shop.id, invoice.id);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_state');
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).cancelled_at).toBeNull();
  });

  it('unknown, foreign or malformed ids are 404 not_found; a read key is forbidden', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const other = await createOwnerWithShop(app.context.db);
    const foreign = (await createInvoice(app, other.key.token, other.shop.id, base)).json();
    for (const id of [crypto.randomUUID(), foreign.id, 'nope']) {
      const response = await cancel(app, owner.key.token, owner.shop.id, id);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('not_found');
    }
    const reader = await createApiKey(app.context.db, { id: other.shop.id, merchantId: other.merchant.id }, { scopes: ['read'] });
    expect((await cancel(app, reader.token, other.shop.id, foreign.id)).statusCode).toBe(403);
    const get = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/issuances/${foreign.id}`, headers: authed(owner.key.token) });
    expect(get.statusCode).toBe(404);
  });

  it('a write-only key cannot read issuances (scopes are exact); a session can', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const writer = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const created = (await createInvoice(app, writer.token, owner.shop.id, base)).json();
    const url = `/api/v1/shops/${owner.shop.id}/issuances/${created.id}`;
    expect((await app.request({ method: 'GET', url, headers: authed(writer.token) })).statusCode).toBe(403);
    expect((await app.request({ method: 'GET', url, headers: authed(owner.session.token) })).statusCode).toBe(200);
  });
});

describe('expiry (the expire-invoices worker)', () => {
  it('an unpaid invoice past expires_at gets cancelled_at and invoice.cancelled {reason: expired}; status unchanged', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = (await createInvoice(app, owner.key.token, owner.shop.id, { ...base, expires_in: '1d' })).json();
    expect(new Date(created.expires_at).getTime() - new Date(created.created_at).getTime()).toBe(DAY);
    await app.jobs.drain();
    app.clock.advance(DAY - 1);
    await app.jobs.drain();
    expect((await read(app, owner.key.token, owner.shop.id, created.id)).cancelled_at).toBeNull();
    app.clock.advance(1);
    await app.jobs.drain();
    const expired = await read(app, owner.key.token, owner.shop.id, created.id);
    expect(expired.status).toBe('open');
    expect(expired.cancelled_at).not.toBeNull();
    const events = await eventsOf(app, created.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'invoice.cancelled', data: { reason: 'expired', invoice_cancelled: true } });
    // Monitoring continues after expiry.
    await pay(app, owner.key.token, owner.shop.id, created.id, usdc(10));
    expect((await read(app, owner.key.token, owner.shop.id, created.id)).status).toBe('funded');
  });

  it('a paid invoice does not expire; a group expires as one; each allowed lifetime is accepted', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const paid = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10), { expires_in: '7d' });
    await pay(app, owner.key.token, owner.shop.id, paid.id, usdc(10));
    const group = (
      await createInvoice(app, owner.key.token, owner.shop.id, {
        assets: [
          { chain_id: BASE, token: BASE_USDC },
          { chain_id: ARBITRUM, token: ARBITRUM_USDC },
        ],
        amount: '10',
        expires_in: '7d',
      })
    ).json();
    for (const lifetime of ['1d', '30d', '180d', '365d']) {
      expect((await createInvoice(app, owner.key.token, owner.shop.id, { ...base, expires_in: lifetime })).statusCode).toBe(202);
    }
    app.clock.advance(7 * DAY + 1);
    await app.jobs.drain();
    expect((await read(app, owner.key.token, owner.shop.id, paid.id)).cancelled_at).toBeNull();
    const expiredGroup = await read(app, owner.key.token, owner.shop.id, group.id);
    expect(expiredGroup.cancelled_at).not.toBeNull();
    for (const option of group.options) {
      const events = await eventsOf(app, option.id);
      expect(events.map((event) => [event.type, event.data.reason, event.data.group_id])).toEqual([['invoice.cancelled', 'expired', group.id]]);
    }
  });
});

describe('cancelMerchantIssuances (operator block)', () => {
  it('cancels unpaid invoices and groups with reason merchant_blocked and disables deposit addresses', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    const invoice = (await createInvoice(app, token, owner.shop.id, base)).json();
    const paid = await openInvoice(app, token, owner.shop.id, usdc(10));
    await pay(app, token, owner.shop.id, paid.id, usdc(10));
    const group = (await createInvoice(app, token, owner.shop.id, { assets: [{ chain_id: BASE, token: BASE_USDC }], amount: '10' })).json();
    const deposit = (await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();

    const closed = await inTransaction(app.context.db, (trx) => cancelMerchantIssuances(trx, { now: app.clock.now(), ledger: app.context.ledger }, owner.merchant.id, 'merchant_blocked'));
    expect(closed).toBe(3);
    expect((await eventsOf(app, invoice.id)).map((event) => [event.type, event.data.reason])).toEqual([['invoice.cancelled', 'merchant_blocked']]);
    expect((await eventsOf(app, group.options[0].id)).map((event) => event.data.reason)).toEqual(['merchant_blocked']);
    expect((await read(app, token, owner.shop.id, paid.id)).cancelled_at).toBeNull();
    expect((await read(app, token, owner.shop.id, deposit.id)).disabled_at).not.toBeNull();
    expect(await eventsOf(app, deposit.id)).toEqual([]);
    // Idempotent: a second run closes nothing more.
    expect(await inTransaction(app.context.db, (trx) => cancelMerchantIssuances(trx, { now: app.clock.now(), ledger: app.context.ledger }, owner.merchant.id))).toBe(0);
  });
});
