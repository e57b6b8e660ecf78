import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmPayout, revertPayout } from '../../src/payouts/index.js';
import { inTransaction } from '../../src/platform/database/database.js';
import type { TestApp } from '../support/app.js';
import { createOwnerWithShop } from '../support/factories.js';
import { txHashFor, type RecordingChainAdapter } from '../support/recording-chain-adapter.js';
import { BASE, BASE_USDC, eventsOf, openInvoice, pay, read, transfersOf, usdc } from './issuances-helpers.js';
import { createLiveApp, openLiveInvoice, payoutRow, watcherConfirms } from './payouts-helpers.js';

// SPEC "Events" (payout.sent, payout.confirmed, payout.reverted; delivery rule 5),
// "States and transitions" (payout_tx_hash), LEDGER "Invoices" and "Reversals",
// through a live Base shop served by the recording adapter.

let app: TestApp;
let adapter: RecordingChainAdapter;
beforeAll(async () => {
  ({ app, adapter } = await createLiveApp());
});
afterAll(async () => {
  await app.close();
});

const PAYOUT_EVENT_KEYS = [
  'issuance_id',
  'shop_id',
  'external_id',
  'type',
  'invoice_cancelled',
  'group_id',
  'group_public_id',
  'payout_id',
  'chain_id',
  'token',
  'tx_hash',
  'recipient',
  'amounts',
  'fee_details',
  'transfer_ids',
  'transfer_ids_truncated',
];

const confirm = (payoutId: string, txHash: string) =>
  inTransaction(app.context.db, (trx) => confirmPayout(trx, { now: app.clock.now(), ledger: app.context.ledger }, { payoutId, txHash }));
const revert = (payoutId: string) => inTransaction(app.context.db, (trx) => revertPayout(trx, { now: app.clock.now(), ledger: app.context.ledger }, { payoutId }));

/** A live 100 USDC invoice paid 40 + 90 (LEDGER: recipient 99.5, operator 0.5 + 30 overpayment), its payout sent. */
async function paidAndSent() {
  const invoice = await openLiveInvoice(app, usdc(100));
  await watcherConfirms(app, invoice.id, invoice.address, usdc(40));
  await watcherConfirms(app, invoice.id, invoice.address, usdc(90));
  const sendsBefore = adapter.sends.length;
  await app.jobs.drain();
  const payout = await payoutRow(app, invoice.id);
  return { ...invoice, payout, sends: adapter.sends.slice(sendsBefore) };
}

describe('sending a live payout', () => {
  it('the adapter allocates the live address, and is asked exactly once to send LEDGER\'s split from it', async () => {
    const { id, address, payout, sends, owner } = await paidAndSent();
    expect(adapter.allocations.map((request) => request.issuanceId)).toContain(id);
    expect(sends).toEqual([
      {
        payoutId: payout.id,
        issuanceId: id,
        chainId: BASE,
        family: 'evm',
        token: BASE_USDC,
        tokenDecimals: 6,
        fromAddress: address,
        recipient: '0x000000000000000000000000000000000000dEaD',
        toRecipient: BigInt(usdc(99.5)),
        toOperator: BigInt(usdc(30.5)),
      },
    ]);
    expect(payout).toMatchObject({ status: 'sent', tx_hash: txHashFor(payout.id), next_attempt_at: null, attempts: 0 });
    expect(payout.sent_at).toEqual(expect.any(Date));
    // Broadcast is not confirmation: payout_tx_hash waits for payout.confirmed.
    expect(await read(app, owner.key.token, owner.shop.id, id)).toMatchObject({ status: 'funded', payout_tx_hash: null });
    await app.jobs.drain();
    expect(adapter.sends.filter((request) => request.payoutId === payout.id)).toHaveLength(1);
  });

  it('payout.sent carries the issuance fields, payout_id, tx hash, amounts, fee details and the swept transfer ids', async () => {
    const { id, shopId, payout } = await paidAndSent();
    const events = await eventsOf(app, id);
    expect(events.map((event) => event.type)).toEqual(['transfer.confirmed', 'transfer.confirmed', 'payout.sent']);
    const sent = events[2];
    const transferIds = (await transfersOf(app, id)).map((row) => row.id);
    expect(Object.keys(sent?.data ?? {}).sort()).toEqual([...PAYOUT_EVENT_KEYS, 'sequence'].sort());
    expect(sent?.data).toMatchObject({
      issuance_id: id,
      shop_id: shopId,
      external_id: null,
      type: 'invoice',
      invoice_cancelled: false,
      group_id: null,
      group_public_id: null,
      payout_id: payout.id,
      chain_id: BASE,
      token: BASE_USDC,
      tx_hash: txHashFor(payout.id),
      recipient: '0x000000000000000000000000000000000000dEaD',
      amounts: { gross: usdc(130), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(30.5) },
      fee_details: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      transfer_ids: transferIds,
      transfer_ids_truncated: false,
    });
  });

  it('a transfer confirmed while the sweep is out is a late transfer: the sent payout is not re-split', async () => {
    const { id, address, payout } = await paidAndSent();
    const late = await watcherConfirms(app, id, address, usdc(5));
    expect(late).toMatchObject({ outcome: 'recorded', disposition: 'late' });
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', gross: usdc(130), to_operator: usdc(30.5) });
    expect(payout.gross).toBe(usdc(130));
  });
});

describe('confirmPayout (the chain watcher saw the sweep confirmed)', () => {
  it('payout.confirmed with complete settlement accounting; GET issuance shows payout_tx_hash', async () => {
    const { id, token, shopId, payout } = await paidAndSent();
    const txHash = txHashFor(payout.id);
    const confirmed = await confirm(payout.id, txHash);
    expect(confirmed).toMatchObject({ outcome: 'recorded', payout: { status: 'confirmed', txHash } });
    expect(await payoutRow(app, id)).toMatchObject({ status: 'confirmed', tx_hash: txHash, confirmed_at: expect.any(Date) });

    const events = await eventsOf(app, id);
    // The confirmed sweep is the invoice's closing on chain (SPEC: funded → settled, invoice.closed), in the same transaction.
    expect(events.map((event) => event.type)).toEqual(['transfer.confirmed', 'transfer.confirmed', 'payout.sent', 'payout.confirmed', 'invoice.closed']);
    const event = events[3];
    expect(confirmed.outcome === 'recorded' ? confirmed.eventIds : []).toEqual([event?.id]);
    expect(Object.keys(event?.data ?? {}).sort()).toEqual([...PAYOUT_EVENT_KEYS, 'sequence'].sort());
    expect(event?.data).toMatchObject({
      payout_id: payout.id,
      tx_hash: txHash,
      amounts: { gross: usdc(130), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(30.5) },
      fee_details: { bps: 50, minimum: '100000000000000000', maximum: '5000000000000000000' },
      transfer_ids: (await transfersOf(app, id)).map((row) => row.id),
      transfer_ids_truncated: false,
    });
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'settled', payout_tx_hash: txHash });
  });

  it('is idempotent: a second confirmation changes nothing and writes no event', async () => {
    const { id, payout } = await paidAndSent();
    await confirm(payout.id, txHashFor(payout.id));
    const before = await eventsOf(app, id);
    expect(await confirm(payout.id, txHashFor(payout.id))).toMatchObject({ outcome: 'unchanged', reason: 'already_confirmed' });
    expect(await eventsOf(app, id)).toEqual(before);
  });

  it('a sweep seen confirmed before its broadcast was recorded (worker died) gets payout.sent, then payout.confirmed', async () => {
    const invoice = await openLiveInvoice(app, usdc(100));
    await watcherConfirms(app, invoice.id, invoice.address, usdc(100));
    const payout = await payoutRow(app, invoice.id);
    expect(payout.status).toBe('scheduled');
    const txHash = `0x${'ab'.repeat(32)}`;
    expect(await confirm(payout.id, txHash)).toMatchObject({ outcome: 'recorded', payout: { status: 'confirmed', txHash } });
    expect((await eventsOf(app, invoice.id)).map((event) => [event.type, event.data.payout_id ?? null, event.data.tx_hash])).toEqual([
      ['transfer.confirmed', null, expect.any(String)],
      ['payout.sent', payout.id, txHash],
      ['payout.confirmed', payout.id, txHash],
      ['invoice.closed', null, undefined],
    ]);
    const sendsBefore = adapter.sends.length;
    await app.jobs.drain();
    expect(adapter.sends).toHaveLength(sendsBefore);
    expect(await read(app, invoice.token, invoice.shopId, invoice.id)).toMatchObject({ payout_tx_hash: txHash });
  });

  it('an unknown payout id, and a sandbox payout, are unknown: nothing changes', async () => {
    expect(await confirm('00000000-0000-4000-8000-000000000000', `0x${'cd'.repeat(32)}`)).toEqual({ outcome: 'unknown' });
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(100));
    const payout = await payoutRow(app, invoice.id);
    const before = await eventsOf(app, invoice.id);
    expect(await confirm(payout.id, `0x${'cd'.repeat(32)}`)).toEqual({ outcome: 'unknown' });
    expect(await revert(payout.id)).toEqual({ outcome: 'unknown' });
    expect(await payoutRow(app, invoice.id)).toMatchObject({ status: 'scheduled', tx_hash: null });
    expect(await eventsOf(app, invoice.id)).toEqual(before);
  });
});

describe('revertPayout (the confirmed sweep was reorged away)', () => {
  it('payout.reverted references payout.confirmed; the payout is redone (back to sent), payout_tx_hash is gone until it confirms again', async () => {
    const { id, token, shopId, payout } = await paidAndSent();
    await confirm(payout.id, txHashFor(payout.id));
    const reverted = await revert(payout.id);
    expect(reverted).toMatchObject({ outcome: 'recorded', payout: { status: 'sent' } });

    const events = await eventsOf(app, id);
    expect(events.map((event) => event.type)).toEqual([
      'transfer.confirmed',
      'transfer.confirmed',
      'payout.sent',
      'payout.confirmed',
      'invoice.closed',
      'payout.reverted',
    ]);
    const confirmedEvent = events[3];
    expect(events[5]?.data).toMatchObject({
      payout_id: payout.id,
      tx_hash: txHashFor(payout.id),
      amounts: { gross: usdc(130), fee: usdc(0.5), to_recipient: usdc(99.5), to_operator: usdc(30.5) },
      chain_event: { reference_event_id: confirmedEvent?.id },
    });
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent', next_attempt_at: null });
    // SPEC: payout_tx_hash is the latest *confirmed* outgoing transfer; this one no longer is. The closing stays.
    expect(await read(app, token, shopId, id)).toMatchObject({ status: 'settled', payout_tx_hash: null });
    // Re-included: confirmed again, payout_tx_hash back.
    expect(await confirm(payout.id, txHashFor(payout.id))).toMatchObject({ outcome: 'recorded', payout: { status: 'confirmed' } });
    expect(await read(app, token, shopId, id)).toMatchObject({ payout_tx_hash: txHashFor(payout.id) });
  });

  it('is idempotent, and refuses a payout that was never confirmed', async () => {
    const { id, payout } = await paidAndSent();
    expect(await revert(payout.id)).toMatchObject({ outcome: 'unchanged', reason: 'not_confirmed' });
    expect(await payoutRow(app, id)).toMatchObject({ status: 'sent' });
    await confirm(payout.id, txHashFor(payout.id));
    await revert(payout.id);
    const before = await eventsOf(app, id);
    // A repeated reversal report changes nothing: the payout is no longer confirmed.
    expect(await revert(payout.id)).toMatchObject({ outcome: 'unchanged', reason: 'not_confirmed' });
    expect(await eventsOf(app, id)).toEqual(before);
  });

  it('a transfer arriving after the reversal does not start a second payout: the redone sweep is the one', async () => {
    const { id, address, payout } = await paidAndSent();
    await confirm(payout.id, txHashFor(payout.id));
    await revert(payout.id);
    expect(await watcherConfirms(app, id, address, usdc(10))).toMatchObject({ outcome: 'recorded' });
    const sendsBefore = adapter.sends.length;
    await app.jobs.drain();
    expect(adapter.sends).toHaveLength(sendsBefore);
    expect(await app.context.db.selectFrom('payouts').select('status').where('issuance_id', '=', id).execute()).toEqual([{ status: 'sent' }]);
  });
});

describe('sandbox payouts are never claimed (LEDGER "Sandbox")', () => {
  it('a funded sandbox invoice keeps its scheduled payout with no next attempt; no adapter call, no payout event', async () => {
    const owner = await createOwnerWithShop(app.context.db);
    const invoice = await openInvoice(app, owner.key.token, owner.shop.id, usdc(100));
    await pay(app, owner.key.token, owner.shop.id, invoice.id, usdc(100));
    const sendsBefore = adapter.sends.length;
    app.clock.advance(24 * 3600_000);
    await app.jobs.drain();
    expect(adapter.sends).toHaveLength(sendsBefore);
    expect(await payoutRow(app, invoice.id)).toMatchObject({ status: 'scheduled', next_attempt_at: null, attempts: 0 });
    expect((await eventsOf(app, invoice.id)).map((event) => event.type)).toEqual(['transfer.confirmed']);
  });
});
