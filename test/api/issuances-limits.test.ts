import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop, createShop } from '../support/factories.js';
import {
  giveTronRecipient,
  ARBITRUM,
  ARBITRUM_USDC,
  BASE,
  BASE_USDC,
  TRON,
  TRON_USDT,
  cancel,
  createDeposit,
  createInvoice,
  openInvoiceRow,
  setEnabled,
  storedCounts,
  usdc,
} from './issuances-helpers.js';

// SPEC "Limits": active invoices per merchant (2,000; a group counts once; sandbox and live
// apart; per-merchant override), deposit addresses per merchant per family (each option its
// own address; paused ones do not count; overrides).

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

const invoice = { chain_id: BASE, token: BASE_USDC, amount: usdc(10) };
const group = { assets: [{ chain_id: BASE, token: BASE_USDC }, { chain_id: ARBITRUM, token: ARBITRUM_USDC }], amount: '10' };

async function ownerWithLimits(limits: { activeInvoiceLimit?: number; depositAddressLimits?: Record<string, number> }) {
  const owner = await createOwnerWithShop(app.context.db);
  await app.context.db
    .updateTable('merchants')
    .set({
      active_invoice_limit: limits.activeInvoiceLimit ?? null,
      deposit_address_limits: limits.depositAddressLimits === undefined ? null : JSON.stringify(limits.depositAddressLimits),
    })
    .where('id', '=', owner.merchant.id)
    .execute();
  return owner;
}

describe('SPEC "Limits": active invoices per merchant', () => {
  it('the operator override applies; a group counts once; the error stores nothing', async () => {
    const owner = await ownerWithLimits({ activeInvoiceLimit: 2 });
    expect((await createInvoice(app, owner.key.token, owner.shop.id, group)).statusCode).toBe(202);
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
    const before = await storedCounts(app, owner.shop.id);
    const refused = await createInvoice(app, owner.key.token, owner.shop.id, invoice);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('active_invoice_limit_reached');
    const refusedGroup = await createInvoice(app, owner.key.token, owner.shop.id, group);
    expect(refusedGroup.json().error.code).toBe('active_invoice_limit_reached');
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
    // Deposits are not invoices.
    expect((await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).statusCode).toBe(202);
  });

  it('a replay of an admitted creation answers its stored bytes even once the limit is reached (SPEC "Authentication" 7)', async () => {
    const owner = await ownerWithLimits({ activeInvoiceLimit: 1 });
    const first = await createInvoice(app, owner.key.token, owner.shop.id, invoice, 'limit-replay-1');
    expect(first.statusCode).toBe(202);
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json().error.code).toBe('active_invoice_limit_reached');
    const replay = await createInvoice(app, owner.key.token, owner.shop.id, invoice, 'limit-replay-1');
    expect(replay.statusCode).toBe(202);
    expect(replay.body).toBe(first.body);
    const conflict = await createInvoice(app, owner.key.token, owner.shop.id, { ...invoice, amount: usdc(11) }, 'limit-replay-1');
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error.code).toBe('idempotency_conflict');
  });

  it('is race-free: concurrent creations never exceed the limit', async () => {
    const owner = await ownerWithLimits({ activeInvoiceLimit: 3 });
    const answers = await Promise.all(Array.from({ length: 8 }, () => createInvoice(app, owner.key.token, owner.shop.id, invoice)));
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses).toEqual([202, 202, 202, 400, 400, 400, 400, 400]);
    const stored = await app.context.db
      .selectFrom('issuances')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('merchant_id', '=', owner.merchant.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(3);
  });

  it('is exact at the limit while creations run side by side far from it (the shared/exclusive gate)', async () => {
    const { rows } = await sql<{ max_connections: string }>`select current_setting('max_connections') as max_connections`.execute(app.context.db);
    const limit = Number(rows[0]?.max_connections) + 5;
    const owner = await ownerWithLimits({ activeInvoiceLimit: limit });
    const answers = await Promise.all(Array.from({ length: limit + 10 }, () => createInvoice(app, owner.key.token, owner.shop.id, invoice)));
    expect(answers.filter((answer) => answer.statusCode === 202)).toHaveLength(limit);
    for (const answer of answers.filter((candidate) => candidate.statusCode !== 202)) {
      expect(answer.json().error.code).toBe('active_invoice_limit_reached');
    }
    const stored = await app.context.db
      .selectFrom('issuances')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where('merchant_id', '=', owner.merchant.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.count)).toBe(limit);
  });

  it('cancelled and expired invoices are no longer active', async () => {
    const owner = await ownerWithLimits({ activeInvoiceLimit: 1 });
    const first = await createInvoice(app, owner.key.token, owner.shop.id, { ...invoice, expires_in: '1d' });
    expect((await cancel(app, owner.key.token, owner.shop.id, first.json().id)).statusCode).toBe(200);
    const second = await createInvoice(app, owner.key.token, owner.shop.id, { ...invoice, expires_in: '1d' });
    expect(second.statusCode).toBe(202);
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json().error.code).toBe('active_invoice_limit_reached');
    app.clock.advance(86_400_000 + 1);
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
  });

  it('sandbox and live are counted separately', async () => {
    const owner = await ownerWithLimits({ activeInvoiceLimit: 1 });
    // A live invoice (live creation needs a chain adapter, so the row is written directly).
    const live = await createShop(app.context.db, owner.merchant.id, { sandbox: false });
    const now = app.clock.now();
    await app.context.db
      .insertInto('issuances')
      .values(openInvoiceRow({ shopId: live.id, merchantId: owner.merchant.id }, `live-${crypto.randomUUID().slice(0, 8)}`, now, false))
      .execute();
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).json().error.code).toBe('active_invoice_limit_reached');
  });

  it('the default is 2,000 per merchant', async () => {
    const owner = await ownerWithLimits({});
    const now = app.clock.now();
    const rows = Array.from({ length: 2_000 }, (_, index) =>
      openInvoiceRow({ shopId: owner.shop.id, merchantId: owner.merchant.id }, `bulk-${owner.merchant.id.slice(0, 8)}-${index}`, now),
    );
    for (let start = 0; start < rows.length; start += 500) {
      await app.context.db.insertInto('issuances').values(rows.slice(start, start + 500)).execute();
    }
    const refused = await createInvoice(app, owner.key.token, owner.shop.id, invoice);
    expect(refused.json().error.code).toBe('active_invoice_limit_reached');
  });
});

describe('SPEC "Limits": deposit addresses per merchant per family', () => {
  it('each option is its own address; families are counted apart; paused addresses do not count', async () => {
    const owner = await ownerWithLimits({ depositAddressLimits: { evm: 2 } });
    await giveTronRecipient(app, owner.shop.id);
    const token = owner.key.token;
    const first = await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    expect(first.statusCode).toBe(202);
    const before = await storedCounts(app, owner.shop.id);
    const refused = await createDeposit(app, token, owner.shop.id, { assets: group.assets });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('deposit_address_limit_reached');
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
    // Tron has its own default (10,000).
    expect((await createDeposit(app, token, owner.shop.id, { chain_id: TRON, token: TRON_USDT })).statusCode).toBe(202);
    expect((await createDeposit(app, token, owner.shop.id, { chain_id: ARBITRUM, token: ARBITRUM_USDC })).statusCode).toBe(202);
    expect((await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).json().error.code).toBe('deposit_address_limit_reached');

    // Pausing frees the slot; re-enabling over the limit is refused.
    expect((await setEnabled(app, token, owner.shop.id, first.json().id, false)).statusCode).toBe(200);
    expect((await createDeposit(app, token, owner.shop.id, { chain_id: BASE, token: BASE_USDC })).statusCode).toBe(202);
    const reenable = await setEnabled(app, token, owner.shop.id, first.json().id, true);
    expect(reenable.statusCode).toBe(400);
    expect(reenable.json().error.code).toBe('deposit_address_limit_reached');
  });
});
