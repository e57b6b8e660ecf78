import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/platform/database/database.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { BASE, BASE_USDC, TRON, TRON_USDT, createInvoice, giveTronRecipient, openInvoiceRow, storedCounts, usdc } from './issuances-helpers.js';

// Decision 0019, "Invoice creation in one statement": a process keeps the issuance terms an
// API key was granted (shop, merchant standing, fee terms, service wallets, Tron switch,
// limit override) and creates the next ungrouped invoice in one statement that checks the
// shop's and merchant's view stamps and enters the shared limit gate (SPEC "Limits"). These
// tests make each of those inputs change under a warm process and check the next creation
// obeys the change, exactly as a process reading afresh would.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const invoice = { chain_id: BASE, token: BASE_USDC, amount: usdc(10) };

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

/** An owner whose key has created one invoice already: its terms are kept by the app. */
async function warmOwner() {
  const owner = await createOwnerWithShop(app.context.db);
  expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);
  return owner;
}

async function created(owner: Awaited<ReturnType<typeof warmOwner>>, body: object = invoice) {
  const answer = await createInvoice(app, owner.key.token, owner.shop.id, body);
  expect(answer.statusCode, answer.body).toBe(202);
  const id: string = answer.json().id;
  return app.context.db.selectFrom('issuances').select(['fee_bps', 'recipient', 'payout_target', 'chain_id']).where('id', '=', id).executeTakeFirstOrThrow();
}

const feeTerms = (merchantId: string, bps: number) => ({ merchant_id: merchantId, chain_id: BASE, kind: 'invoice' as const, bps, minimum: '0', maximum: '0', updated_at: new Date() });

describe('invoice creation in one statement: the kept terms (decision 0019)', () => {
  it('are what it uses: a change written with the stamp trigger off is not seen, and seen once the merchant row moves', async () => {
    const owner = await warmOwner();
    const { db } = app.context;
    await sql`alter table merchant_fee_terms disable trigger merchant_fee_terms_move_merchant_stamp`.execute(db);
    try {
      await db.insertInto('merchant_fee_terms').values(feeTerms(owner.merchant.id, 77)).execute();
    } finally {
      await sql`alter table merchant_fee_terms enable trigger merchant_fee_terms_move_merchant_stamp`.execute(db);
    }
    // Base's catalogue terms (LEDGER: 50 bps), as kept: the cache answered.
    expect((await created(owner)).fee_bps).toBe(50);
    await db.updateTable('merchants').set({ name: 'Renamed merchant' }).where('id', '=', owner.merchant.id).execute();
    expect((await created(owner)).fee_bps).toBe(77);
  });

  it('follow the operator fee terms written by any writer: added, changed, removed', async () => {
    const owner = await warmOwner();
    const { db } = app.context;
    await db.insertInto('merchant_fee_terms').values(feeTerms(owner.merchant.id, 120)).execute();
    expect((await created(owner)).fee_bps).toBe(120);
    await db.updateTable('merchant_fee_terms').set({ bps: 90 }).where('merchant_id', '=', owner.merchant.id).execute();
    expect((await created(owner)).fee_bps).toBe(90);
    await db.deleteFrom('merchant_fee_terms').where('merchant_id', '=', owner.merchant.id).execute();
    expect((await created(owner)).fee_bps).toBe(50);
  });

  it("follow the shop's recipient and the merchant's service wallet", async () => {
    const owner = await warmOwner();
    const { db } = app.context;
    const recipient = '0x52908400098527886E0F7030069857D2E4169EE7';
    await db.updateTable('shops').set({ recipient }).where('id', '=', owner.shop.id).execute();
    expect((await created(owner)).recipient).toBe(recipient);

    const wallet = '0x000000000000000000000000000000000000dEaD';
    await db.updateTable('shops').set({ payout_target: 'wallet' }).where('id', '=', owner.shop.id).execute();
    await db.insertInto('merchant_service_wallets').values({ merchant_id: owner.merchant.id, family: 'evm', address: wallet, created_at: new Date(), updated_at: new Date() }).execute();
    expect(await created(owner)).toMatchObject({ recipient: wallet, payout_target: 'wallet' });
    const moved = '0x1111111111111111111111111111111111111111';
    await db.updateTable('merchant_service_wallets').set({ address: moved }).where('merchant_id', '=', owner.merchant.id).execute();
    expect((await created(owner)).recipient).toBe(moved);
    await db.deleteFrom('merchant_service_wallets').where('merchant_id', '=', owner.merchant.id).execute();
    // A sandbox invoice needs no recipient: it is stored without one.
    expect(await created(owner)).toMatchObject({ recipient: null, payout_target: 'wallet' });
  });

  it("follow the merchant's Tron switch (SPEC merchant_network_disabled)", async () => {
    const owner = await warmOwner();
    await giveTronRecipient(app, owner.shop.id);
    const tron = { chain_id: TRON, token: TRON_USDT, amount: usdc(10) };
    expect((await created(owner, tron)).chain_id).toBe(TRON);
    await app.context.db.updateTable('merchants').set({ tron_enabled: false }).where('id', '=', owner.merchant.id).execute();
    const refused = await createInvoice(app, owner.key.token, owner.shop.id, tron);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('merchant_network_disabled');
  });

  it('follow the limit override (SPEC "Limits"): lowered under the open invoices, the next creation is refused and stores nothing', async () => {
    const owner = await warmOwner();
    await app.context.db.updateTable('merchants').set({ active_invoice_limit: 1 }).where('id', '=', owner.merchant.id).execute();
    const before = await storedCounts(app, owner.shop.id);
    const refused = await createInvoice(app, owner.key.token, owner.shop.id, invoice);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('active_invoice_limit_reached');
    expect(await storedCounts(app, owner.shop.id)).toEqual(before);
  });

  it('follow a block and an archived shop, written by any writer: their SPEC codes, also for a body that is itself invalid, and nothing stored', async () => {
    const blocked = await warmOwner();
    await app.context.db.updateTable('merchants').set({ blocked_at: new Date(), blocked_reason: 'fraud review' }).where('id', '=', blocked.merchant.id).execute();
    const beforeBlocked = await storedCounts(app, blocked.shop.id);
    for (const body of [invoice, { ...invoice, amount: 'ten' }]) {
      const refused = await createInvoice(app, blocked.key.token, blocked.shop.id, body);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('account_disabled');
    }
    expect(await storedCounts(app, blocked.shop.id)).toEqual(beforeBlocked);

    const archived = await warmOwner();
    await app.context.db.updateTable('shops').set({ archived_at: new Date() }).where('id', '=', archived.shop.id).execute();
    const beforeArchived = await storedCounts(app, archived.shop.id);
    for (const body of [invoice, { ...invoice, amount: 'ten' }]) {
      const refused = await createInvoice(app, archived.key.token, archived.shop.id, body);
      expect(refused.json().error.code).toBe('shop_archived');
    }
    expect(await storedCounts(app, archived.shop.id)).toEqual(beforeArchived);
  });

  it('answer replays byte for byte and conflicts as SPEC "Authentication" 7 says, storing one invoice', async () => {
    const owner = await warmOwner();
    const first = await createInvoice(app, owner.key.token, owner.shop.id, invoice, 'one-statement-replay');
    const again = await createInvoice(app, owner.key.token, owner.shop.id, invoice, 'one-statement-replay');
    expect(first.statusCode).toBe(202);
    expect(again.statusCode).toBe(202);
    expect(again.body).toBe(first.body);
    const conflict = await createInvoice(app, owner.key.token, owner.shop.id, { ...invoice, amount: usdc(11) }, 'one-statement-replay');
    expect(conflict.json().error.code).toBe('idempotency_conflict');
    const stored = await app.context.db.selectFrom('issuances').select('id').where('shop_id', '=', owner.shop.id).execute();
    expect(stored).toHaveLength(2);
  });
});

describe('invoice creation in one statement: the shared limit gate (SPEC "Limits", decision 0005)', () => {
  // PGlite runs one connection: nothing can hold the gate while a creation waits for it.
  it.skipIf(!onPostgres)('waits for an exclusive holder and then counts what the holder committed, not what it saw before the lock', async () => {
    const { db } = app.context;
    const { rows } = await sql<{ max_connections: string }>`select current_setting('max_connections') as max_connections`.execute(db);
    const maxConnections = Number(rows[0]?.max_connections);
    const owner = await createOwnerWithShop(db);
    // Far enough for the shared gate with one invoice open: 1 + 1 + max_connections <= limit.
    const limit = maxConnections + 3;
    await db.updateTable('merchants').set({ active_invoice_limit: limit }).where('id', '=', owner.merchant.id).execute();
    expect((await createInvoice(app, owner.key.token, owner.shop.id, invoice)).statusCode).toBe(202);

    let waiting: ReturnType<typeof createInvoice> | undefined;
    await inTransaction(db, async (holder) => {
      await sql`select ivory_take_invoice_gate(${owner.merchant.id}, true, true)`.execute(holder);
      // The holder fills the merchant up to its limit: limit - 1 more, so limit in all.
      const now = app.clock.now();
      const rowsToAdd = Array.from({ length: limit - 1 }, (_, index) =>
        openInvoiceRow({ shopId: owner.shop.id, merchantId: owner.merchant.id }, `held-${owner.merchant.id.slice(0, 8)}-${index}`, now),
      );
      await holder.insertInto('issuances').values(rowsToAdd).execute();
      waiting = createInvoice(app, owner.key.token, owner.shop.id, invoice);
      await waitUntil(async () => {
        const found = await sql<{ n: string }>`
          select count(*) as n from pg_stat_activity
          where wait_event_type = 'Lock' and wait_event = 'advisory' and query like '%ivory_enter_shared_invoice_gate%'`.execute(db);
        return Number(found.rows[0]?.n) === 1;
      });
    });
    const answer = await waiting;
    expect(answer?.statusCode).toBe(400);
    expect(answer?.json().error.code).toBe('active_invoice_limit_reached');
    const open = await db.selectFrom('issuances').select('id').where('merchant_id', '=', owner.merchant.id).execute();
    expect(open).toHaveLength(limit);
  });
});

async function waitUntil(condition: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the creation to wait at the gate');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
