import { getAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, newIdempotencyKey } from '../support/app.js';
import { ADMIN_TOKEN, createLiveDeposit, createLiveInvoice, fundRelayer, liveShop, mineAndSettle, pay, readIssuance, startChainHarness, type ChainHarness } from '../support/evm-chain.js';
import { createApiKey } from '../support/factories.js';

// Issue 22 item 5: transfers of catalogue tokens to Ivory's payment addresses that no issuance
// can take are listed for the shop (GET /shops/{id}/unmatched-transfers, read scope, newest
// first) and for the operator (GET /admin/v1/unmatched-transfers). Paused deposits and cancelled
// invoices are not unmatched: SPEC keeps them monitored and LEDGER credits them.

let harness: ChainHarness;
let shop: Awaited<ReturnType<typeof liveShop>>;

beforeAll(async () => {
  harness = await startChainHarness();
  await fundRelayer(harness);
  shop = await liveShop(harness.app, privateKeyToAccount(generatePrivateKey()).address);
}, 120_000);
afterAll(async () => harness?.close());

const unmatched = (query = '', token = shop.token) =>
  harness.app.request({ method: 'GET', url: `/api/v1/shops/${shop.shopId}/unmatched-transfers${query}`, headers: authed(token) });

describe('unmatched transfers (issue 22 item 5)', () => {
  it('a token other than the issuance\'s is listed with its reason, newest first, and never credited; cancelled invoices and paused deposits are credited, not listed', async () => {
    const invoice = await createLiveInvoice(harness, shop, 10_000_000n);
    const first = await pay(harness, invoice.address, 3_000_000n, harness.otherToken);
    const second = await pay(harness, invoice.address, 4_000_000n, harness.otherToken);
    // A cancelled invoice paid in its own token, and a paused deposit: credited, not unmatched.
    const cancelled = await createLiveInvoice(harness, shop, 10_000_000n);
    const cancel = await harness.app.request({ method: 'POST', url: `/api/v1/shops/${shop.shopId}/invoices/${cancelled.id}/cancel`, headers: authed(shop.token, newIdempotencyKey()) });
    expect(cancel.statusCode, cancel.body).toBe(200);
    await pay(harness, cancelled.address, 10_000_000n);
    const deposit = await createLiveDeposit(harness, shop);
    const pause = await harness.app.request({ method: 'PATCH', url: `/api/v1/shops/${shop.shopId}/deposits/${deposit.id}`, headers: authed(shop.token, newIdempotencyKey()), payload: { enabled: false } });
    expect(pause.statusCode, pause.body).toBe(200);
    await pay(harness, deposit.address, 2_000_000n);
    await mineAndSettle(harness);
    await mineAndSettle(harness);

    const listed = await unmatched();
    expect(listed.statusCode, listed.body).toBe(200);
    const rows = listed.json() as { data: Record<string, unknown>[]; next_cursor: string | null };
    expect(rows.data.map((row) => [row.tx_hash, row.amount])).toEqual([
      [second, '4000000'],
      [first, '3000000'],
    ]);
    expect(rows.data[0]).toMatchObject({
      chain_id: harness.anvil.chainId,
      log_index: expect.any(Number),
      block_number: expect.any(Number),
      address: getAddress(invoice.address),
      token: getAddress(harness.otherToken as Address),
      reason: 'other_token',
      status: 'confirmed',
      issuance_id: invoice.id,
    });
    expect(rows.next_cursor).toBeNull();
    expect((await readIssuance(harness, shop, invoice.id)).received).toBe('0');
    expect((await readIssuance(harness, shop, cancelled.id)).received).toBe('10000000');
    expect((await readIssuance(harness, shop, deposit.id)).received).toBe('2000000');

    // Pages: one row each, by cursor, the same rows in the same order.
    const page1 = (await unmatched('?limit=1')).json() as { data: { tx_hash: string }[]; next_cursor: string };
    const page2 = (await unmatched(`?limit=1&cursor=${page1.next_cursor}`)).json() as { data: { tx_hash: string }[]; next_cursor: string | null };
    expect([...page1.data, ...page2.data].map((row) => row.tx_hash)).toEqual([second, first]);
    expect(page2.next_cursor).toBeNull();
    expect((await unmatched('?limit=0')).json().error).toMatchObject({ code: 'invalid_request', details: { field: 'limit' } });
    expect((await unmatched('?cursor=nonsense')).json().error.code).toBe('invalid_cursor');
  }, 120_000);

  it('needs read access: a write-only key is forbidden; the operator sees every shop\'s, with whose they are', async () => {
    const writeOnly = await createApiKey(harness.app.context.db, { id: shop.shopId, merchantId: shop.merchantId }, { scopes: ['write'] });
    expect((await unmatched('', writeOnly.token)).statusCode).toBe(403);
    const operator = await harness.app.request({ method: 'GET', url: `/admin/v1/unmatched-transfers?chain_id=${harness.anvil.chainId}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(operator.statusCode, operator.body).toBe(200);
    const rows = (operator.json() as { data: Record<string, unknown>[] }).data;
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatchObject({ shop_id: shop.shopId, merchant_id: shop.merchantId, reason: 'other_token' });
    const other = await harness.app.request({ method: 'GET', url: '/admin/v1/unmatched-transfers?chain_id=1', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(other.json().data).toEqual([]);
    expect((await harness.app.request({ method: 'GET', url: '/admin/v1/unmatched-transfers' })).statusCode).toBe(401);
  }, 60_000);
});
