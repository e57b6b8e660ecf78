import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeInvoiceOnChain, recordTransfer, recordTransfers, type IncomingTransfer } from '../../src/issuances/index.js';
import { asId } from '../../src/platform/ids.js';
import { inTransaction } from '../../src/platform/database/database.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { ARBITRUM, ARBITRUM_USDC, BASE, BASE_USDC, cancel, createDeposit, createInvoice, eventsOf, openInvoice, payoutsOf, read, transfersOf, usdc } from './issuances-helpers.js';

// Issue 22 item 1: the batch entry has exactly the semantics of recordTransfer. Each LEDGER.md
// vector runs twice on twin issuances, once told one transfer at a time (recordTransfer) and
// once through recordTransfers (all steps in one batch, or in the batches given), and the
// issuance, its transfers, payouts and events must come out the same.

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app.close();
});

type Target = { id: string; chain_id: number; address: string };
/** One step: a transfer (by name, so twins use distinct hashes) to an option, in a state; or closing the invoice on chain. */
type Step = { transfer: string; to?: number; amount?: string; status: IncomingTransfer['status'] } | { close: true } | { batch: true };

async function play(targets: readonly Target[], steps: readonly Step[], entry: 'recordTransfer' | 'recordTransfers') {
  const hashes = new Map<string, string>();
  const amounts = new Map<string, string>();
  let pending: IncomingTransfer[] = [];
  const flush = async () => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    app.clock.advance(1_000);
    await inTransaction(app.context.db, async (trx) => {
      if (entry === 'recordTransfers') return recordTransfers(trx, { now: app.clock.now(), ledger: app.context.ledger }, batch);
      for (const transfer of batch) await recordTransfer(trx, { now: app.clock.now(), ledger: app.context.ledger }, transfer);
      return undefined;
    });
  };
  for (const step of steps) {
    if ('batch' in step) {
      await flush();
      continue;
    }
    if ('close' in step) {
      await flush();
      await inTransaction(app.context.db, (trx) => closeInvoiceOnChain(trx, { now: app.clock.now(), ledger: app.context.ledger }, asId(targets[0]?.id ?? '')));
      continue;
    }
    if (!hashes.has(step.transfer)) hashes.set(step.transfer, `0x${randomBytes(32).toString('hex')}`);
    if (step.amount !== undefined) amounts.set(step.transfer, step.amount);
    const target = targets[step.to ?? 0] as Target;
    pending.push({
      issuanceId: target.id,
      chainId: target.chain_id,
      txHash: hashes.get(step.transfer) as string,
      logIndex: 0,
      fromAddress: '0x1111111111111111111111111111111111111111',
      toAddress: target.address,
      amount: BigInt(amounts.get(step.transfer) ?? '0'),
      status: step.status,
    });
  }
  await flush();
  return new Map([...hashes].map(([name, hash]) => [hash, name]));
}

/** What a vector leaves, without ids, hashes and times (which differ between twins by construction). */
async function outcome(owner: { key: { token: string }; shop: { id: string } }, readId: string, targets: readonly Target[], names: ReadonlyMap<string, string>) {
  const issuance = await read(app, owner.key.token, owner.shop.id, readId);
  const options = [];
  for (const target of targets) {
    // Rows written in one batch share their time: order them by what the vector names.
    const payouts = (await payoutsOf(app, target.id)).sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || Number(BigInt(a.gross) - BigInt(b.gross)));
    const payoutIndex = new Map(payouts.map((row, index) => [row.id, index]));
    const transfers = (await transfersOf(app, target.id)).sort((a, b) => String(names.get(a.tx_hash)).localeCompare(String(names.get(b.tx_hash))));
    const transferIndex = new Map(transfers.map((row, index) => [row.id, index]));
    const events = await eventsOf(app, target.id);
    const eventIndex = new Map(events.map((event, index) => [event.id, index]));
    const row = await app.context.db.selectFrom('issuances').selectAll().where('id', '=', target.id).executeTakeFirstOrThrow();
    options.push({
      issuance: { status: row.status, received: String(row.received), credited: String(row.credited), unswept: String(row.unswept), funded: row.funded_at !== null },
      payouts: payouts.map((payout) => ({ status: payout.status, gross: payout.gross, fee: payout.fee, to_recipient: payout.to_recipient, to_operator: payout.to_operator })),
      transfers: transfers.map((transfer) => ({
        status: transfer.status,
        disposition: transfer.disposition,
        amount: String(transfer.amount),
        payout: transfer.payout_id === null ? null : payoutIndex.get(transfer.payout_id),
        confirmedEvent: transfer.confirmed_event_id === null ? null : eventIndex.get(transfer.confirmed_event_id),
      })),
      events: events.map((event) => {
        // Ids, hashes and addresses differ between twins by construction.
        const { transfer_id, tx_hash: _hash, issuance_id: _issuance, shop_id: _shop, group_id, group_public_id: _group, chain_event, to: _to, ...data } = event.data as Record<string, unknown>;
        return {
          type: event.type,
          ...data,
          transfer: typeof transfer_id === 'string' ? transferIndex.get(transfer_id) : null,
          reference: chain_event === undefined ? undefined : eventIndex.get(String((chain_event as { reference_event_id: string }).reference_event_id)),
          grouped: group_id !== null,
        };
      }),
    });
  }
  return { status: issuance.status, received: issuance.received, options };
}

async function twinInvoices(amount: string, cancelled = false) {
  const make = async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, amount);
    if (cancelled) await cancel(app, owner.key.token, owner.shop.id, invoice.id);
    return { owner, readId: invoice.id as string, targets: [invoice as Target] };
  };
  return [await make(), await make()];
}

async function twinDeposits() {
  const make = async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const created = await createDeposit(app, owner.key.token, owner.shop.id, { chain_id: BASE, token: BASE_USDC });
    await app.jobs.drain();
    const deposit = await read(app, owner.key.token, owner.shop.id, created.json().id);
    return { owner, readId: deposit.id as string, targets: [deposit as Target] };
  };
  return [await make(), await make()];
}

async function twinGroups() {
  const make = async () => {
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
    return { owner, readId: group.id as string, targets: group.options as Target[] };
  };
  return [await make(), await make()];
}

async function expectSame(twins: Awaited<ReturnType<typeof twinInvoices>>, steps: readonly Step[]) {
  const [one, batch] = twins as [(typeof twins)[number], (typeof twins)[number]];
  const oneNames = await play(one.targets, steps, 'recordTransfer');
  const batchNames = await play(batch.targets, steps, 'recordTransfers');
  const expected = await outcome(one.owner, one.readId, one.targets, oneNames);
  expect(await outcome(batch.owner, batch.readId, batch.targets, batchNames)).toEqual(expected);
  return expected;
}

const confirmed = (transfer: string, amount: number, to = 0): Step => ({ transfer, amount: usdc(amount), status: 'confirmed', to });
const observed = (transfer: string, amount: number, to = 0): Step => ({ transfer, amount: usdc(amount), status: 'observed', to });
const reverted = (transfer: string, to = 0): Step => ({ transfer, status: 'reverted', to });

describe('LEDGER "Invoices" through both entries, A = 100 USDC', () => {
  it('40, 60 → funded, one payout sweeping both', async () => {
    const expected = await expectSame(await twinInvoices(usdc(100)), [confirmed('a', 40), confirmed('b', 60)]);
    expect(expected.status).toBe('funded');
    expect(expected.options[0]?.payouts).toEqual([{ status: 'scheduled', gross: usdc(100), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(0.5) }]);
  });

  it('40 → open, R = 40', async () => {
    const expected = await expectSame(await twinInvoices(usdc(100)), [observed('a', 40), confirmed('a', 40)]);
    expect(expected).toMatchObject({ status: 'open', received: usdc(40) });
  });

  it('130 → funded, operator gets the overpayment', async () => {
    await expectSame(await twinInvoices(usdc(100)), [observed('a', 130), confirmed('a', 130)]);
  });

  it('40 earlier, then 60 and 5 in one batch: funded, then overpayment re-splits the payout', async () => {
    const expected = await expectSame(await twinInvoices(usdc(100)), [confirmed('a', 40), { batch: true }, observed('b', 60), confirmed('b', 60), observed('c', 5), confirmed('c', 5)]);
    expect(expected.options[0]?.transfers.map((transfer) => transfer.disposition)).toEqual(['credited', 'credited', 'overpayment']);
  });

  it('funded before the batch: later transfers join the overpayment (one by one inside the batch)', async () => {
    await expectSame(await twinInvoices(usdc(100)), [confirmed('a', 100), { batch: true }, confirmed('b', 7), confirmed('c', 3)]);
  });

  it('100, then 5 after settled: a late transfer', async () => {
    const expected = await expectSame(await twinInvoices(usdc(100)), [confirmed('a', 100), { close: true }, confirmed('b', 5)]);
    expect(expected.options[0]?.transfers.map((transfer) => transfer.disposition)).toEqual(['credited', 'late']);
  });

  it('repeats and out-of-order deliveries change nothing', async () => {
    await expectSame(await twinInvoices(usdc(100)), [
      observed('a', 40),
      observed('a', 40),
      confirmed('a', 40),
      confirmed('a', 40),
      observed('a', 40),
      confirmed('b', 20),
      observed('b', 20),
    ]);
  });

  it('a cancelled invoice that reaches A is paid out as usual', async () => {
    await expectSame(await twinInvoices(usdc(100), true), [confirmed('a', 60), confirmed('b', 50)]);
  });
});

describe('LEDGER "Reversals" through both entries', () => {
  it('funded, payout unsent, then a reversal: back to open, payout cancelled', async () => {
    await expectSame(await twinInvoices(usdc(100)), [confirmed('a', 40), confirmed('b', 60), reverted('b')]);
  });

  it('an observed transfer reverted was never credited', async () => {
    await expectSame(await twinInvoices(usdc(100)), [observed('a', 40), reverted('a'), confirmed('a', 40)]);
  });
});

describe('LEDGER "Deposits" through both entries (Base sweep threshold 10 USDC)', () => {
  it('top-ups below, at and past the threshold in one batch: sweeps as often as one by one', async () => {
    const expected = await expectSame(await twinDeposits(), [
      confirmed('a', 4),
      { batch: true },
      observed('b', 4),
      confirmed('b', 4),
      confirmed('c', 3),
      confirmed('d', 6),
      confirmed('e', 5),
      confirmed('f', 9),
    ]);
    expect(expected.options[0]?.payouts).toHaveLength(2);
  });

  it('a reversal of a swept top-up goes one by one', async () => {
    await expectSame(await twinDeposits(), [confirmed('a', 12), confirmed('b', 1), reverted('a')]);
  });
});

describe('LEDGER "Groups" through both entries', () => {
  it('the first option to reach its amount is paid; the other is duplicate', async () => {
    const expected = await expectSame(await twinGroups(), [observed('a', 100, 1), confirmed('a', 100, 1), confirmed('b', 100, 0), confirmed('c', 10, 1)]);
    expect(expected.status).toBe('funded');
  });
});

describe('unknown and foreign keys', () => {
  it('answers unknown for a missing issuance and a key stored for another issuance, and records the rest', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const first = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const second = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    const hash = `0x${randomBytes(32).toString('hex')}`;
    const to = (target: Target, amount: string, status: IncomingTransfer['status'] = 'confirmed'): IncomingTransfer => ({
      issuanceId: target.id,
      chainId: target.chain_id,
      txHash: hash,
      logIndex: 0,
      fromAddress: null,
      toAddress: target.address,
      amount: BigInt(amount),
      status,
    });
    const outcomes = await inTransaction(app.context.db, (trx) =>
      recordTransfers(trx, { now: app.clock.now(), ledger: app.context.ledger }, [
        to(first, usdc(10)),
        to(second, usdc(10)),
        { ...to(first, usdc(10)), issuanceId: '00000000-0000-4000-8000-000000000000' },
      ]),
    );
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['recorded', 'unknown', 'unknown']);
    expect((await read(app, owner.key.token, owner.shop.id, first.id)).received).toBe(usdc(10));
    expect((await read(app, owner.key.token, owner.shop.id, second.id)).received).toBe('0');
  });
});
