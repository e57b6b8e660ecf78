import { describe, expect, it } from 'vitest';
import { shownPayoutStatus, type PayoutStatus } from '../../src/payouts/index.js';
import { GAS_RETRY_MS, MAX_SEND_ERRORS, payoutTransition, sendRetryDelayMs, type PayoutInput } from '../../src/payouts/payout-lifecycle.js';

// The payout's lifecycle (SPEC "Events": payout.sent / confirmed / reverted / failed;
// gas.wait and sweep.failed are internal; "a temporary RPC or gas delay is not payout.failed").

const HASH = `0x${'11'.repeat(32)}`;
const state = (status: PayoutStatus, attempts = 0, txHash: string | null = null) => ({ status, attempts, txHash });
const ALL: PayoutStatus[] = ['scheduled', 'waiting_gas', 'sending', 'sent', 'confirmed', 'failed', 'cancelled', 'reverted'];

/** For each input, the statuses it applies in; every other status refuses it. */
const APPLIES: Record<PayoutInput['type'], PayoutStatus[]> = {
  broadcast: ['scheduled', 'waiting_gas', 'sending', 'failed'],
  waiting_gas: ['sending'],
  failed: ['sending'],
  send_error: ['sending'],
  confirmed: ['scheduled', 'waiting_gas', 'sending', 'sent', 'failed'],
  reverted: ['confirmed'],
  sweep_reverted: ['sending', 'sent'],
  gas_wait_signal: ['scheduled', 'waiting_gas'],
  sweep_failed_signal: ['scheduled', 'waiting_gas'],
};
const INPUTS: PayoutInput[] = [
  { type: 'broadcast', txHash: HASH },
  { type: 'waiting_gas' },
  { type: 'failed', reason: 'no' },
  { type: 'send_error', message: 'rpc' },
  { type: 'confirmed', txHash: HASH },
  { type: 'reverted' },
  { type: 'sweep_reverted', txHash: HASH },
  { type: 'gas_wait_signal' },
  { type: 'sweep_failed_signal' },
];

describe('payoutTransition', () => {
  for (const input of INPUTS) {
    for (const status of ALL) {
      const applies = APPLIES[input.type].includes(status);
      it(`${input.type} from ${status}: ${applies ? 'applies' : 'refused'}`, () => {
        const result = payoutTransition(state(status), input);
        expect('refused' in result).toBe(!applies);
      });
    }
  }

  it('broadcast → sent, payout.sent, out of the queue', () => {
    expect(payoutTransition(state('sending'), { type: 'broadcast', txHash: HASH })).toMatchObject({
      status: 'sent',
      txHash: HASH,
      retryInMs: null,
      events: ['payout.sent'],
    });
  });

  it('waiting_gas → waiting_gas, retried later, no event, attempts unchanged', () => {
    expect(payoutTransition(state('sending', 3), { type: 'waiting_gas' })).toMatchObject({
      status: 'waiting_gas',
      attempts: 3,
      retryInMs: GAS_RETRY_MS,
      events: [],
    });
  });

  it('adapter failed → failed, payout.failed, never retried', () => {
    expect(payoutTransition(state('sending'), { type: 'failed', reason: 'bad token' })).toMatchObject({
      status: 'failed',
      retryInMs: null,
      lastError: 'bad token',
      events: ['payout.failed'],
    });
  });

  it('a thrown attempt → scheduled with back-off and no event, until the last one → failed + payout.failed', () => {
    expect(payoutTransition(state('sending', 0), { type: 'send_error', message: 'rpc' })).toMatchObject({
      status: 'scheduled',
      attempts: 1,
      retryInMs: 30_000,
      events: [],
    });
    expect(payoutTransition(state('sending', MAX_SEND_ERRORS - 2), { type: 'send_error', message: 'rpc' })).toMatchObject({
      status: 'scheduled',
      events: [],
    });
    expect(payoutTransition(state('sending', MAX_SEND_ERRORS - 1), { type: 'send_error', message: 'rpc' })).toMatchObject({
      status: 'failed',
      attempts: MAX_SEND_ERRORS,
      retryInMs: null,
      events: ['payout.failed'],
    });
  });

  it('back-off doubles from 30 s and stops growing at an hour', () => {
    expect([1, 2, 3, 7, 8, 9, 19].map(sendRetryDelayMs)).toEqual([30_000, 60_000, 120_000, 1_920_000, 3_600_000, 3_600_000, 3_600_000]);
  });

  it('confirmed from sent → payout.confirmed only; from a send never recorded → payout.sent first', () => {
    expect(payoutTransition(state('sent', 0, HASH), { type: 'confirmed', txHash: HASH })).toMatchObject({
      status: 'confirmed',
      events: ['payout.confirmed'],
    });
    for (const status of ['scheduled', 'waiting_gas', 'sending', 'failed'] as const) {
      expect(payoutTransition(state(status), { type: 'confirmed', txHash: HASH })).toMatchObject({
        status: 'confirmed',
        txHash: HASH,
        events: ['payout.sent', 'payout.confirmed'],
      });
    }
  });

  it('issue 9: a confirmed sweep reorged away is redone: back to sent with payout.reverted, confirmable again', () => {
    const reverted = payoutTransition(state('confirmed', 0, HASH), { type: 'reverted' });
    expect(reverted).toMatchObject({ status: 'sent', txHash: HASH, events: ['payout.reverted'], retryInMs: null });
    expect(payoutTransition(state('sent', 0, HASH), { type: 'confirmed', txHash: HASH })).toMatchObject({ status: 'confirmed', events: ['payout.confirmed'] });
  });

  it('issue 9: a sweep that failed on chain goes back to the queue, counted; the twentieth is payout.failed', () => {
    expect(payoutTransition(state('sent', 2, HASH), { type: 'sweep_reverted', txHash: HASH })).toMatchObject({
      status: 'scheduled',
      attempts: 3,
      txHash: null,
      retryInMs: sendRetryDelayMs(3),
      events: [],
    });
    expect(payoutTransition(state('sent', 0, HASH), { type: 'sweep_reverted', txHash: `0x${'22'.repeat(32)}` })).toEqual({ refused: 'other_transaction' });
    expect(payoutTransition(state('sent', MAX_SEND_ERRORS - 1, HASH), { type: 'sweep_reverted', txHash: HASH })).toMatchObject({
      status: 'failed',
      stamp: 'failed',
      events: ['payout.failed'],
    });
  });

  it('SPEC "Events" internal signals: gas.wait parks the payout, sweep.failed counts an attempt; both due at once, no event', () => {
    expect(payoutTransition(state('scheduled', 2), { type: 'gas_wait_signal' })).toMatchObject({ status: 'waiting_gas', attempts: 2, retryInMs: 0, events: [] });
    expect(payoutTransition(state('waiting_gas', 2), { type: 'sweep_failed_signal' })).toMatchObject({
      status: 'scheduled',
      attempts: 3,
      retryInMs: 0,
      lastError: 'sweep attempt failed',
      events: [],
    });
    expect(payoutTransition(state('failed'), { type: 'sweep_failed_signal' })).toEqual({ refused: 'not_unsent' });
  });

  it('repeats are refused by name (callers treat them as no-ops)', () => {
    expect(payoutTransition(state('confirmed'), { type: 'confirmed', txHash: HASH })).toEqual({ refused: 'already_confirmed' });
    expect(payoutTransition(state('reverted'), { type: 'reverted' })).toEqual({ refused: 'already_reverted' });
    expect(payoutTransition(state('sent'), { type: 'broadcast', txHash: HASH })).toEqual({ refused: 'already_sent' });
    expect(payoutTransition(state('cancelled'), { type: 'confirmed', txHash: HASH })).toEqual({ refused: 'withdrawn' });
  });
});

describe('shownPayoutStatus: what the payment history shows (decision 0022)', () => {
  const statuses: PayoutStatus[] = ['scheduled', 'waiting_gas', 'sending', 'sent', 'confirmed', 'failed', 'cancelled', 'reverted'];

  it('a live payout shows its queue status', () => {
    for (const status of statuses) expect(shownPayoutStatus(status, false)).toBe(status);
  });

  it('a sandbox payout that stands is `simulated` (it is never sent); a withdrawn one stays `cancelled`', () => {
    expect(statuses.map((status) => [status, shownPayoutStatus(status, true)])).toEqual([
      ['scheduled', 'simulated'],
      ['waiting_gas', 'simulated'],
      ['sending', 'sending'],
      ['sent', 'sent'],
      ['confirmed', 'confirmed'],
      ['failed', 'simulated'],
      ['cancelled', 'cancelled'],
      ['reverted', 'reverted'],
    ]);
  });
});
