import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, authed, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop } from '../support/factories.js';
import { member } from './merchants-helpers.js';
import { createDeposit, BASE, BASE_USDC, openInvoice, pay, payoutsOf, simulate, transfersOf, usdc } from './issuances-helpers.js';
import { createLiveApp, openLiveInvoice, watcherConfirms } from './payouts-helpers.js';

// SPEC "Shops": GET /shops/{shop_id}/payments (K(read); query limit; response shape n/s — ours:
// {data, next_cursor}, incoming transfers and payouts, newest first).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

function list(token: string, shopId: string, query = '') {
  return app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/payments${query}`, headers: authed(token) });
}

interface Item {
  id: string;
  type: 'transfer' | 'payout';
  created_at: string;
  [field: string]: unknown;
}

async function allPages(token: string, shopId: string, limit: number): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const response = await list(token, shopId, query);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: Item[]; next_cursor: string | null };
    expect(body.data.length).toBeLessThanOrEqual(limit);
    items.push(...body.data);
    cursor = body.next_cursor;
    pages += 1;
  } while (cursor !== null && pages < 100);
  return { items, pages };
}

/** A shop with two paid invoices (two transfers and a payout each) and a partly paid one; some rows share a timestamp. */
async function shopWithHistory() {
  const owner = await createOwnerWithShop(app.context.db);
  const token = owner.key.token;
  const first = await openInvoice(app, token, owner.shop.id, usdc(100), { external_id: 'order-1' });
  await pay(app, token, owner.shop.id, first.id, usdc(40));
  await pay(app, token, owner.shop.id, first.id, usdc(60)); // same clock instant as the 40: ordered by id
  app.clock.advance(1000);
  const second = await openInvoice(app, token, owner.shop.id, usdc(20));
  await pay(app, token, owner.shop.id, second.id, usdc(25));
  app.clock.advance(1000);
  const third = await openInvoice(app, token, owner.shop.id, usdc(50));
  await pay(app, token, owner.shop.id, third.id, usdc(5));
  app.clock.advance(1000);
  return { owner, token, invoices: [first, second, third] };
}

/** The expected order straight from storage: created_at desc, id desc, over both tables. */
async function expectedOrder(shopId: string): Promise<string[]> {
  const transfers = await app.context.db.selectFrom('transfers').select(['id', 'created_at']).where('shop_id', '=', shopId).execute();
  const payouts = await app.context.db.selectFrom('payouts').select(['id', 'created_at']).where('shop_id', '=', shopId).execute();
  return [...transfers, ...payouts]
    .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((row) => row.id);
}

describe('GET /shops/{shop_id}/payments', () => {
  it('lists incoming transfers and payouts newest first, across pages with a cursor', async () => {
    const { owner, token } = await shopWithHistory();
    const expected = await expectedOrder(owner.shop.id);
    expect(expected).toHaveLength(6); // 4 transfers + 2 payouts

    const { items, pages } = await allPages(token, owner.shop.id, 2);
    expect(pages).toBe(3);
    expect(items.map((item) => item.id)).toEqual(expected);
    expect(items.filter((item) => item.type === 'payout')).toHaveLength(2);

    // Other page sizes give the same sequence.
    expect((await allPages(token, owner.shop.id, 4)).items.map((item) => item.id)).toEqual(expected);
    expect((await allPages(token, owner.shop.id, 5)).items.map((item) => item.id)).toEqual(expected);
    const single = await list(token, owner.shop.id);
    expect(single.json().data.map((item: Item) => item.id)).toEqual(expected);
    expect(single.json().next_cursor).toBeNull();
  });

  it('a page stays stable when newer payments arrive meanwhile (keyset on created_at, id)', async () => {
    const { owner, token, invoices } = await shopWithHistory();
    const firstPage = (await list(token, owner.shop.id, '?limit=3')).json();
    await pay(app, token, owner.shop.id, invoices[2]!.id, usdc(1));
    const rest = await list(token, owner.shop.id, `?limit=100&cursor=${firstPage.next_cursor}`);
    const seen = [...firstPage.data, ...rest.json().data].map((item: Item) => item.id);
    expect(new Set(seen).size).toBe(6);
  });

  it('items: amounts in base units and decimal, disposition for transfers, fee split for payouts', async () => {
    const { owner, token, invoices } = await shopWithHistory();
    const data = (await list(token, owner.shop.id)).json().data as Item[];
    const [paidInvoice] = invoices;
    const [payout] = await payoutsOf(app, paidInvoice!.id);
    const payoutItem = data.find((item) => item.id === payout!.id);
    expect(payoutItem).toEqual({
      id: payout!.id,
      type: 'payout',
      issuance_id: paidInvoice!.id,
      public_id: paidInvoice!.public_id,
      chain_id: 8453,
      token: paidInvoice!.token,
      token_decimals: 6,
      amount: usdc(100),
      amount_decimal: '100',
      // A sandbox shop: the payout is simulated, never sent (decision 0022).
      status: 'simulated',
      sandbox: true,
      disposition: null,
      tx_hash: null,
      explorer_url: null,
      fee: usdc(0.5),
      to_recipient: usdc(99.5),
      to_operator: usdc(0.5),
      created_at: payout!.created_at.toISOString(),
    });
    const transfers = await transfersOf(app, paidInvoice!.id);
    const forty = transfers.find((transfer) => transfer.amount === usdc(40))!;
    expect(data.find((item) => item.id === forty.id)).toEqual({
      id: forty.id,
      type: 'transfer',
      issuance_id: paidInvoice!.id,
      public_id: paidInvoice!.public_id,
      chain_id: 8453,
      token: paidInvoice!.token,
      token_decimals: 6,
      amount: usdc(40),
      amount_decimal: '40',
      status: 'confirmed',
      sandbox: true,
      disposition: 'credited',
      tx_hash: forty.tx_hash,
      // A sandbox hash is on no chain.
      explorer_url: null,
      fee: null,
      to_recipient: null,
      to_operator: null,
      created_at: forty.created_at.toISOString(),
    });
    // 25 paid on a 20 invoice: the whole transfer credited, the overpayment goes to the operator.
    const [overpaid] = await payoutsOf(app, invoices[1]!.id);
    expect(data.find((item) => item.id === overpaid!.id)).toMatchObject({ amount: usdc(25), amount_decimal: '25', to_recipient: usdc(19.9), to_operator: usdc(5.1) });
  });

  it('only the shop\'s own payments; an empty shop answers an empty page', async () => {
    const { owner } = await shopWithHistory();
    const other = await createOwnerWithShop(app.context.db);
    const response = await list(other.key.token, other.shop.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: [], next_cursor: null });
    // A key of another merchant's shop cannot read this one, nor learn that it exists.
    const foreign = await list(other.key.token, owner.shop.id);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('shop_not_found');
  });

  it('auth: read key and viewer session may read; a write-only key is forbidden; no credentials 401 (SPEC "Authentication" 3)', async () => {
    const { owner } = await shopWithHistory();
    const readKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['read'] });
    const writeKey = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const viewer = await member(app.context.db, owner.merchant.id, 'viewer');
    expect((await list(readKey.token, owner.shop.id)).statusCode).toBe(200);
    expect((await list(viewer.token, owner.shop.id)).statusCode).toBe(200);
    expect((await list(owner.session.token, owner.shop.id)).statusCode).toBe(200);
    const write = await list(writeKey.token, owner.shop.id);
    expect(write.statusCode).toBe(403);
    expect(write.json().error.code).toBe('forbidden');
    const anonymous = await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/payments` });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().error.code).toBe('unauthorized');
  });

  it('limit outside 1..100 or not a whole number: 400 invalid_request', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    for (const limit of ['0', '101', '1000', '-1', '1.5', 'abc', '', '1e2', ' 5']) {
      const response = await list(owner.key.token, owner.shop.id, `?limit=${encodeURIComponent(limit)}`);
      expect(response.statusCode, limit).toBe(400);
      expect(response.json().error.code, limit).toBe('invalid_request');
    }
    for (const limit of ['1', '100']) expect((await list(owner.key.token, owner.shop.id, `?limit=${limit}`)).statusCode).toBe(200);
  });

  it('a cursor that was not issued by the list: 400 invalid_cursor', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not a cursor!',
      Buffer.from('not json').toString('base64url'),
      encode({ created_at: '2026-01-01T00:00:00Z', id: '00000000-0000-4000-8000-000000000000' }),
      encode(['2026-01-01T00:00:00.000Z']),
      encode(['not a date', '00000000-0000-4000-8000-000000000000']),
      encode(['2026-01-01T00:00:00.000Z', 'not-a-uuid']),
      encode([1, 2]),
    ];
    for (const cursor of bad) {
      const response = await list(owner.key.token, owner.shop.id, `?cursor=${encodeURIComponent(cursor)}`);
      expect(response.statusCode, cursor).toBe(400);
      expect(response.json().error.code, cursor).toBe('invalid_cursor');
    }
  });

  it('an unknown shop is 404 shop_not_found for a session', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await list(owner.session.token, '00000000-0000-4000-8000-000000000000');
    expect(response.statusCode).toBe(404);
    expect(response.json().error.code).toBe('shop_not_found');
  });
});

describe('GET /shops/{shop_id}/payments: sandbox payouts (issue 20, decision 0022)', () => {
  async function payoutItem(token: string, shopId: string, issuanceId: string) {
    const [payout] = await payoutsOf(app, issuanceId);
    const data = (await list(token, shopId)).json().data as Item[];
    return { row: payout!, item: data.find((item) => item.id === payout!.id) };
  }

  it('a settled sandbox invoice\'s payout is `simulated` with sandbox true and no tx hash, not `scheduled` for ever', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const invoice = await openInvoice(app, token, owner.shop.id, usdc(100));
    await pay(app, token, owner.shop.id, invoice.id, usdc(100));
    const closed = await simulate(app, token, owner.shop.id, { issuance_id: invoice.id, kind: 'invoice.closed', amount: '0' });
    expect(closed.statusCode, closed.body).toBe(200);

    const { row, item } = await payoutItem(token, owner.shop.id, invoice.id);
    expect(item).toMatchObject({ type: 'payout', status: 'simulated', sandbox: true, tx_hash: null, explorer_url: null, amount: usdc(100), to_recipient: usdc(99.5) });
    // A sandbox transfer's hash is on no chain: no explorer link.
    const listed = (await app.request({ method: 'GET', url: `/api/v1/shops/${owner.shop.id}/payments`, headers: authed(token) })).json().data as { type: string; tx_hash: string | null; explorer_url: string | null }[];
    expect(listed.filter((row) => row.type === 'transfer').every((row) => row.tx_hash !== null && row.explorer_url === null)).toBe(true);
    // The queue row itself is unchanged: nothing was sent and no payout event was invented (SPEC "Sandbox").
    expect(row).toMatchObject({ status: 'scheduled', tx_hash: null, sent_at: null, confirmed_at: null });
    const events = await app.context.db.selectFrom('events').select('type').where('issuance_id', '=', invoice.id).execute();
    expect(events.map((event) => event.type).sort()).toEqual(['invoice.closed', 'transfer.confirmed']);
  });

  it('a sandbox deposit\'s sweep is `simulated` too; the internal signals change the queue status, not what the history shows', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const created = await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect(created.statusCode, created.body).toBe(202);
    await app.jobs.drain();
    const depositId = created.json().id as string;
    // Base's sweep threshold is 10 USDC (LEDGER "Deposits"): one sweep, and deposits never close.
    await pay(app, token, owner.shop.id, depositId, usdc(11));
    expect((await payoutItem(token, owner.shop.id, depositId)).item).toMatchObject({ status: 'simulated', sandbox: true, tx_hash: null, amount: usdc(11) });

    const wait = await simulate(app, token, owner.shop.id, { issuance_id: depositId, kind: 'gas.wait', amount: '0' });
    expect(wait.json().payout.status).toBe('waiting_gas');
    const { row, item } = await payoutItem(token, owner.shop.id, depositId);
    expect(row.status).toBe('waiting_gas');
    expect(item).toMatchObject({ status: 'simulated', sandbox: true, tx_hash: null });
  });

  it('a sandbox payout withdrawn by a reversal stays `cancelled`', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const invoice = await openInvoice(app, token, owner.shop.id, usdc(10));
    const paid = await pay(app, token, owner.shop.id, invoice.id, usdc(10));
    const reverted = await simulate(app, token, owner.shop.id, { issuance_id: invoice.id, kind: 'transfer.reverted', amount: '0', reference_event_id: paid.event_id });
    expect(reverted.statusCode, reverted.body).toBe(200);
    const { row, item } = await payoutItem(token, owner.shop.id, invoice.id);
    expect(row.status).toBe('cancelled');
    expect(item).toMatchObject({ status: 'cancelled', sandbox: true });
  });
});

describe('GET /shops/{shop_id}/payments: a live shop', () => {
  it('shows the payout\'s queue status, sandbox false', async () => {
    const { app: live } = await createLiveApp();
    try {
      const invoice = await openLiveInvoice(live, usdc(20));
      await watcherConfirms(live, invoice.id, invoice.address, usdc(20));
      const response = await live.request({ method: 'GET', url: `/api/v1/shops/${invoice.shopId}/payments`, headers: authed(invoice.token) });
      const data = response.json().data as Item[];
      expect(data.find((item) => item.type === 'payout')).toMatchObject({ status: 'scheduled', sandbox: false, tx_hash: null });
      const transfer = data.find((item) => item.type === 'transfer') as Item & { tx_hash: string; explorer_url: string | null };
      expect(transfer).toMatchObject({ status: 'confirmed', sandbox: false });
      // A live transaction links to the catalogue's explorer for the network (Base: basescan).
      expect(transfer.explorer_url).toBe(`https://basescan.org/tx/${transfer.tx_hash}`);
      expect(data.find((item) => item.type === 'payout')).toMatchObject({ explorer_url: null });
    } finally {
      await live.close();
    }
  });
});
