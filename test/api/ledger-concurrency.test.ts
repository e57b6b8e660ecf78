import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTransfer, recordTransfers, type IncomingTransfer, type LedgerDeps, type RecordOutcome } from '../../src/issuances/index.js';
import type { Tx } from '../../src/platform/database/database.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, createInvoice, eventsOf, openInvoice, payoutsOf, read, transfersOf, usdc } from './issuances-helpers.js';

// ARCHITECTURE rules 2-3 and issue 3 "Correctness under concurrency": run on PGlite (which
// serialises sessions) and on PostgreSQL (TEST_DATABASE_URL), where the locks do the work.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

type Entry = (trx: Tx, deps: LedgerDeps, transfer: IncomingTransfer) => Promise<RecordOutcome>;

/** Both ledger entries (issue 22): the batch entry, told one transfer at a time, must hold the same under concurrency. */
const entries: [string, Entry][] = [
  ['recordTransfer', recordTransfer],
  ['recordTransfers', async (trx, deps, transfer) => (await recordTransfers(trx, deps, [transfer]))[0] as RecordOutcome],
];

function transferTo(issuance: { id: string; chain_id: number; address: string }, amount: string, txHash = `0x${randomBytes(32).toString('hex')}`): IncomingTransfer {
  return {
    issuanceId: issuance.id,
    chainId: issuance.chain_id,
    txHash,
    logIndex: 0,
    fromAddress: null,
    toAddress: issuance.address,
    amount: BigInt(amount),
    status: 'confirmed',
  };
}

describe.each(entries)('concurrent %s', (_name, entry) => {
  function record(transfer: IncomingTransfer) {
    return inTransaction(app.context.db, (trx) => entry(trx, { now: app.clock.now(), ledger: app.context.ledger }, transfer));
  }

  it('50 concurrent deliveries of one transfer credit it once', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const transfer = transferTo(invoice, usdc(30));
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => record(transfer)));
    expect(outcomes.filter((outcome) => outcome.outcome === 'recorded')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.outcome === 'duplicate_delivery')).toHaveLength(49);
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).received).toBe(usdc(30));
    expect(await transfersOf(app, invoice.id)).toHaveLength(1);
    expect((await eventsOf(app, invoice.id)).map((event) => event.type)).toEqual(['transfer.confirmed']);
  });

  it('observed then confirmed, each delivered many times at once: one observed event, one credit', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const confirmed = transferTo(invoice, usdc(30));
    const observed = { ...confirmed, status: 'observed' as const };
    await Promise.all(Array.from({ length: 10 }, () => record(observed)));
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).received).toBe('0');
    await Promise.all(Array.from({ length: 10 }, () => record(confirmed)));
    expect((await read(app, owner.key.token, owner.shop.id, invoice.id)).received).toBe(usdc(30));
    expect((await eventsOf(app, invoice.id)).map((event) => event.type)).toEqual(['transfer.observed', 'transfer.confirmed']);
  });

  it('concurrent transfers that together exceed the amount fund the invoice once with one payout', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await Promise.all(Array.from({ length: 10 }, () => record(transferTo(invoice, usdc(20)))));
    expect(await read(app, owner.key.token, owner.shop.id, invoice.id)).toMatchObject({ status: 'funded', received: usdc(200) });
    const payouts = await payoutsOf(app, invoice.id);
    expect(payouts).toHaveLength(1);
    expect(payouts[0]).toMatchObject({ status: 'scheduled', gross: usdc(200), to_recipient: usdc(99.5), to_operator: usdc(100.5) });
    const transfers = await transfersOf(app, invoice.id);
    expect(transfers.every((row) => row.payout_id === payouts[0]?.id)).toBe(true);
    expect(transfers.filter((row) => row.disposition === 'credited')).toHaveLength(5);
    expect(transfers.filter((row) => row.disposition === 'overpayment')).toHaveLength(5);
  });

  it('a group paid through two options at once is credited once; the other gets duplicate: true', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createInvoice(app, owner.key.token, owner.shop.id, {
      assets: [
        { chain_id: BASE, token: BASE_USDC },
        { chain_id: ARBITRUM, token: ARBITRUM_USDC },
      ],
      amount: '100',
    });
    await app.jobs.drain();
    const group = await read(app, owner.key.token, owner.shop.id, created.json().id);
    const [first, second] = group.options;
    await Promise.all([record(transferTo(first, usdc(100))), record(transferTo(second, usdc(100)))]);

    const paid = await read(app, owner.key.token, owner.shop.id, group.id);
    expect(paid.status).toBe('funded');
    expect([first.id, second.id]).toContain(paid.paid_issuance_id);
    const other = paid.paid_issuance_id === first.id ? second : first;
    const confirmedOf = async (id: string) => (await eventsOf(app, id)).filter((event) => event.type === 'transfer.confirmed');
    expect((await confirmedOf(paid.paid_issuance_id)).map((event) => event.data.duplicate)).toEqual([false]);
    expect((await confirmedOf(other.id)).map((event) => event.data.duplicate)).toEqual([true]);
    expect(await payoutsOf(app, paid.paid_issuance_id)).toHaveLength(1);
    expect(await payoutsOf(app, other.id)).toHaveLength(0);
    expect((await transfersOf(app, other.id)).map((row) => row.disposition)).toEqual(['duplicate']);
  });
});
