import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwnerWithShop } from '../support/factories.js';
import type { TestApp } from '../support/app.js';
import { admin, createAdminApp } from './admin-helpers.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, cancel, createDeposit, createInvoice, openInvoice, openInvoiceRow, pay, usdc } from './issuances-helpers.js';

// SPEC "Limits" (active invoices per merchant) and decision 0005: the shared
// gate reads the open-invoice tallies that triggers keep, so the tallies must
// equal the open invoices (not cancelled, not paid; a group once) after every
// kind of change, whichever code path makes it.

let app: TestApp;
beforeAll(async () => {
  app = await createAdminApp();
});
afterAll(async () => {
  await app.close();
});

const DAY = 86_400_000;

async function tallied(merchantId: string, sandbox = true): Promise<number> {
  const row = await app.context.db
    .selectFrom('open_invoice_tallies')
    .select((eb) => eb.fn.sum<string>('open').as('open'))
    .where('merchant_id', '=', merchantId)
    .where('sandbox', '=', sandbox)
    .executeTakeFirst();
  return Number(row?.open ?? 0);
}

/** The definition itself, counted from the rows (expiry aside: the expiry job's cancel subtracts it). */
async function openInvoices(merchantId: string): Promise<number> {
  const single = await app.context.db
    .selectFrom('issuances')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'invoice')
    .where('group_id', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('funded_at', 'is', null)
    .executeTakeFirstOrThrow();
  const grouped = await app.context.db
    .selectFrom('issuance_groups')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'invoice')
    .where('cancelled_at', 'is', null)
    .where('paid_issuance_id', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(single.count) + Number(grouped.count);
}

describe('open-invoice tallies (the shared gate of SPEC "Limits")', () => {
  it('follow creation, payment, cancelling, expiry and a block: always equal to the open invoices', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const expectOpen = async (count: number) => {
      expect(await openInvoices(owner.merchant.id)).toBe(count);
      expect(await tallied(owner.merchant.id)).toBe(count);
    };
    await expectOpen(0);

    const paid = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const cancelled = await openInvoice(app, owner.key.token, owner.shop.id, usdc(10));
    const expiring = (await createInvoice(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC, amount: usdc(10), expires_in: '1d' })).json();
    const group = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '10',
    });
    expect(group.statusCode).toBe(202);
    // A deposit is not an invoice; a group counts once, not once per option.
    expect((await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).statusCode).toBe(202);
    await app.jobs.drain();
    await expectOpen(4);

    // Partly paid is still open; paid in full (funded) is not.
    await pay(app, owner.key.token, owner.shop.id, paid.id, usdc(4));
    await expectOpen(4);
    await pay(app, owner.key.token, owner.shop.id, paid.id, usdc(6));
    await expectOpen(3);

    expect((await cancel(app, owner.key.token, owner.shop.id, cancelled.id)).statusCode).toBe(200);
    await expectOpen(2);

    // Past expires_at the tally still counts it (never below the exact count) until the expiry job cancels it.
    app.clock.advance(DAY + 1_000);
    await expectOpen(2);
    await app.jobs.drain();
    expect((await app.context.db.selectFrom('issuances').select('cancel_reason').where('id', '=', expiring.id).executeTakeFirstOrThrow()).cancel_reason).toBe(
      'expired',
    );
    await expectOpen(1);

    // A block cancels every unpaid invoice, the group included.
    expect((await admin(app, 'POST', `/merchants/${owner.merchant.id}/block`, { payload: { reason: 'tally check' } })).statusCode).toBe(200);
    await expectOpen(0);
  });

  it('follow rows written outside the use cases too: a bulk insert, a direct update, a delete', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const now = app.clock.now();
    const rows = Array.from({ length: 25 }, (_, index) =>
      openInvoiceRow({ shopId: owner.shop.id, merchantId: owner.merchant.id }, `tally-${owner.merchant.id.slice(0, 8)}-${index}`, now),
    );
    await app.context.db.insertInto('issuances').values(rows).execute();
    expect(await tallied(owner.merchant.id)).toBe(25);
    expect(await tallied(owner.merchant.id, false)).toBe(0);

    const [first, second, third] = rows;
    if (first === undefined || second === undefined || third === undefined) throw new Error('three rows expected');
    await app.context.db.updateTable('issuances').set({ funded_at: now }).where('id', '=', first.id).execute();
    await app.context.db.updateTable('issuances').set({ cancelled_at: now, cancel_reason: 'expired' }).where('id', '=', second.id).execute();
    // Moving an invoice between sandbox and live moves its count.
    await app.context.db.updateTable('issuances').set({ sandbox: false }).where('id', '=', third.id).execute();
    expect(await tallied(owner.merchant.id)).toBe(22);
    expect(await tallied(owner.merchant.id, false)).toBe(1);
    // An update that leaves "open" alone changes nothing.
    await app.context.db.updateTable('issuances').set({ description: 'changed' }).where('merchant_id', '=', owner.merchant.id).execute();
    expect(await tallied(owner.merchant.id)).toBe(22);

    await app.context.db.deleteFrom('issuances').where('id', 'in', [first.id, third.id, rows[3]?.id ?? '']).execute();
    expect(await tallied(owner.merchant.id)).toBe(21);
    expect(await tallied(owner.merchant.id, false)).toBe(0);
    expect(await openInvoices(owner.merchant.id)).toBe(21);
  });
});
