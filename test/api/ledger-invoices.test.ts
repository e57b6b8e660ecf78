import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { cancel, eventsOf, openInvoice, pay, payoutsOf, read, simulate, transfersOf, usdc } from './issuances-helpers.js';

// LEDGER "Invoices", "Cancellation and expiry", "Reversals" tables, end to end through the
// sandbox API (Base USDC: terms 50 / 0.1e18 / 5e18).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

async function scenario(amount: string, transfers: readonly string[]) {
  const owner = await createOwnerWithShop(app.context.db);
  const invoice = await openInvoice(app, owner.key.token, owner.shop.id, amount);
  const paid = [];
  for (const transfer of transfers) paid.push(await pay(app, owner.key.token, owner.shop.id, invoice.id, transfer));
  return { owner, id: invoice.id as string, paid, token: owner.key.token, shopId: owner.shop.id };
}

const split = (row: { gross: string; fee: string; to_recipient: string; to_operator: string; status: string } | undefined) =>
  row === undefined ? undefined : { status: row.status, gross: row.gross, fee: row.fee, to_recipient: row.to_recipient, to_operator: row.to_operator };

describe('LEDGER "Invoices" table, A = 100 USDC', () => {
  it('40, 60 → funded; recipient 99.5, operator 0.5', async () => {
    const { id, token, shopId } = await scenario(usdc(100), [usdc(40), usdc(60)]);
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'funded', received: usdc(100) });
    const payouts = await payoutsOf(app, id);
    expect(payouts.map(split)).toEqual([{ status: 'scheduled', gross: usdc(100), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(0.5) }]);
    expect((await transfersOf(app, id)).map((row) => [row.disposition, row.payout_id])).toEqual([
      ['credited', payouts[0]?.id],
      ['credited', payouts[0]?.id],
    ]);
  });

  it('40 → open, R = 40, no payout', async () => {
    const { id, token, shopId } = await scenario(usdc(100), [usdc(40)]);
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'open', received: usdc(40) });
    expect(await payoutsOf(app, id)).toEqual([]);
  });

  it('130 → funded; recipient 99.5, operator 30.5', async () => {
    const { id } = await scenario(usdc(100), [usdc(130)]);
    expect((await payoutsOf(app, id)).map(split)).toEqual([
      { status: 'scheduled', gross: usdc(130), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(30.5) },
    ]);
  });

  it('100, then 5 after settled → settled; payout 99.5 / 0.5; the 5 is a late transfer in received, not paid out', async () => {
    const { id, token, shopId } = await scenario(usdc(100), [usdc(100)]);
    expect((await simulate(app, token, shopId, { issuance_id: id, kind: 'invoice.closed', amount: '0' })).statusCode).toBe(200);
    const late = await pay(app, token, shopId, id, usdc(5));
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'settled', received: usdc(105) });
    expect((await payoutsOf(app, id)).map(split)).toEqual([
      { status: 'scheduled', gross: usdc(100), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(0.5) },
    ]);
    const lateRow = (await transfersOf(app, id)).find((row) => row.id === late.transfer_id);
    expect(lateRow).toMatchObject({ disposition: 'late', payout_id: null, status: 'confirmed' });
    const events = await eventsOf(app, id);
    expect(events.at(-1)).toMatchObject({ type: 'transfer.confirmed', data: { duplicate: false, amount: usdc(5) } });
  });

  it('transfers confirmed while funded join the overpayment of the scheduled payout', async () => {
    const { id } = await scenario(usdc(100), [usdc(100), usdc(30)]);
    expect((await payoutsOf(app, id)).map(split)).toEqual([
      { status: 'scheduled', gross: usdc(130), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(30.5) },
    ]);
    expect((await transfersOf(app, id)).map((row) => row.disposition)).toEqual(['credited', 'overpayment']);
  });
});

describe('LEDGER "Fees" table (50 / 0.1e18 / 5e18), paid exactly', () => {
  it.each([
    [100, 0.5, 99.5],
    [10, 0.1, 9.9],
    [2_000, 5, 1_995],
  ])('A = %s USDC: fee %s, recipient %s', async (tokens, fee, recipient) => {
    const { id } = await scenario(usdc(tokens), [usdc(tokens)]);
    expect((await payoutsOf(app, id)).map(split)).toEqual([
      { status: 'scheduled', gross: usdc(tokens), fee: usdc(fee), to_recipient: usdc(recipient), to_operator: usdc(fee) },
    ]);
  });
});

describe('LEDGER "Cancellation and expiry"', () => {
  it('a cancelled invoice that later reaches A pays out; its events carry invoice_cancelled true; status follows the table', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    expect((await cancel(app, owner.key.token, owner.shop.id, invoice.id)).statusCode).toBe(200);
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(100));
    const after = await read(app, owner.key.token, owner.shop.id, invoice.id);
    expect(after.status).toBe('funded');
    expect(after.cancelled_at).not.toBeNull();
    expect(await payoutsOf(app, invoice.id)).toHaveLength(1);
    const events = await eventsOf(app, invoice.id);
    expect(events.map((event) => [event.type, event.data.invoice_cancelled])).toEqual([
      ['invoice.cancelled', true],
      ['transfer.confirmed', true],
    ]);
  });
});

describe('LEDGER "Reversals"', () => {
  it('un-credits a partial payment: R decreases; transfer.reverted points at the transfer.confirmed event', async () => {
    const { id, token, shopId, paid } = await scenario(usdc(100), [usdc(40)]);
    const reverted = await simulate(app, token, shopId, { issuance_id: id, kind: 'transfer.reverted', amount: '0', reference_event_id: paid[0].event_id });
    expect(reverted.statusCode).toBe(200);
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'open', received: '0' });
    const last = (await eventsOf(app, id)).at(-1);
    expect(last).toMatchObject({ type: 'transfer.reverted', data: { chain_event: { reference_event_id: paid[0].event_id }, transfer_id: paid[0].transfer_id } });
    expect(last?.id).toBe(reverted.json().event_id);
  });

  it('funded with the payout not yet broadcast → back to open, payout cancelled; paying again schedules a new one', async () => {
    const { id, token, shopId, paid } = await scenario(usdc(100), [usdc(40), usdc(60)]);
    await simulate(app, token, shopId, { issuance_id: id, kind: 'transfer.reverted', amount: usdc(60), reference_event_id: paid[1].event_id });
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'open', received: usdc(40) });
    expect((await payoutsOf(app, id)).map((row) => row.status)).toEqual(['cancelled']);
    await pay(app, token, shopId, id, usdc(60));
    expect((await payoutsOf(app, id)).map((row) => [row.status, row.gross])).toEqual([
      ['cancelled', usdc(100)],
      ['scheduled', usdc(100)],
    ]);
  });

  it.each(['sent', 'confirmed'] as const)('payout already %s → reconciling (operator attention)', async (payoutStatus) => {
    const { id, token, shopId, paid } = await scenario(usdc(100), [usdc(100)]);
    const txHash = `0x${'ab'.repeat(32)}`;
    await app.context.db
      .updateTable('payouts')
      .set({ status: payoutStatus, tx_hash: txHash, confirmed_at: payoutStatus === 'confirmed' ? new Date() : null })
      .where('issuance_id', '=', id)
      .execute();
    if (payoutStatus === 'confirmed') expect((await read(app, token, shopId, id)).payout_tx_hash).toBe(txHash);
    await simulate(app, token, shopId, { issuance_id: id, kind: 'transfer.reverted', amount: '0', reference_event_id: paid[0].event_id });
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'reconciling', received: '0' });
    expect((await payoutsOf(app, id)).map((row) => row.status)).toEqual([payoutStatus]);
  });

  it('a late transfer reverted only lowers received', async () => {
    const { id, token, shopId } = await scenario(usdc(100), [usdc(100)]);
    await simulate(app, token, shopId, { issuance_id: id, kind: 'invoice.closed', amount: '0' });
    const late = await pay(app, token, shopId, id, usdc(5));
    await simulate(app, token, shopId, { issuance_id: id, kind: 'transfer.reverted', amount: '0', reference_event_id: late.event_id });
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'settled', received: usdc(100) });
  });
});
