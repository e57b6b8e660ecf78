import { describe, expect, it } from 'vitest';
import {
  transition,
  type LifecycleInput,
  type LifecycleResult,
  type LifecycleState,
} from '../../src/issuances/issuance-lifecycle.js';
import { units18 } from '../../src/money/index.js';

// SPEC "States and transitions" (table, row by row) and LEDGER.md (tables as test vectors),
// against the one pure transition function (STYLE 7).

const USDC = 1_000_000n;
const TERMS = { bps: 50, minimum: units18(100_000_000_000_000_000n), maximum: units18(5_000_000_000_000_000_000n) }; // 50 / 0.1e18 / 5e18

function invoice(overrides: Partial<LifecycleState> = {}): LifecycleState {
  return {
    kind: 'invoice',
    status: 'open',
    amount: 100n * USDC,
    received: 0n,
    credited: 0n,
    unswept: 0n,
    sweepThreshold: null,
    feeTerms: TERMS,
    tokenDecimals: 6,
    cancelled: false,
    disabled: false,
    paidElsewhere: false,
    payout: null,
    ...overrides,
  };
}

function deposit(overrides: Partial<LifecycleState> = {}): LifecycleState {
  return invoice({ kind: 'deposit', amount: null, sweepThreshold: 10n * USDC, ...overrides });
}

function run(state: LifecycleState, input: LifecycleInput): LifecycleResult {
  const result = transition(state, input);
  if ('refused' in result) throw new Error(`refused: ${result.refused}`);
  return result;
}

/** Applies confirmed transfers in order, carrying the payout the way the ledger stores it. */
function confirmAll(state: LifecycleState, amounts: readonly bigint[]) {
  let current = state;
  const results: LifecycleResult[] = [];
  for (const amount of amounts) {
    const result = run(current, { type: 'transfer_confirmed', amount });
    results.push(result);
    current = result.state;
  }
  return { state: current, results, effects: results.flatMap((result) => result.effects) };
}

const confirmed = { type: 'emit', event: 'transfer.confirmed' };

describe('SPEC "States and transitions", row by row', () => {
  it('registering + address allocated → open, the address stored; a second allocation changes nothing', () => {
    for (const kind of ['invoice', 'deposit'] as const) {
      const registering = kind === 'invoice' ? invoice({ status: 'registering' }) : deposit({ status: 'registering' });
      const result = transition(registering, { type: 'address_allocated', address: '0xabc' }) as LifecycleResult;
      expect(result.state.status).toBe('open');
      expect(result.effects).toEqual([{ type: 'set_address', address: '0xabc' }]);
      expect(transition(result.state, { type: 'address_allocated', address: '0xdef' })).toEqual({ refused: 'not_registering' });
    }
  });

  it('open + confirmed transfer below the amount → open, received increases (partial payments add up)', () => {
    const result = run(invoice(), { type: 'transfer_confirmed', amount: 40n * USDC });
    expect(result.state).toMatchObject({ status: 'open', received: 40n * USDC, credited: 40n * USDC });
    expect(result.disposition).toBe('credited');
    expect(result.effects).toEqual([confirmed]);
  });

  it('open + confirmed transfers reaching the amount → funded, payout scheduled', () => {
    const result = run(invoice({ received: 40n * USDC, credited: 40n * USDC }), { type: 'transfer_confirmed', amount: 60n * USDC });
    expect(result.state.status).toBe('funded');
    expect(result.effects).toContainEqual({
      type: 'schedule_payout',
      split: { gross: 100n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 500_000n },
    });
  });

  it('funded + invoice closed on chain → settled, event invoice.closed', () => {
    const result = run(invoice({ status: 'funded', payout: { stage: 'unsent', gross: 100n * USDC } }), { type: 'invoice_closed' });
    expect(result.state.status).toBe('settled');
    expect(result.effects).toEqual([{ type: 'emit', event: 'invoice.closed' }]);
  });

  for (const status of ['registering', 'open'] as const) {
    it(`${status} (unpaid) + expires_at passes → status unchanged, cancelled_at set, invoice.cancelled reason expired`, () => {
      const result = run(invoice({ status }), { type: 'expired' });
      expect(result.state.status).toBe(status);
      expect(result.effects).toEqual([
        { type: 'set_cancelled', reason: 'expired' },
        { type: 'emit_cancelled', reason: 'expired' },
      ]);
    });

    it(`${status} (unpaid) + merchant cancel → unchanged status, cancelled_at set, invoice.cancelled without reason`, () => {
      const result = run(invoice({ status }), { type: 'cancelled', reason: null });
      expect(result.state).toMatchObject({ status, cancelled: true });
      expect(result.effects).toEqual([
        { type: 'set_cancelled', reason: null },
        { type: 'emit_cancelled', reason: null },
      ]);
    });

    it(`${status} (unpaid) + merchant blocked → cancelled with reason merchant_blocked`, () => {
      const result = run(invoice({ status }), { type: 'cancelled', reason: 'merchant_blocked' });
      expect(result.effects).toContainEqual({ type: 'emit_cancelled', reason: 'merchant_blocked' });
    });
  }

  it('merchant blocked → deposit addresses disabled (no invoice.cancelled)', () => {
    const result = run(deposit(), { type: 'cancelled', reason: 'merchant_blocked' });
    expect(result.state.disabled).toBe(true);
    expect(result.effects).toEqual([{ type: 'disable' }]);
  });

  it('cancelled + later confirmed transfer reaching the amount → payout still happens (status follows the table)', () => {
    const result = run(invoice({ cancelled: true }), { type: 'transfer_confirmed', amount: 100n * USDC });
    expect(result.state).toMatchObject({ status: 'funded', cancelled: true });
    expect(result.effects.some((effect) => effect.type === 'schedule_payout')).toBe(true);
  });

  it('settled + later confirmed transfer → unchanged, recorded as a late transfer, not paid out', () => {
    const result = run(invoice({ status: 'settled', received: 100n * USDC, credited: 100n * USDC }), { type: 'transfer_confirmed', amount: 5n * USDC });
    expect(result.state).toMatchObject({ status: 'settled', received: 105n * USDC, credited: 100n * USDC });
    expect(result.disposition).toBe('late');
    expect(result.effects).toEqual([confirmed]);
  });

  it('open (sandbox) + simulated transfer.confirmed with the full amount → funded', () => {
    expect(run(invoice(), { type: 'transfer_confirmed', amount: 100n * USDC }).state.status).toBe('funded');
  });

  it('funded (sandbox) + simulated invoice.closed → settled', () => {
    expect(run(invoice({ status: 'funded' }), { type: 'invoice_closed' }).state.status).toBe('settled');
  });

  it('observed transfers emit transfer.observed and credit nothing', () => {
    const result = run(invoice(), { type: 'transfer_observed', amount: 100n * USDC });
    expect(result.state).toEqual(invoice());
    expect(result.effects).toEqual([{ type: 'emit', event: 'transfer.observed' }]);
  });
});

describe('inputs that do not apply are refused as values', () => {
  it.each([
    ['invoice.closed on an open invoice', invoice(), { type: 'invoice_closed' }, 'not_funded'],
    ['invoice.closed on a deposit', deposit(), { type: 'invoice_closed' }, 'not_invoice'],
    ['cancel of a funded invoice', invoice({ status: 'funded' }), { type: 'cancelled', reason: null }, 'already_paid'],
    ['cancel of a settled invoice', invoice({ status: 'settled' }), { type: 'cancelled', reason: null }, 'already_paid'],
    ['cancel twice', invoice({ cancelled: true }), { type: 'cancelled', reason: null }, 'already_cancelled'],
    ['expiry of a cancelled invoice', invoice({ cancelled: true }), { type: 'expired' }, 'already_cancelled'],
    ['expiry of a deposit (deposits never expire)', deposit(), { type: 'expired' }, 'not_invoice'],
    ['disabling a disabled deposit', deposit({ disabled: true }), { type: 'cancelled', reason: 'merchant_blocked' }, 'already_disabled'],
    ['re-enabling an enabled deposit', deposit(), { type: 'enabled' }, 'already_enabled'],
    ['re-enabling an invoice', invoice(), { type: 'enabled' }, 'not_deposit'],
  ] as const)('%s', (_name, state, input, refused) => {
    expect(transition(state, input as LifecycleInput)).toEqual({ refused });
  });
});

describe('LEDGER "Invoices" table (A = 100 USDC, terms 50 / 0.1e18 / 5e18)', () => {
  it('40, 60 → funded; recipient 99.5, operator 0.5', () => {
    const { state, effects } = confirmAll(invoice(), [40n * USDC, 60n * USDC]);
    expect(state.status).toBe('funded');
    expect(effects).toContainEqual({ type: 'schedule_payout', split: { gross: 100n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 500_000n } });
  });

  it('40 → open, R = 40, no payout', () => {
    const { state, effects } = confirmAll(invoice(), [40n * USDC]);
    expect(state).toMatchObject({ status: 'open', received: 40n * USDC });
    expect(effects.some((effect) => effect.type === 'schedule_payout')).toBe(false);
  });

  it('130 → funded; recipient 99.5, operator 30.5 (overpayment to the operator)', () => {
    const { effects } = confirmAll(invoice(), [130n * USDC]);
    expect(effects).toContainEqual({ type: 'schedule_payout', split: { gross: 130n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 30_500_000n } });
  });

  it('100, then 5 after settled → settled; payout 99.5 / 0.5; the 5 is a late transfer', () => {
    const funded = confirmAll(invoice(), [100n * USDC]);
    const settled = run(funded.state, { type: 'invoice_closed' }).state;
    const late = run(settled, { type: 'transfer_confirmed', amount: 5n * USDC });
    expect(late.state.status).toBe('settled');
    expect(late.disposition).toBe('late');
    expect(funded.effects).toContainEqual({ type: 'schedule_payout', split: { gross: 100n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 500_000n } });
  });

  it('transfers confirmed while funded (before the sweep) join the overpayment', () => {
    const { state, results } = confirmAll(invoice(), [100n * USDC, 30n * USDC]);
    expect(state).toMatchObject({ status: 'funded', received: 130n * USDC, credited: 130n * USDC });
    expect(results[1]?.disposition).toBe('overpayment');
    expect(results[1]?.effects).toContainEqual({ type: 'resplit_payout', split: { gross: 130n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 30_500_000n } });
  });

  it('a transfer after the sweep was broadcast (still funded) is late, not added to it', () => {
    const result = run(invoice({ status: 'funded', credited: 100n * USDC, payout: { stage: 'broadcast', gross: 100n * USDC } }), {
      type: 'transfer_confirmed',
      amount: 5n * USDC,
    });
    expect(result.disposition).toBe('late');
  });

  it('LEDGER "Fees" row 33 / 0 / 1e30 at A = 1.000001: fee 3,300, recipient 996,701', () => {
    const state = invoice({ amount: 1_000_001n, feeTerms: { bps: 33, minimum: units18(0n), maximum: units18(10n ** 30n) } });
    expect(run(state, { type: 'transfer_confirmed', amount: 1_000_001n }).effects).toContainEqual({
      type: 'schedule_payout',
      split: { gross: 1_000_001n, fee: 3_300n, toRecipient: 996_701n, toOperator: 3_300n },
    });
  });
});

describe('LEDGER "Groups"', () => {
  it('the first option reaching its amount becomes the paid option', () => {
    expect(run(invoice(), { type: 'transfer_confirmed', amount: 100n * USDC }).effects).toContainEqual({ type: 'mark_group_paid' });
  });

  it('a transfer to another option after that: duplicate, not credited, not paid out', () => {
    const result = run(invoice({ paidElsewhere: true }), { type: 'transfer_confirmed', amount: 100n * USDC });
    expect(result).toMatchObject({ disposition: 'duplicate', duplicate: true });
    expect(result.state).toMatchObject({ status: 'open', received: 100n * USDC, credited: 0n });
    expect(result.effects).toEqual([confirmed]);
  });
});

describe('LEDGER "Deposits" (sweep threshold 10 USDC, deposit terms 50 / 0.1e18 / 5e18)', () => {
  it('confirmed transfers add to B; at the threshold one payout of B is scheduled and B restarts', () => {
    const { state, results } = confirmAll(deposit(), [4n * USDC, 7n * USDC, 2n * USDC]);
    expect(results[0]?.state.unswept).toBe(4n * USDC);
    expect(results[1]?.effects).toContainEqual({
      type: 'schedule_payout',
      split: { gross: 11n * USDC, fee: 100_000n, toRecipient: 10_900_000n, toOperator: 100_000n },
    });
    expect(state).toMatchObject({ status: 'open', unswept: 2n * USDC, received: 13n * USDC });
  });

  it('a paused deposit is still credited and swept', () => {
    const result = run(deposit({ disabled: true }), { type: 'transfer_confirmed', amount: 10n * USDC });
    expect(result.effects.some((effect) => effect.type === 'schedule_payout')).toBe(true);
  });
});

describe('LEDGER "Reversals"', () => {
  it('un-credits: R decreases on an open invoice', () => {
    const result = run(invoice({ received: 40n * USDC, credited: 40n * USDC }), { type: 'transfer_reverted', amount: 40n * USDC, disposition: 'credited' });
    expect(result.state).toMatchObject({ status: 'open', received: 0n, credited: 0n });
    expect(result.effects).toEqual([{ type: 'emit', event: 'transfer.reverted' }]);
  });

  it('funded with the payout not yet broadcast → back to open, payout cancelled', () => {
    const funded = invoice({ status: 'funded', received: 100n * USDC, credited: 100n * USDC, payout: { stage: 'unsent', gross: 100n * USDC } });
    const result = run(funded, { type: 'transfer_reverted', amount: 60n * USDC, disposition: 'credited' });
    expect(result.state).toMatchObject({ status: 'open', received: 40n * USDC, credited: 40n * USDC, payout: null });
    expect(result.effects).toEqual([{ type: 'emit', event: 'transfer.reverted' }, { type: 'cancel_payout' }, { type: 'unmark_group_paid' }]);
  });

  it('funded, reverting only overpayment → stays funded, payout re-split', () => {
    const funded = invoice({ status: 'funded', received: 130n * USDC, credited: 130n * USDC, payout: { stage: 'unsent', gross: 130n * USDC } });
    const result = run(funded, { type: 'transfer_reverted', amount: 30n * USDC, disposition: 'overpayment' });
    expect(result.state.status).toBe('funded');
    expect(result.effects).toContainEqual({ type: 'resplit_payout', split: { gross: 100n * USDC, fee: 500_000n, toRecipient: 99_500_000n, toOperator: 500_000n } });
  });

  it.each(['funded', 'settled'] as const)('%s with the payout broadcast or confirmed → reconciling', (status) => {
    const paid = invoice({ status, received: 100n * USDC, credited: 100n * USDC, payout: { stage: 'broadcast', gross: 100n * USDC } });
    const result = run(paid, { type: 'transfer_reverted', amount: 100n * USDC, disposition: 'credited' });
    expect(result.state).toMatchObject({ status: 'reconciling', received: 0n });
  });

  it.each(['late', 'duplicate'] as const)('a %s transfer reverted: received decreases, nothing else', (disposition) => {
    const settled = invoice({ status: 'settled', received: 105n * USDC, credited: 100n * USDC });
    const result = run(settled, { type: 'transfer_reverted', amount: 5n * USDC, disposition });
    expect(result.state).toMatchObject({ status: 'settled', received: 100n * USDC, credited: 100n * USDC });
  });

  it('deposit: an unswept transfer reverted → B decreases', () => {
    const result = run(deposit({ received: 4n * USDC, unswept: 4n * USDC }), { type: 'transfer_reverted', amount: 4n * USDC, disposition: 'credited' });
    expect(result.state).toMatchObject({ unswept: 0n, received: 0n, status: 'open' });
  });

  it('deposit: a transfer in an unsent sweep reverted → sweep cancelled, the rest back in B (re-swept if still at the threshold)', () => {
    const below = run(deposit({ received: 11n * USDC, payout: { stage: 'unsent', gross: 11n * USDC } }), {
      type: 'transfer_reverted',
      amount: 4n * USDC,
      disposition: 'credited',
    });
    expect(below.state.unswept).toBe(7n * USDC);
    expect(below.effects).toEqual([{ type: 'emit', event: 'transfer.reverted' }, { type: 'cancel_payout' }]);

    const still = run(deposit({ received: 15n * USDC, payout: { stage: 'unsent', gross: 15n * USDC } }), {
      type: 'transfer_reverted',
      amount: 4n * USDC,
      disposition: 'credited',
    });
    expect(still.effects).toContainEqual({ type: 'cancel_payout' });
    expect(still.effects).toContainEqual({ type: 'schedule_payout', split: { gross: 11n * USDC, fee: 100_000n, toRecipient: 10_900_000n, toOperator: 100_000n } });
  });

  it('deposit: a transfer in a broadcast sweep reverted → reconciling', () => {
    const result = run(deposit({ received: 11n * USDC, payout: { stage: 'broadcast', gross: 11n * USDC } }), {
      type: 'transfer_reverted',
      amount: 4n * USDC,
      disposition: 'credited',
    });
    expect(result.state.status).toBe('reconciling');
  });
});

describe('deposit pause goes through the lifecycle too (issue 8 item 4)', () => {
  it('pausing a deposit disables its page; re-enabling serves it again; no event either way', () => {
    const paused = run(deposit(), { type: 'cancelled', reason: null });
    expect(paused).toEqual({ state: deposit({ disabled: true }), effects: [{ type: 'disable' }] });
    expect(run(paused.state, { type: 'enabled' })).toEqual({ state: deposit(), effects: [{ type: 'enable' }] });
  });
});
