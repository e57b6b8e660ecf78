import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainAdapters } from '../../src/chains/index.js';
import { MAX_SEND_ERRORS, SendPayoutsJob } from '../../src/payouts/index.js';
import type { TestApp } from '../support/app.js';
import { txHashFor, type RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { BASE, eventsOf, usdc } from './issuances-helpers.js';
import { createLiveApp, openLiveInvoice, payoutRow, watcherConfirms } from './payouts-helpers.js';

// SPEC "Events": payout.sent and payout.failed ("terminal payout failure needing
// intervention"); gas.wait and sweep.failed are internal signals, never events;
// "a temporary RPC or gas delay is not payout.failed". ARCHITECTURE rule 4: the
// payout row is the queue, claimed under a lease.

const MINUTE = 60_000;
const SEND_LEASE_MS = 10 * MINUTE;

let app: TestApp;
let adapter: RecordingChainAdapter;
beforeAll(async () => {
  ({ app, adapter } = await createLiveApp());
});
afterAll(async () => {
  await app.close();
});

/** A funded live 100 USDC invoice whose payout is scheduled and due now. */
async function fundedInvoice() {
  const invoice = await openLiveInvoice(app, usdc(100));
  await watcherConfirms(app, invoice.id, invoice.address, usdc(100));
  const payout = await payoutRow(app, invoice.id);
  return { ...invoice, payoutId: payout.id };
}

const sendsOf = (payoutId: string) => adapter.sends.filter((request) => request.payoutId === payoutId);
const payoutEvents = async (issuanceId: string) =>
  (await eventsOf(app, issuanceId)).filter((event) => event.type.startsWith('payout.')).map((event) => event.type);
const msUntilNextAttempt = async (issuanceId: string) => {
  const row = await payoutRow(app, issuanceId);
  return row.next_attempt_at === null ? null : row.next_attempt_at.getTime() - app.clock.now().getTime();
};

describe('waiting for network fee funds (gas.wait)', () => {
  it('parks the payout as waiting_gas without an event, and sends it on a later try', async () => {
    const { id, payoutId } = await fundedInvoice();
    adapter.script({ kind: 'waiting_gas' });
    await app.jobs.drain();
    expect(await payoutRow(app, id)).toMatchObject({ status: 'waiting_gas', attempts: 0, tx_hash: null });
    expect(await msUntilNextAttempt(id)).toBe(2 * MINUTE);
    expect(await payoutEvents(id)).toEqual([]);

    app.clock.advance(2 * MINUTE - 1);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(1);

    app.clock.advance(1);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(2);
    expect(sendsOf(payoutId)[1]).toEqual(sendsOf(payoutId)[0]);
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', tx_hash: txHashFor(payoutId), attempts: 0 });
    expect(await payoutEvents(id)).toEqual(['payout.sent']);
  });

  it('a long gas wait never turns into payout.failed', async () => {
    const { id } = await fundedInvoice();
    for (let round = 0; round < MAX_SEND_ERRORS + 5; round += 1) {
      adapter.script({ kind: 'waiting_gas' });
      await app.jobs.drain();
      app.clock.advance(2 * MINUTE);
    }
    expect(await payoutRow(app, id)).toMatchObject({ status: 'waiting_gas', attempts: 0 });
    expect(await payoutEvents(id)).toEqual([]);
  });
});

describe('temporary RPC errors (the adapter throws)', () => {
  it('go back to scheduled with a growing back-off and no event, then the send goes through', async () => {
    const { id, payoutId } = await fundedInvoice();
    adapter.script({ kind: 'throw', message: 'rpc timeout' }, { kind: 'throw', message: 'rpc timeout again' });
    await app.jobs.drain();
    expect(await payoutRow(app, id)).toMatchObject({ status: 'scheduled', attempts: 1, last_error: 'rpc timeout' });
    expect(await msUntilNextAttempt(id)).toBe(30_000);

    app.clock.advance(29_999);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(1);
    app.clock.advance(1);
    await app.jobs.drain();
    expect(await payoutRow(app, id)).toMatchObject({ status: 'scheduled', attempts: 2, last_error: 'rpc timeout again' });
    expect(await msUntilNextAttempt(id)).toBe(60_000);
    expect(await payoutEvents(id)).toEqual([]);

    app.clock.advance(60_000);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(3);
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
    expect(await payoutEvents(id)).toEqual(['payout.sent']);
  });

  it(`after ${MAX_SEND_ERRORS} in a row the payout fails for good: one payout.failed, no further tries`, async () => {
    const { id, payoutId } = await fundedInvoice();
    const delays: (number | null)[] = [];
    for (let attempt = 1; attempt <= MAX_SEND_ERRORS; attempt += 1) {
      adapter.script({ kind: 'throw', message: `rpc down #${attempt}` });
      await app.jobs.drain();
      const delay = await msUntilNextAttempt(id);
      delays.push(delay);
      if (delay !== null) app.clock.advance(delay);
    }
    // 30 s doubling, capped at an hour; none after the last.
    expect(delays.slice(0, 9)).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600].map((seconds) => seconds * 1000));
    expect(delays.at(-1)).toBeNull();
    expect(sendsOf(payoutId)).toHaveLength(MAX_SEND_ERRORS);
    const row = await payoutRow(app, id);
    expect(row).toMatchObject({ status: 'failed', attempts: MAX_SEND_ERRORS, last_error: `rpc down #${MAX_SEND_ERRORS}`, tx_hash: null });
    expect(row.failed_at).toEqual(expect.any(Date));

    const events = (await eventsOf(app, id)).filter((event) => event.type.startsWith('payout.'));
    expect(events.map((event) => event.type)).toEqual(['payout.failed']);
    expect(events[0]?.data).toMatchObject({
      payout_id: payoutId,
      tx_hash: null,
      amounts: { gross: usdc(100), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(0.5) },
    });
    // Operator-only detail: an adapter's error text never reaches the merchant.
    expect(JSON.stringify(events[0]?.data)).not.toContain('rpc down');

    app.clock.advance(7 * 24 * 3600_000);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(MAX_SEND_ERRORS);
  });
});

describe('the adapter gives up (failed)', () => {
  it('payout.failed at once, with the planned amounts and no transaction; never retried', async () => {
    const { id, payoutId } = await fundedInvoice();
    adapter.script({ kind: 'failed', reason: 'token contract refuses the transfer' });
    await app.jobs.drain();
    expect(await payoutRow(app, id)).toMatchObject({
      status: 'failed',
      attempts: 0,
      next_attempt_at: null,
      last_error: 'token contract refuses the transfer',
    });
    const events = (await eventsOf(app, id)).filter((event) => event.type.startsWith('payout.'));
    expect(events.map((event) => event.type)).toEqual(['payout.failed']);
    expect(events[0]?.data).toMatchObject({ payout_id: payoutId, tx_hash: null, amounts: { to_recipient: usdc(99.5), to_operator: usdc(0.5) } });
    expect(JSON.stringify(events[0]?.data)).not.toContain('refuses');
    app.clock.advance(24 * 3600_000);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(1);
  });
});

describe('a worker that dies mid-send (the lease)', () => {
  const stuckWorker = () =>
    new SendPayoutsJob({ db: app.context.db, clock: app.clock, adapters: createChainAdapters({ evm: new Map([[BASE, adapter]]) }), log: app.server.log, ledger: app.context.ledger });

  async function untilCalled(payoutId: string, times: number) {
    for (let wait = 0; wait < 500 && sendsOf(payoutId).length < times; wait += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(sendsOf(payoutId)).toHaveLength(times);
  }

  it('is not re-sent while its lease holds; after it, the same payout id is asked again and the sweep goes out once', async () => {
    const { id, payoutId } = await fundedInvoice();
    const release = adapter.hold();
    const stuck = stuckWorker().run();
    await untilCalled(payoutId, 1);
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sending' });
    expect(await msUntilNextAttempt(id)).toBe(SEND_LEASE_MS);

    app.clock.advance(SEND_LEASE_MS - 1);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(1);

    app.clock.advance(1);
    await app.jobs.drain();
    expect(sendsOf(payoutId)).toHaveLength(2);
    expect(sendsOf(payoutId)[1]).toEqual(sendsOf(payoutId)[0]);
    // The lapsed lease counts as an attempt; the sweep went out once.
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', tx_hash: txHashFor(payoutId), attempts: 1 });

    release();
    await stuck; // the first worker's (same) answer arrives late: recorded once only
    expect(adapter.broadcasts.filter((sent) => sent.payoutId === payoutId)).toHaveLength(1);
    expect(await payoutEvents(id)).toEqual(['payout.sent']);
  });

  it('a late non-broadcast answer from the worker that lost its lease changes nothing (no payout.failed)', async () => {
    const { id, payoutId } = await fundedInvoice();
    const release = adapter.hold();
    const stuck = stuckWorker().run();
    await untilCalled(payoutId, 1);
    app.clock.advance(SEND_LEASE_MS);
    adapter.script({ kind: 'throw', message: 'rpc timeout' });
    await app.jobs.drain(); // the new holder's try throws: back to scheduled
    expect(await payoutRow(app, id)).toMatchObject({ status: 'scheduled', attempts: 2, last_error: 'rpc timeout' });

    adapter.script({ kind: 'failed', reason: 'late answer' });
    release();
    await stuck; // the first worker now answers 'failed', but its lease is gone
    expect(await payoutRow(app, id)).toMatchObject({ status: 'scheduled', attempts: 2, failed_at: null });
    expect(await payoutEvents(id)).toEqual([]);

    app.clock.advance(60_000);
    await app.jobs.drain();
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', tx_hash: txHashFor(payoutId) });
    expect(await payoutEvents(id)).toEqual(['payout.sent']);
  });
});
