import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import {
  BASE,
  BASE_USDC,
  createInvoice,
  eventsOf,
  pay,
  payoutsOf,
  read,
  simulate,
  usdc,
} from './issuances-helpers.js';

// SPEC "States and transitions", "Issuance"; LEDGER "Invoices" — one invoice's whole life through HTTP.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ PAY_URL: 'https://pay.ivory.test' });
});
afterAll(async () => {
  await app.close();
});

describe('an invoice through its whole life (sandbox)', () => {
  it('registering → open → funded → settled, with events and one payout', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const token = owner.key.token;
    const created = await createInvoice(app, token, owner.shop.id, {
      chain_id: BASE,
      token: BASE_USDC,
      amount: usdc(100),
      external_id: 'order-1',
    });
    expect(created.statusCode).toBe(202);
    const body = created.json();
    expect(body).toMatchObject({
      kind: 'invoice',
      status: 'registering',
      amount: '100000000',
      received: '0',
      token_decimals: 6,
      chain_id: BASE,
      token: BASE_USDC,
      address: null,
      payout_tx_hash: null,
      cancelled_at: null,
      disabled_at: null,
      external_id: 'order-1',
      shop_id: owner.shop.id,
    });
    expect(body.payment_url).toBe(`https://pay.ivory.test/${body.public_id}`);
    expect(body.public_id).toMatch(/^[A-Za-z0-9_-]{16}$/);
    // SPEC: default lifetime 30d.
    expect(new Date(body.expires_at).getTime() - new Date(body.created_at).getTime()).toBe(30 * 86_400_000);

    await app.jobs.drain();
    const open = await read(app, token, owner.shop.id, body.id);
    expect(open.status).toBe('open');
    expect(open.address).toMatch(/^0x[0-9a-fA-F]{40}$/);

    const first = await pay(app, token, owner.shop.id, body.id, usdc(40));
    expect((await read(app, token, owner.shop.id, body.id)).status).toBe('open');
    expect((await read(app, token, owner.shop.id, body.id)).received).toBe(usdc(40));
    expect(first.event_id).toMatch(/^[0-9a-f-]{36}$/);

    await pay(app, token, owner.shop.id, body.id, usdc(60));
    const funded = await read(app, token, owner.shop.id, body.id);
    expect(funded).toMatchObject({ status: 'funded', received: usdc(100), payout_tx_hash: null });

    const [payout] = await payoutsOf(app, body.id);
    expect(payout).toMatchObject({ status: 'scheduled', gross: usdc(100), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(0.5) });
    expect(payout?.next_attempt_at).toBeNull();

    const closed = await simulate(app, token, owner.shop.id, { issuance_id: body.id, kind: 'invoice.closed', amount: '0' });
    expect(closed.statusCode).toBe(200);
    expect((await read(app, token, owner.shop.id, body.id)).status).toBe('settled');

    const events = await eventsOf(app, body.id);
    expect(events.map((event) => event.type)).toEqual(['transfer.confirmed', 'transfer.confirmed', 'invoice.closed']);
    expect(events[0]?.data).toMatchObject({
      issuance_id: body.id,
      shop_id: owner.shop.id,
      external_id: 'order-1',
      type: 'invoice',
      invoice_cancelled: false,
      group_id: null,
      group_public_id: null,
      duplicate: false,
      amount: usdc(40),
      chain_id: BASE,
      token: BASE_USDC,
      transfer_id: first.transfer_id,
    });
    expect(events[0]?.id).toBe(first.event_id);
    // No payout event is invented in the sandbox (LEDGER "Sandbox").
    expect(events.some((event) => event.type.startsWith('payout.'))).toBe(false);
  });
});
