import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChainAdapters } from '../../src/chains/index.js';
import { SendPayoutsJob } from '../../src/payouts/index.js';
import type { TestApp } from '../support/app.js';
import type { RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { BASE, eventsOf, usdc } from './issuances-helpers.js';
import { createLiveApp, openLiveInvoice, payoutRow, watcherConfirms } from './payouts-helpers.js';

// ARCHITECTURE rule 4: workers claim payout rows FOR UPDATE SKIP LOCKED, so any
// number of them never send one payout twice (meaningful on PostgreSQL; PGlite
// runs one transaction at a time).

let app: TestApp;
let adapter: RecordingChainAdapter;
beforeAll(async () => {
  ({ app, adapter } = await createLiveApp());
});
afterAll(async () => {
  await app.close();
});

describe('two payout workers at once', () => {
  it('each due payout is sent exactly once and gets exactly one payout.sent', async () => {
    const invoices = [];
    for (let index = 0; index < 12; index += 1) invoices.push(await openLiveInvoice(app, usdc(100)));
    // Funded only now, with no drain after: the app's own worker must not send them first.
    for (const invoice of invoices) await watcherConfirms(app, invoice.id, invoice.address, usdc(100));
    const worker = () =>
      new SendPayoutsJob({ db: app.context.db, clock: app.clock, adapters: createChainAdapters({ evm: new Map([[BASE, adapter]]) }), log: app.server.log, ledger: app.context.ledger });
    const [first, second] = [worker(), worker()];
    let claims = 0;
    const runUntilIdle = async (job: SendPayoutsJob) => {
      for (let handled = await job.run(); handled > 0; handled = await job.run()) claims += handled;
    };
    await Promise.all([runUntilIdle(first), runUntilIdle(second), runUntilIdle(first), runUntilIdle(second)]);

    expect(claims).toBe(invoices.length);

    for (const invoice of invoices) {
      const payout = await payoutRow(app, invoice.id);
      expect(payout.status).toBe('sent');
      expect(adapter.sends.filter((request) => request.payoutId === payout.id)).toHaveLength(1);
      expect((await eventsOf(app, invoice.id)).filter((event) => event.type === 'payout.sent')).toHaveLength(1);
    }
    expect(new Set(adapter.broadcasts.map((sent) => sent.payoutId)).size).toBe(adapter.broadcasts.length);
  });
});
