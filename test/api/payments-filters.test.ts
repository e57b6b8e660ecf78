import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/platform/crypto.js';
import { createTestApp, authed, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, createInvoice, openInvoice, pay, read, simulate, usdc } from './issuances-helpers.js';

// Decision 0038 (beyond SPEC, additive): GET /shops/{shop_id}/payments and
// GET /shops/{shop_id}/export.csv take the same filters (issuance_id, type,
// status, chain_id, token, created_after, created_before), the export holding
// exactly what the filtered list shows; GET /shops/{shop_id}/events takes
// issuance_id. A bad value is 400 invalid_request naming the parameter, as the
// other lists answer (decision 0024); unknown parameters stay ignored, as SPEC's
// `limit`-only list has always done.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

interface Payment {
  id: string;
  type: 'transfer' | 'payout';
  issuance_id: string;
  status: string;
  chain_id: number;
  token: string;
  created_at: string;
}

function get(token: string, url: string) {
  return app.request({ method: 'GET', url: `/api/v1${url}`, headers: authed(token) });
}

/** Every page of a list, walked with `limit` and the cursor it gives. */
async function walk<Item>(token: string, path: string, query: string, limit = 2): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages += 1) {
    const separator = query === '' ? '' : '&';
    const response = await get(token, `${path}?${query}${separator}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as { data: Item[]; next_cursor: string | null };
    items.push(...body.data);
    cursor = body.next_cursor;
    if (cursor === null) return items;
  }
  throw new Error('more than 100 pages');
}

/**
 * A sandbox shop with: a paid invoice on Base (two transfers, one payout), a
 * partly paid one with a reversed transfer, and a group on Base and Arbitrum
 * paid through its Arbitrum option — each a second apart.
 */
async function shopWithHistory() {
  const owner = await createOwnerWithShop(app.context.db);
  const token = owner.key.token;
  const shopId = owner.shop.id;
  const paid = await openInvoice(app, token, shopId, usdc(100));
  await pay(app, token, shopId, paid.id, usdc(40));
  await pay(app, token, shopId, paid.id, usdc(60));
  const partial = await openInvoice(app, token, shopId, usdc(50));
  const reversed = await pay(app, token, shopId, partial.id, usdc(5));
  app.clock.advance(1000);
  const reverted = await simulate(app, token, shopId, { issuance_id: partial.id, kind: 'transfer.reverted', amount: '0', reference_event_id: reversed.event_id });
  expect(reverted.statusCode, reverted.body).toBe(200);
  const created = await createInvoice(app, token, shopId, { assets: [{ chain_id: BASE, token: BASE_USDC }, { chain_id: ARBITRUM, token: ARBITRUM_USDC }], amount: '10' });
  expect(created.statusCode, created.body).toBe(202);
  await app.jobs.drain();
  const group = await read(app, token, shopId, created.json().id);
  const arbitrumOption = (group.options as { id: string; chain_id: number }[]).find((option) => option.chain_id === ARBITRUM)!;
  await pay(app, token, shopId, arbitrumOption.id, usdc(10));
  app.clock.advance(1000);
  return { owner, token, shopId, paid, partial, group, arbitrumOption };
}

describe('decision 0038: GET /shops/{shop_id}/payments filters', () => {
  let history: Awaited<ReturnType<typeof shopWithHistory>>;
  let everything: Payment[];
  beforeAll(async () => {
    history = await shopWithHistory();
    everything = await walk<Payment>(history.token, `/shops/${history.shopId}/payments`, '', 100);
    expect(everything).toHaveLength(6); // 3 + 1 + 2: transfers and payouts of the three
  });

  async function filtered(query: string): Promise<string[]> {
    return (await walk<Payment>(history.token, `/shops/${history.shopId}/payments`, query)).map((item) => item.id);
  }
  const ids = (items: Payment[]) => items.map((item) => item.id);

  it('issuance_id: exactly that issuance\'s transfers and payouts, across pages, in the list\'s order', async () => {
    const expected = ids(everything.filter((item) => item.issuance_id === history.paid.id));
    expect(expected).toHaveLength(3); // two transfers and the payout
    expect(await filtered(`issuance_id=${history.paid.id}`)).toEqual(expected);
    // Ids are matched whatever their letter case, as GET of one issuance takes them.
    expect(await filtered(`issuance_id=${history.paid.id.toUpperCase()}`)).toEqual(expected);
  });

  it('issuance_id of a group: the payments of all its options', async () => {
    const optionIds = (history.group.options as { id: string }[]).map((option) => option.id);
    const expected = ids(everything.filter((item) => optionIds.includes(item.issuance_id)));
    expect(expected.length).toBeGreaterThanOrEqual(2);
    expect(await filtered(`issuance_id=${history.group.id}`)).toEqual(expected);
  });

  it('issuance_id of another shop\'s issuance, or of none: an empty page, never its payments', async () => {
    const stranger = await shopWithHistory();
    expect(await filtered(`issuance_id=${stranger.paid.id}`)).toEqual([]);
    expect(await filtered(`issuance_id=${newId()}`)).toEqual([]);
    // The stranger's own list does have them: the filter was not simply broken.
    expect((await walk<Payment>(stranger.token, `/shops/${stranger.shopId}/payments`, `issuance_id=${stranger.paid.id}`)).length).toBe(3);
  });

  it('type, status, chain_id, token: each narrows to the rows the unfiltered list shows with that value', async () => {
    expect(await filtered('type=payout')).toEqual(ids(everything.filter((item) => item.type === 'payout')));
    expect(await filtered('type=transfer')).toEqual(ids(everything.filter((item) => item.type === 'transfer')));
    for (const status of ['confirmed', 'reverted', 'simulated']) {
      const expected = ids(everything.filter((item) => item.status === status));
      expect(expected.length, status).toBeGreaterThan(0);
      expect(await filtered(`status=${status}`), status).toEqual(expected);
    }
    // A sandbox payout shows `simulated`, so its stored queue status matches nothing here.
    expect(await filtered('status=scheduled')).toEqual([]);
    expect(await filtered(`chain_id=${ARBITRUM}`)).toEqual(ids(everything.filter((item) => item.chain_id === ARBITRUM)));
    // EVM token addresses in any letter case, as the issuance list takes them.
    const onBase = ids(everything.filter((item) => item.token === BASE_USDC));
    expect(await filtered(`token=${BASE_USDC.toLowerCase()}`)).toEqual(onBase);
    expect(await filtered(`chain_id=${BASE}&token=${BASE_USDC}&type=transfer&status=confirmed`)).toEqual(
      ids(everything.filter((item) => item.token === BASE_USDC && item.type === 'transfer' && item.status === 'confirmed')),
    );
  });

  it('created_after / created_before: exclusive bounds on the time each row shows', async () => {
    const times = [...new Set(everything.map((item) => item.created_at))].sort();
    const middle = times[Math.floor(times.length / 2)]!;
    expect(await filtered(`created_after=${encodeURIComponent(middle)}`)).toEqual(ids(everything.filter((item) => item.created_at > middle)));
    expect(await filtered(`created_before=${encodeURIComponent(middle)}`)).toEqual(ids(everything.filter((item) => item.created_at < middle)));
    // A zone other than Z means the same instant.
    const shifted = new Date(middle).toISOString().replace('Z', '+00:00');
    expect(await filtered(`created_after=${encodeURIComponent(shifted)}`)).toEqual(ids(everything.filter((item) => item.created_at > middle)));
  });

  it('no filter: the whole history, as SPEC shows the route', async () => {
    expect(await filtered('')).toEqual(ids(everything));
  });

  it('a bad value is 400 invalid_request naming the parameter, on the list and the export alike', async () => {
    const cases: [string, string][] = [
      ['issuance_id=not-an-id', 'issuance_id'],
      ['issuance_id=', 'issuance_id'],
      ['type=refund', 'type'],
      ['status=paid', 'status'],
      ['chain_id=0', 'chain_id'],
      ['chain_id=base', 'chain_id'],
      ['token=0x%20', 'token'],
      ['created_after=yesterday', 'created_after'],
      ['created_before=2026-02-30T00:00:00Z', 'created_before'],
    ];
    for (const [query, field] of cases) {
      for (const path of ['payments', 'export.csv']) {
        const response = await get(history.token, `/shops/${history.shopId}/${path}?${query}`);
        expect(response.statusCode, `${path}?${query}`).toBe(400);
        expect(response.headers['content-type']).toMatch(/^application\/json/);
        expect(response.json().error, `${path}?${query}`).toMatchObject({ code: 'invalid_request', details: { field } });
      }
    }
  });
});

describe('decision 0038: GET /shops/{shop_id}/export.csv holds exactly what the filtered list shows', () => {
  it('the same filter gives the same rows, oldest first in the CSV, newest first in the list', async () => {
    const history = await shopWithHistory();
    for (const query of ['', `issuance_id=${history.paid.id}`, `issuance_id=${history.group.id}`, 'type=transfer&status=confirmed', `chain_id=${ARBITRUM}`, 'status=reverted']) {
      const listed = await walk<Payment>(history.token, `/shops/${history.shopId}/payments`, query);
      const response = await get(history.token, `/shops/${history.shopId}/export.csv${query === '' ? '' : `?${query}`}`);
      expect(response.statusCode, query).toBe(200);
      const lines = response.body.split('\r\n').filter((line) => line !== '');
      const rows = lines.slice(1).map((line) => line.split(','));
      // Columns kind, id, issuance_id (the CSV's own header names them).
      expect(lines[0]!.split(',').slice(0, 3)).toEqual(['kind', 'id', 'issuance_id']);
      expect(rows.map((row) => [row[0], row[1], row[2]]), query).toEqual(listed.map((item) => [item.type, item.id, item.issuance_id]).reverse());
    }
  });
});

describe('decision 0038: GET /shops/{shop_id}/events?issuance_id=', () => {
  interface EventItem {
    id: string;
    type: string;
    data: { issuance_id?: string; group_id?: string };
  }

  it('lists exactly the events about that issuance (a group: its options), across pages; another shop\'s issuance gives none', async () => {
    const history = await shopWithHistory();
    const path = `/shops/${history.shopId}/events`;
    const everything = await walk<EventItem>(history.token, path, '', 100);
    const about = (id: string) => everything.filter((event) => event.data.issuance_id === id).map((event) => event.id);
    expect(about(history.paid.id).length).toBeGreaterThanOrEqual(2);
    expect((await walk<EventItem>(history.token, path, `issuance_id=${history.paid.id}`)).map((event) => event.id)).toEqual(about(history.paid.id));
    const ofGroup = everything.filter((event) => event.data.group_id === history.group.id).map((event) => event.id);
    expect(ofGroup.length).toBeGreaterThan(0);
    expect((await walk<EventItem>(history.token, path, `issuance_id=${history.group.id}`)).map((event) => event.id)).toEqual(ofGroup);
    // Combined with the list's own filters.
    expect((await walk<EventItem>(history.token, path, `issuance_id=${history.paid.id}&type=transfer.confirmed`)).map((event) => event.id)).toEqual(
      everything.filter((event) => event.data.issuance_id === history.paid.id && event.type === 'transfer.confirmed').map((event) => event.id),
    );

    const stranger = await shopWithHistory();
    expect(await walk<EventItem>(history.token, path, `issuance_id=${stranger.paid.id}`)).toEqual([]);
    expect(await walk<EventItem>(history.token, path, `issuance_id=${newId()}`)).toEqual([]);
  });

  it('a malformed issuance_id is 400 invalid_request naming it', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await get(owner.key.token, `/shops/${owner.shop.id}/events?issuance_id=42`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'invalid_request', details: { field: 'issuance_id', reason: 'must be a UUID' } });
  });
});
