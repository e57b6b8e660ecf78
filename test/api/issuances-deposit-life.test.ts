import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authed, createTestApp, newIdempotencyKey, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import {
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  cancel,
  createDeposit,
  eventsOf,
  pay,
  payoutsOf,
  read,
  setEnabled,
  simulate,
  transfersOf,
  usdc,
} from './issuances-helpers.js';

// SPEC "Invoices and deposits" (deposits), "States and transitions" (deposits never expire;
// pausing), LEDGER "Deposits" (Base: sweep threshold 10 USDC, deposit terms 50 / 0.1e18 / 5e18).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

describe('a deposit through its whole life', () => {
  it('accepts repeated top-ups, sweeps at the threshold, B restarts, pausing closes the page only', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    const created = await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, external_id: 'user-42' });
    expect(created.statusCode).toBe(202);
    const deposit = created.json();
    expect(deposit).toMatchObject({ kind: 'deposit', status: 'registering', amount: null, expires_at: null, received: '0', external_id: 'user-42' });

    await app.jobs.drain();
    expect((await read(app, token, owner.shop.id, deposit.id)).status).toBe('open');

    await pay(app, token, owner.shop.id, deposit.id, usdc(4));
    expect(await payoutsOf(app, deposit.id)).toEqual([]);
    await pay(app, token, owner.shop.id, deposit.id, usdc(7));
    const [sweep] = await payoutsOf(app, deposit.id);
    expect(sweep).toMatchObject({ status: 'scheduled', gross: usdc(11), fee: usdc(0.1), to_recipient: usdc(10.9), to_operator: usdc(0.1) });

    // Paused: still credited and swept.
    const paused = await setEnabled(app, token, owner.shop.id, deposit.id, false);
    expect(paused.statusCode).toBe(200);
    expect(paused.json().disabled_at).not.toBeNull();
    await pay(app, token, owner.shop.id, deposit.id, usdc(3));
    await pay(app, token, owner.shop.id, deposit.id, usdc(8));
    expect((await payoutsOf(app, deposit.id)).map((row) => row.gross)).toEqual([usdc(11), usdc(11)]);
    const transfers = await transfersOf(app, deposit.id);
    const payouts = await payoutsOf(app, deposit.id);
    expect(transfers.map((row) => row.payout_id)).toEqual([payouts[0]?.id, payouts[0]?.id, payouts[1]?.id, payouts[1]?.id]);

    const again = await setEnabled(app, token, owner.shop.id, deposit.id, false);
    expect(again.statusCode).toBe(200);
    expect(again.json().disabled_at).toBe(paused.json().disabled_at);
    const enabled = await setEnabled(app, token, owner.shop.id, deposit.id, true);
    expect(enabled.json().disabled_at).toBeNull();

    // Deposits never expire; no invoice event is ever written for them.
    app.clock.advance(400 * 86_400_000);
    await app.jobs.drain();
    const later = await read(app, token, owner.shop.id, deposit.id);
    expect(later).toMatchObject({ status: 'open', cancelled_at: null, received: usdc(22) });
    expect((await eventsOf(app, deposit.id)).map((event) => event.type)).toEqual(Array(4).fill('transfer.confirmed'));
    expect((await eventsOf(app, deposit.id))[0]?.data).toMatchObject({ type: 'deposit', invoice_cancelled: false });

    // Deposits are not cancelled through the invoice route; invoice.closed does not apply.
    expect((await cancel(app, token, owner.shop.id, deposit.id)).json().error.code).toBe('invalid_state');
    const closed = await simulate(app, token, owner.shop.id, { issuance_id: deposit.id, kind: 'invoice.closed', amount: '0' });
    expect(closed.json().error.code).toBe('invalid_simulation');
  });

  it('a reversal of an unswept top-up lowers B; of a swept one cancels the unsent sweep', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    const deposit = (await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json();
    await app.jobs.drain();
    const small = await pay(app, token, owner.shop.id, deposit.id, usdc(4));
    await simulate(app, token, owner.shop.id, { issuance_id: deposit.id, kind: 'transfer.reverted', amount: '0', reference_event_id: small.event_id });
    await pay(app, token, owner.shop.id, deposit.id, usdc(6));
    expect(await payoutsOf(app, deposit.id)).toEqual([]);
    const big = await pay(app, token, owner.shop.id, deposit.id, usdc(5));
    expect((await payoutsOf(app, deposit.id)).map((row) => [row.status, row.gross])).toEqual([['scheduled', usdc(11)]]);
    await simulate(app, token, owner.shop.id, { issuance_id: deposit.id, kind: 'transfer.reverted', amount: usdc(5), reference_event_id: big.event_id });
    expect((await payoutsOf(app, deposit.id)).map((row) => row.status)).toEqual(['cancelled']);
    await pay(app, token, owner.shop.id, deposit.id, usdc(4));
    expect((await payoutsOf(app, deposit.id)).map((row) => [row.status, row.gross])).toEqual([
      ['cancelled', usdc(11)],
      ['scheduled', usdc(10)],
    ]);
    expect((await read(app, token, owner.shop.id, deposit.id)).received).toBe(usdc(10));
  });

  it('a deposit group keeps one address per option and pauses all options together', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    const group = (
      await createDeposit(app, token, owner.shop.id, {
        assets: [
          { chain_id: BASE, token: BASE_USDC },
          { chain_id: ARBITRUM, token: ARBITRUM_USDC },
        ],
      })
    ).json();
    expect(group).toMatchObject({ group: true, kind: 'deposit', amount: null, expires_at: null });
    expect(group.options.map((option: { amount: unknown }) => option.amount)).toEqual([null, null]);
    await app.jobs.drain();
    const open = await read(app, token, owner.shop.id, group.id);
    expect(new Set(open.options.map((option: { address: string }) => option.address)).size).toBe(2);

    const byOption = await setEnabled(app, token, owner.shop.id, open.options[0].id, false);
    expect(byOption.statusCode).toBe(400);
    expect(byOption.json().error.code).toBe('issuance_in_group');
    const paused = await setEnabled(app, token, owner.shop.id, group.id, false);
    expect(paused.statusCode).toBe(200);
    expect(paused.json().disabled_at).not.toBeNull();
    for (const option of open.options) expect((await read(app, token, owner.shop.id, option.id)).disabled_at).not.toBeNull();
  });

  it('PATCH refusals: an invoice is invalid_state, unknown is not_found, a missing or non-boolean enabled is invalid_request', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const { token } = owner.key;
    const invoice = await openInvoiceFor(owner.shop.id, token);
    const onInvoice = await setEnabled(app, token, owner.shop.id, invoice, false);
    expect(onInvoice.statusCode).toBe(400);
    expect(onInvoice.json().error.code).toBe('invalid_state');
    const unknown = await setEnabled(app, token, owner.shop.id, crypto.randomUUID(), false);
    expect(unknown.statusCode).toBe(404);
    for (const payload of [{}, { enabled: 'false' }]) {
      const response = await app.request({
        method: 'PATCH',
        url: `/api/v1/shops/${owner.shop.id}/deposits/${invoice}`,
        headers: authed(token, newIdempotencyKey()),
        payload,
      });
      expect(response.statusCode).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
    }
  });
});

async function openInvoiceFor(shopId: string, token: string): Promise<string> {
  const created = await app.request({
    method: 'POST',
    url: `/api/v1/shops/${shopId}/invoices`,
    headers: authed(token, newIdempotencyKey()),
    payload: { chain_id: BASE, token: BASE_USDC, amount: usdc(10) },
  });
  return created.json().id;
}
