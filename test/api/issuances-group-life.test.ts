import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import {
  giveTronRecipient,
  ARBITRUM,
  ARBITRUM_USDT,
  BASE,
  BASE_USDC,
  BNB,
  BNB_USDT,
  TRON,
  TRON_USDT,
  cancel,
  createInvoice,
  eventsOf,
  pay,
  payoutsOf,
  read,
  simulate,
  transfersOf,
  usdc,
} from './issuances-helpers.js';

// SPEC "Issuance" (group shape), "Groups", "Events" rule 4, Rule 4 (poll until every option has an
// address); LEDGER "Groups" — a group's whole life through HTTP.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ PAY_URL: 'https://pay.ivory.test' });
});
afterAll(async () => {
  await app.close();
});

const assets = [
  { chain_id: BASE, token: BASE_USDC },
  { chain_id: BNB, token: BNB_USDT },
  { chain_id: TRON, token: TRON_USDT },
];

describe('an invoice group through its whole life', () => {
  it('is created with one option per asset, priced per token decimals, and paid once', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    await giveTronRecipient(app, owner.shop.id);
    const { token } = owner.key;
    const created = await createInvoice(app, token, owner.shop.id, { assets, amount: '10.5', external_id: 'cart-7' });
    expect(created.statusCode).toBe(202);
    const group = created.json();
    expect(group).toMatchObject({ group: true, kind: 'invoice', shop_id: owner.shop.id, status: 'registering', paid_issuance_id: null, amount: '10.5' });
    expect(group.payment_url).toBe(`https://pay.ivory.test/${group.public_id}`);
    expect(group.options.map((option: Record<string, unknown>) => [option.chain_id, option.token, option.family, option.amount, option.token_decimals, option.address, option.status])).toEqual([
      [BASE, BASE_USDC, 'evm', '10500000', 6, null, 'registering'],
      [BNB, BNB_USDT, 'evm', '10500000000000000000', 18, null, 'registering'],
      [TRON, TRON_USDT, 'tron', '10500000', 6, null, 'registering'],
    ]);

    await app.jobs.drain();
    const open = await read(app, token, owner.shop.id, group.id);
    expect(open.status).toBe('open');
    expect(open.options.every((option: { address: string | null }) => option.address !== null && option.address !== '')).toBe(true);
    expect(open.options[2].address).toMatch(/^T/);

    // An option read by its own id is an issuance; cancelling it by that id is refused.
    const option = await read(app, token, owner.shop.id, open.options[1].id);
    expect(option).toMatchObject({ group_id: group.id, amount: '10500000000000000000', external_id: 'cart-7' });
    const byOption = await cancel(app, token, owner.shop.id, open.options[1].id);
    expect(byOption.statusCode).toBe(400);
    expect(byOption.json().error.code).toBe('issuance_in_group');

    // Partial on one option, then full on another: the latter becomes the paid option.
    await pay(app, token, owner.shop.id, open.options[0].id, usdc(5));
    await pay(app, token, owner.shop.id, open.options[2].id, usdc(10.5));
    const paid = await read(app, token, owner.shop.id, group.id);
    expect(paid).toMatchObject({ status: 'funded', paid_issuance_id: open.options[2].id });
    expect(await payoutsOf(app, open.options[2].id)).toHaveLength(1);

    // A payment to another option afterwards: duplicate, not credited, not paid out.
    const duplicate = await pay(app, token, owner.shop.id, open.options[0].id, usdc(10.5));
    expect((await transfersOf(app, open.options[0].id)).map((row) => row.disposition)).toEqual(['credited', 'duplicate']);
    expect(await payoutsOf(app, open.options[0].id)).toEqual([]);
    const events = await eventsOf(app, open.options[0].id);
    expect(events.find((event) => event.id === duplicate.event_id)?.data).toMatchObject({
      duplicate: true,
      group_id: group.id,
      group_public_id: group.public_id,
      issuance_id: open.options[0].id,
    });
    expect((await read(app, token, owner.shop.id, open.options[0].id)).received).toBe(usdc(15.5));

    // The group follows its paid option through closure; cancelling a paid group is refused.
    await simulate(app, token, owner.shop.id, { issuance_id: open.options[2].id, kind: 'invoice.closed', amount: '0' });
    expect((await read(app, token, owner.shop.id, group.id)).status).toBe('settled');
    const late = await cancel(app, token, owner.shop.id, group.id);
    expect(late.statusCode).toBe(400);
    expect(late.json().error.code).toBe('invalid_state');
  });

  it('is cancelled by its own id as one: every option, one invoice.cancelled per option', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const group = (await createInvoice(app, owner.key.token, owner.shop.id, { assets: assets.slice(0, 2), amount: '10' })).json();
    const response = await cancel(app, owner.key.token, owner.shop.id, group.id);
    expect(response.statusCode).toBe(200);
    expect(response.json().cancelled_at).not.toBeNull();
    for (const option of group.options) {
      expect((await read(app, owner.key.token, owner.shop.id, option.id)).cancelled_at).not.toBeNull();
      const events = await eventsOf(app, option.id);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ type: 'invoice.cancelled', data: { group_id: group.id, invoice_cancelled: true } });
      expect(events[0]?.data).not.toHaveProperty('reason');
    }
  });

  it('with a pair differing only in EVM letter case is invalid_assets', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const response = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [{ chain_id: ARBITRUM, token: ARBITRUM_USDT }, { chain_id: ARBITRUM, token: ARBITRUM_USDT.toLowerCase() }],
      amount: '10',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_assets');
  });
});
