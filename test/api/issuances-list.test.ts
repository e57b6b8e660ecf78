import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { authed, createTestApp, type TestApp } from '../support/app.js';
import { createApiKey, createOwnerWithShop, createShop } from '../support/factories.js';
import { typedClient } from '../support/typed-client.js';
import { member } from './merchants-helpers.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  ARBITRUM_USDT,
  BASE,
  BASE_USDC,
  BNB,
  BNB_USDT,
  cancel,
  createDeposit,
  createInvoice,
  openInvoiceRow,
  pay,
  read,
  storedCounts,
  usdc,
} from './issuances-helpers.js';

// Issue 20 item 5, "Invoices you can find": GET /shops/{shop_id}/issuances (and its /projects
// alias). SPEC "Issuance (authenticated view)" for the items, "Groups" (a group is one item),
// "States and transitions" for the status filter (cancellation is not a status), "Authentication"
// 3 and 8 for who may list (K(read) or a session with access, as GET of one issuance).

let app: TestApp;
/** {base_url} of a real listener, for the typed client. */
let baseUrl: string;
beforeAll(async () => {
  app = await createTestApp({ PAY_URL: 'https://pay.ivory.test' });
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}/api/v1`;
});
afterAll(async () => {
  await app.close();
});

type Item = { id: string; created_at: string; group?: true; options?: { id: string }[]; [field: string]: unknown };
interface Page {
  data: Item[];
  next_cursor: string | null;
}

function list(token: string, shopId: string, query = '', prefix = 'shops') {
  return app.request({ method: 'GET', url: `/api/v1/${prefix}/${shopId}/issuances${query}`, headers: authed(token) });
}

async function page(token: string, shopId: string, query = ''): Promise<Page> {
  const response = await list(token, shopId, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<Page>();
}

/** Every page, following next_cursor with the same filters; checks each page's size. */
async function walk(token: string, shopId: string, limit: number, filters = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 200; pages += 1) {
    const body: Page = await page(token, shopId, `?limit=${limit}${filters}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(body.data.length).toBeLessThanOrEqual(limit);
    if (body.next_cursor !== null) expect(body.data).toHaveLength(limit);
    ids.push(...body.data.map((item) => item.id));
    cursor = body.next_cursor;
    if (cursor === null) return ids;
  }
  throw new Error('more than 200 pages');
}

/** The order straight from storage: ungrouped issuances and groups, created_at desc, then id desc. */
async function storedOrder(shopId: string): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select id, created_at from issuances where shop_id = ${shopId} and group_id is null
    union all select id, created_at from issuance_groups where shop_id = ${shopId}
    order by created_at desc, id desc`.execute(app.context.db);
  return rows.map((row) => row.id);
}

function created(response: { statusCode: number; body: string; json(): unknown }): Item {
  expect(response.statusCode, response.body).toBe(202);
  return response.json() as Item;
}

const groupAssets = [
  { chain_id: BASE, token: BASE_USDC },
  { chain_id: BNB, token: BNB_USDT },
];

describe('GET /shops/{shop_id}/issuances: items and order', () => {
  it('lists ungrouped issuances and groups newest first, each item exactly what GET of its id answers; a group once, never its options', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const shopId = owner.shop.id;
    const invoice = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10), external_id: 'order-1' }));
    const deposit = created(await createDeposit(app, token, shopId, { chain_id: BASE, token: BASE_USDC })); // same instant as the invoice
    app.clock.advance(1000);
    const group = created(await createInvoice(app, token, shopId, { assets: groupAssets, amount: '10' }));
    app.clock.advance(1000);
    const paid = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(5) }));
    await app.jobs.drain();
    await pay(app, token, shopId, paid.id, usdc(5));
    // A confirmed payout, as the watcher would record it: the item shows its hash, as GET does.
    await app.context.db.updateTable('payouts').set({ status: 'confirmed', tx_hash: '0xfeed', confirmed_at: app.clock.now() }).where('issuance_id', '=', paid.id).execute();
    // Another shop's issuances are never listed.
    const other = await createOwnerWithShop(app.context.db);
    created(await createInvoice(app, other.key.token, other.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }));

    const body = await page(token, shopId);
    expect(body.next_cursor).toBeNull();
    const ids = body.data.map((item) => item.id);
    expect(ids).toEqual(await storedOrder(shopId));
    expect(ids.slice(0, 2)).toEqual([paid.id, group.id]);
    expect(new Set(ids.slice(2))).toEqual(new Set([invoice.id, deposit.id]));
    for (const item of body.data) expect(item).toEqual(await read(app, token, shopId, item.id));
    const listedGroup = body.data.find((item) => item.id === group.id);
    expect(listedGroup).toMatchObject({ group: true, status: 'open' });
    expect(listedGroup?.options).toHaveLength(2);
    for (const option of listedGroup?.options ?? []) expect(ids).not.toContain(option.id);
    expect(body.data.find((item) => item.id === paid.id)).toMatchObject({ status: 'funded', payout_tx_hash: '0xfeed' });
  });

  it('an empty shop answers an empty page', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    expect(await page(owner.key.token, owner.shop.id)).toEqual({ data: [], next_cursor: null });
  });
});

describe('GET /shops/{shop_id}/issuances: pages', () => {
  it('every page size walks the same sequence, with no duplicate and no gap, through rows that share created_at', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const shopId = owner.shop.id;
    // Seven invoices and two groups at one instant, then three at later instants.
    for (let index = 0; index < 7; index += 1) created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(1 + index) }));
    for (let index = 0; index < 2; index += 1) created(await createInvoice(app, token, shopId, { assets: groupAssets, amount: String(1 + index) }));
    for (let index = 0; index < 3; index += 1) {
      app.clock.advance(1);
      created(await createDeposit(app, token, shopId, { chain_id: BASE, token: BASE_USDC }));
    }
    const expected = await storedOrder(shopId);
    expect(expected).toHaveLength(12);
    for (const limit of [1, 2, 3, 4, 5, 6, 11, 12, 13, 100]) {
      expect(await walk(token, shopId, limit), `limit ${limit}`).toEqual(expected);
    }
    // The default page is 50: all twelve, no next page.
    expect((await page(token, shopId)).data.map((item) => item.id)).toEqual(expected);
  });

  it('the cursor keeps microseconds: rows a microsecond apart, or apart only by id, are neither skipped nor repeated', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const shopId = owner.shop.id;
    const rows = ['2026-03-01T10:00:00.000001Z', '2026-03-01T10:00:00.000002Z', '2026-03-01T10:00:00.000002Z', '2026-03-01T10:00:00.0005Z', '2026-03-01T10:00:00.001Z'].map(
      (at, index) => ({ ...openInvoiceRow({ shopId, merchantId: owner.merchant.id }, `micro-${shopId}-${index}`, new Date(at)), created_at: sql<Date>`cast(${at} as timestamptz)` }),
    );
    await app.context.db.insertInto('issuances').values(rows).execute();
    const expected = await storedOrder(shopId);
    expect(expected).toHaveLength(5);
    expect(await walk(owner.key.token, shopId, 1)).toEqual(expected);
    expect(await walk(owner.key.token, shopId, 2)).toEqual(expected);
  });

  it('a page stays where it was while newer issuances are created (keyset, not offset)', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const shopId = owner.shop.id;
    for (let index = 0; index < 5; index += 1) {
      app.clock.advance(1000);
      created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(1 + index) }));
    }
    const before = await storedOrder(shopId);
    const first = await page(token, shopId, '?limit=2');
    app.clock.advance(1000);
    const newer = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(9) }));
    const rest = await page(token, shopId, `?limit=100&cursor=${encodeURIComponent(first.next_cursor ?? '')}`);
    expect([...first.data, ...rest.data].map((item) => item.id)).toEqual(before);
    expect((await page(token, shopId, '?limit=1')).data[0]?.id).toBe(newer.id);
  });
});

describe('GET /shops/{shop_id}/issuances: filters', () => {
  let token: string;
  let shopId: string;
  const at: Record<string, string> = {};
  const id: Record<string, string> = {};

  beforeAll(async () => {
    const owner = await createOwnerWithShop(app.context.db);
    token = owner.key.token;
    shopId = owner.shop.id;
    const step = () => app.clock.advance(1000);
    step();
    at.start = app.clock.now().toISOString();
    id.open = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10), external_id: 'order-1' })).id;
    step();
    id.cancelled = created(await createInvoice(app, token, shopId, { chain_id: ARBITRUM, token: ARBITRUM_USDC, amount: usdc(10), external_id: 'order-2' })).id;
    step();
    id.deposit = created(await createDeposit(app, token, shopId, { chain_id: BASE, token: BASE_USDC, external_id: 'order-1' })).id;
    step();
    at.middle = app.clock.now().toISOString();
    id.group = created(await createInvoice(app, token, shopId, { assets: groupAssets, amount: '10', external_id: 'cart-1' })).id;
    step();
    id.paidGroup = created(await createInvoice(app, token, shopId, { assets: [{ chain_id: ARBITRUM, token: ARBITRUM_USDT }, { chain_id: BNB, token: BNB_USDT }], amount: '3' })).id;
    step();
    id.funded = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(2) })).id;
    await app.jobs.drain();
    expect((await cancel(app, token, shopId, id.cancelled)).statusCode).toBe(200);
    await pay(app, token, shopId, id.funded, usdc(2));
    const paidGroup = await read(app, token, shopId, id.paidGroup);
    await pay(app, token, shopId, paidGroup.options[0].id, usdc(3));
    step();
    at.end = app.clock.now().toISOString();
    // Created after the drain: still waiting for its address.
    id.registering = created(await createInvoice(app, token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(1) })).id;
    id.registeringGroup = created(await createInvoice(app, token, shopId, { assets: groupAssets, amount: '1' })).id;
  });

  /** The ids a filtered walk lists, with page size 2 so that the filters also hold across pages. */
  async function filtered(query: string): Promise<string[]> {
    const ids = await walk(token, shopId, 2, `&${query}`);
    expect((await page(token, shopId, `?${query}`)).data.map((item) => item.id)).toEqual(ids);
    return ids;
  }

  /** `names` in the list's order (newest first). */
  async function inOrder(...names: string[]): Promise<string[]> {
    const order = await storedOrder(shopId);
    return names.map((name) => id[name] ?? name).sort((a, b) => order.indexOf(a) - order.indexOf(b));
  }

  it('kind', async () => {
    expect(await filtered('kind=deposit')).toEqual(await inOrder('deposit'));
    expect(await filtered('kind=invoice')).toEqual(await inOrder('open', 'cancelled', 'group', 'paidGroup', 'funded', 'registering', 'registeringGroup'));
  });

  it('status: a SPEC status; a group by the status its own GET shows', async () => {
    expect(await filtered('status=open')).toEqual(await inOrder('open', 'cancelled', 'deposit', 'group'));
    expect(await filtered('status=funded')).toEqual(await inOrder('paidGroup', 'funded'));
    expect(await filtered('status=registering')).toEqual(await inOrder('registering', 'registeringGroup'));
    expect(await filtered('status=settled')).toEqual([]);
    expect(await filtered('status=reconciling')).toEqual([]);
    // The filter and the view agree on every item.
    for (const status of ['registering', 'open', 'funded', 'settled', 'reconciling']) {
      for (const item of (await page(token, shopId, `?status=${status}`)).data) expect((await read(app, token, shopId, item.id)).status).toBe(status);
    }
  });

  it('cancelled: true lists those with cancelled_at, false those without (cancellation is not a status)', async () => {
    expect(await filtered('cancelled=true')).toEqual(await inOrder('cancelled'));
    expect(await filtered('cancelled=false')).toEqual(await inOrder('open', 'deposit', 'group', 'paidGroup', 'funded', 'registering', 'registeringGroup'));
    expect(await filtered('cancelled=true&status=open')).toEqual(await inOrder('cancelled'));
  });

  it('external_id: exact match, on issuances and on groups', async () => {
    expect(await filtered('external_id=order-1')).toEqual(await inOrder('open', 'deposit'));
    expect(await filtered('external_id=cart-1')).toEqual(await inOrder('group'));
    expect(await filtered('external_id=ORDER-1')).toEqual([]);
    expect(await filtered('external_id=order')).toEqual([]);
  });

  it('created_after and created_before: exclusive bounds, any zone', async () => {
    expect(await filtered(`created_after=${at.middle}`)).toEqual(await inOrder('paidGroup', 'funded', 'registering', 'registeringGroup'));
    expect(await filtered(`created_before=${at.middle}`)).toEqual(await inOrder('open', 'cancelled', 'deposit'));
    expect(await filtered(`created_after=${at.start}&created_before=${at.end}`)).toEqual(await inOrder('cancelled', 'deposit', 'group', 'paidGroup', 'funded'));
    // The same instant written in another zone, with microseconds.
    const middle = new Date(at.middle ?? '');
    const inZone = `${new Date(middle.getTime() + 2 * 3_600_000).toISOString().slice(0, 23)}000+02:00`;
    expect(await filtered(`created_after=${encodeURIComponent(inZone)}`)).toEqual(await filtered(`created_after=${at.middle}`));
  });

  it('chain_id and token: on an issuance, or on any option of a group (both in the same option)', async () => {
    expect(await filtered(`chain_id=${BNB}`)).toEqual(await inOrder('group', 'paidGroup', 'registeringGroup'));
    expect(await filtered(`chain_id=${ARBITRUM}`)).toEqual(await inOrder('cancelled', 'paidGroup'));
    expect(await filtered(`token=${ARBITRUM_USDT}`)).toEqual(await inOrder('paidGroup'));
    const onBase = await inOrder('open', 'deposit', 'group', 'funded', 'registering', 'registeringGroup');
    expect(await filtered(`token=${BASE_USDC}`)).toEqual(onBase);
    // Compared in the stored (catalogue) spelling: any letter case of an EVM address.
    expect(await filtered(`token=${BASE_USDC.toLowerCase()}`)).toEqual(onBase);
    expect(await filtered(`chain_id=${BASE}&token=${BASE_USDC.toUpperCase().replace('0X', '0x')}`)).toEqual(onBase);
    // BNB USDT is an option of the group, Base its other option: no one option is both.
    expect(await filtered(`chain_id=${BASE}&token=${BNB_USDT}`)).toEqual([]);
    expect(await filtered('chain_id=1')).toEqual([]);
  });

  it('filters combine with AND', async () => {
    expect(await filtered(`kind=invoice&status=open&chain_id=${BASE}`)).toEqual(await inOrder('open', 'group'));
    expect(await filtered(`kind=invoice&cancelled=false&external_id=order-1&created_before=${at.end}`)).toEqual(await inOrder('open'));
  });
});

describe('GET /shops/{shop_id}/issuances: bad input', () => {
  const refusals: readonly (readonly [string, string])[] = [
    ['kind=invoices', 'kind'],
    ['kind=', 'kind'],
    ['status=cancelled', 'status'],
    ['status=OPEN', 'status'],
    ['cancelled=yes', 'cancelled'],
    ['cancelled=1', 'cancelled'],
    ['external_id=', 'external_id'],
    [`external_id=${'x'.repeat(1001)}`, 'external_id'],
    ['external_id=a%00b', 'external_id'],
    ['created_after=2026-11-27', 'created_after'],
    ['created_after=2026-11-27T10:00:00', 'created_after'],
    ['created_after=2026-13-01T00:00:00Z', 'created_after'],
    ['created_after=2026-02-30T00:00:00Z', 'created_after'],
    ['created_after=2026-11-27T24:00:00Z', 'created_after'],
    ['created_after=0000-01-01T00:00:00Z', 'created_after'],
    ['created_before=2026-11-27T10:00:00%2B15:00', 'created_before'],
    ['created_before=yesterday', 'created_before'],
    ['chain_id=0', 'chain_id'],
    ['chain_id=-1', 'chain_id'],
    ['chain_id=1.5', 'chain_id'],
    ['chain_id=1e3', 'chain_id'],
    ['chain_id=9007199254740992', 'chain_id'],
    ['chain_id=base', 'chain_id'],
    ['token=', 'token'],
    ['token=0x12-34', 'token'],
    [`token=${'a'.repeat(129)}`, 'token'],
    ['stauts=open', 'stauts'],
    ['status=open&status=funded', 'status'],
  ];
  const badLimits = ['0', '101', '-1', '1.5', 'ten', '', '0050'];
  const badCursors = [
    'not-a-cursor!',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z'])).toString('base64url'),
    Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', 'not-a-uuid'])).toString('base64url'),
    Buffer.from(JSON.stringify(['2026-01-01T00:00:00Z', newId()])).toString('base64url'),
    Buffer.from(JSON.stringify(['2026-13-01T00:00:00.000000Z', newId()])).toString('base64url'),
    Buffer.from(JSON.stringify([1767225600000, newId()])).toString('base64url'),
  ];

  it('answers 400 invalid_request with details {field, reason} naming the parameter, and stores nothing', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    created(await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }));
    const before = await storedCounts(app, owner.shop.id);
    for (const [query, field] of refusals) {
      const response = await list(owner.key.token, owner.shop.id, `?${query}`);
      expect(`${query}: ${response.statusCode}`).toBe(`${query}: 400`);
      expect(response.json(), query).toEqual({ error: { code: 'invalid_request', message: 'invalid_request', details: { field, reason: expect.any(String) } } });
    }
    for (const limit of badLimits) {
      const response = await list(owner.key.token, owner.shop.id, `?limit=${limit}`);
      expect(response.statusCode, limit).toBe(400);
      expect(response.json().error, limit).toEqual({ code: 'invalid_request', message: 'invalid_request', details: { field: 'limit', reason: expect.any(String), minimum: 1, maximum: 100 } });
    }
    for (const cursor of badCursors) {
      const response = await list(owner.key.token, owner.shop.id, `?cursor=${encodeURIComponent(cursor)}`);
      expect(response.statusCode, cursor).toBe(400);
      expect(response.json(), cursor).toEqual({
        error: { code: 'invalid_cursor', message: 'invalid_cursor', details: { field: 'cursor', reason: expect.stringContaining('next_cursor') } },
      });
    }
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
  });

  it('accepts the edges: limit 1 and 100, zones up to ±14:00, nanosecond fractions, a future bound', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    created(await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }));
    for (const query of [
      'limit=1',
      'limit=100',
      'created_after=2000-01-01T00:00:00.123456789-14:00',
      'created_before=9999-12-31T23:59:59%2B14:59',
      'chain_id=2147483647',
      'chain_id=3448148188',
      'chain_id=9007199254740991',
      'external_id=%F0%9F%A7%BE',
    ]) {
      expect((await list(owner.key.token, owner.shop.id, `?${query}`)).statusCode, query).toBe(200);
    }
  });

  it('checks access before the query: a caller without access learns nothing from a bad query', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const writeOnly = await createApiKey(app.context.db, { id: owner.shop.id, merchantId: owner.merchant.id }, { scopes: ['write'] });
    const stranger = await createOwnerWithShop(app.context.db);
    expect((await list(writeOnly.token, owner.shop.id, '?limit=0')).json().error.code).toBe('forbidden');
    expect((await list(stranger.session.token, owner.shop.id, '?stauts=open')).json().error.code).toBe('shop_not_found');
  });
});

describe('GET /shops/{shop_id}/issuances: who may list (as GET of one issuance)', () => {
  it('a read key or a session with access to the shop; the same refusals as GET /shops/{shop_id}/issuances/{id}', async () => {
    const db = app.context.db;
    const owner = await createOwnerWithShop(db);
    const shopId = owner.shop.id;
    const one = created(await createInvoice(app, owner.key.token, shopId, { chain_id: BASE, token: BASE_USDC, amount: usdc(10) }));
    const otherShop = await createShop(db, owner.merchant.id, { sandbox: false });
    const stranger = await createOwnerWithShop(db);
    const callers: Record<string, { token: string | null; expected: string }> = {
      'read key': { token: (await createApiKey(db, { id: shopId, merchantId: owner.merchant.id }, { scopes: ['read'] })).token, expected: '200' },
      'read+write key': { token: owner.key.token, expected: '200' },
      'write-only key': { token: (await createApiKey(db, { id: shopId, merchantId: owner.merchant.id }, { scopes: ['write'] })).token, expected: '403 forbidden' },
      'read key of another shop of the merchant': {
        token: (await createApiKey(db, { id: otherShop.id, merchantId: owner.merchant.id }, { scopes: ['read'] })).token,
        expected: '403 forbidden',
      },
      'read key of another merchant': { token: stranger.key.token, expected: '404 shop_not_found' },
      'disabled read key': { token: (await createApiKey(db, { id: shopId, merchantId: owner.merchant.id }, { scopes: ['read'], enabled: false })).token, expected: '401 unauthorized' },
      owner: { token: owner.session.token, expected: '200' },
      viewer: { token: (await member(db, owner.merchant.id, 'viewer')).token, expected: '200' },
      developer: { token: (await member(db, owner.merchant.id, 'developer')).token, expected: '200' },
      'viewer of this shop only': { token: (await member(db, owner.merchant.id, 'viewer', shopId)).token, expected: '200' },
      'owner of another shop only': { token: (await member(db, owner.merchant.id, 'owner', otherShop.id)).token, expected: '404 shop_not_found' },
      'session of another merchant': { token: stranger.session.token, expected: '404 shop_not_found' },
      'no credential': { token: null, expected: '401 unauthorized' },
    };
    const outcome = (response: { statusCode: number; json(): unknown }) =>
      response.statusCode === 200 ? '200' : `${response.statusCode} ${(response.json() as { error: { code: string } }).error.code}`;
    const seen: Record<string, string> = {};
    const single: Record<string, string> = {};
    const wanted: Record<string, string> = {};
    for (const [name, caller] of Object.entries(callers)) {
      const headers = caller.token === null ? {} : authed(caller.token);
      const listed = await app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/issuances`, headers });
      seen[name] = outcome(listed);
      single[name] = outcome(await app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/issuances/${one.id}`, headers }));
      wanted[name] = caller.expected;
      if (listed.statusCode === 200) expect(listed.json<Page>().data.map((item) => item.id)).toEqual([one.id]);
    }
    expect(seen).toEqual(wanted);
    expect(seen).toEqual(single);
  });

  it('an unknown shop, a malformed shop id and an archived shop answer as GET of one issuance does', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const archived = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    await app.context.db.updateTable('shops').set({ archived_at: app.clock.now() }).where('id', '=', archived.id).execute();
    for (const [shopId, expected] of [
      [newId(), { status: 404, code: 'shop_not_found' }],
      ['not-a-shop', { status: 404, code: 'shop_not_found' }],
      [archived.id, { status: 400, code: 'shop_archived' }],
    ] as const) {
      const listed = await list(owner.session.token, shopId);
      const single = await app.request({ method: 'GET', url: `/api/v1/shops/${shopId}/issuances/${newId()}`, headers: authed(owner.session.token) });
      expect({ status: listed.statusCode, code: listed.json().error.code }).toEqual(expected);
      expect({ status: single.statusCode, code: single.json().error.code }).toEqual(expected);
    }
  });
});

describe('GET /projects/{project_id}/issuances (SPEC "Versioning": legacy alias)', () => {
  it('answers exactly what the /shops route answers, pages, filters and errors alike', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    for (let index = 0; index < 3; index += 1) {
      app.clock.advance(1000);
      created(await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(1 + index), external_id: `alias-${index}` }));
    }
    const first = await page(token, owner.shop.id, '?limit=2');
    for (const query of ['', '?limit=2', `?limit=2&cursor=${first.next_cursor}`, '?external_id=alias-1', '?limit=0', '?stauts=open', '?cursor=x']) {
      const viaShops = await list(token, owner.shop.id, query);
      const viaProjects = await list(token, owner.shop.id, query, 'projects');
      expect(viaProjects.statusCode, query).toBe(viaShops.statusCode);
      expect(viaProjects.body, query).toBe(viaShops.body);
    }
  });
});

describe('the typed client (src/client) lists issuances', () => {
  it('calls GET /shops/{shop_id}/issuances with its query, and the answer matches the OpenAPI document', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    created(await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10), external_id: 'typed' }));
    app.clock.advance(1000);
    created(await createInvoice(app, token, owner.shop.id, { assets: groupAssets, amount: '10', external_id: 'typed' }));
    app.clock.advance(1000);
    created(await createInvoice(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10), external_id: 'other' }));
    const client = typedClient(baseUrl, token);
    const path = { shop_id: owner.shop.id };
    const first = await client.GET('/shops/{shop_id}/issuances', { params: { path, query: { external_id: 'typed', limit: '1' } } });
    expect(first.response.status).toBe(200);
    const [group] = first.data?.data ?? [];
    expect(group !== undefined && 'group' in group && group.options).toHaveLength(2);
    const second = await client.GET('/shops/{shop_id}/issuances', { params: { path, query: { external_id: 'typed', limit: '1', cursor: first.data?.next_cursor ?? '' } } });
    expect(second.data?.data.map((item) => 'group' in item)).toEqual([false]);
    expect(second.data?.next_cursor).toBeNull();
    const refused = await client.GET('/shops/{shop_id}/issuances', { params: { path, query: { status: 'cancelled' } } });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.error.code).toBe('invalid_request');
  });
});
