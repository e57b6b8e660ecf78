import { depositSplit, payoutSplit, type FeeTerms, type PayoutSplit } from '../money/index.js';
import type { CancelReason, IssuanceKind, IssuanceStatus, TransferDisposition } from './issuance.js';

/**
 * The issuance lifecycle as one pure function (STYLE 7): SPEC "States and
 * transitions" and LEDGER.md, row by row. `transition(state, input)` answers the
 * next state and the effects the caller must persist and emit; it does no I/O.
 */

/** Where a payout stands, as far as the lifecycle cares. */
export type PayoutStage = 'unsent' | 'broadcast';

export interface LifecycleState {
  readonly kind: IssuanceKind;
  readonly status: IssuanceStatus;
  /** Invoice amount A; null for deposits. */
  readonly amount: bigint | null;
  readonly received: bigint;
  readonly credited: bigint;
  readonly unswept: bigint;
  readonly sweepThreshold: bigint | null;
  readonly feeTerms: FeeTerms;
  readonly tokenDecimals: number;
  readonly cancelled: boolean;
  readonly disabled: boolean;
  /** In a group already paid through another option (LEDGER "Groups"). */
  readonly paidElsewhere: boolean;
  /**
   * Invoices: the invoice's live payout. Deposits, on a reversal: the payout
   * that swept the reverted transfer, if any. `gross` is what it moves.
   */
  readonly payout: { readonly stage: PayoutStage; readonly gross: bigint } | null;
}

export type LifecycleInput =
  /** The chain adapter gave the issuance its payment address (SPEC: registering → open). */
  | { readonly type: 'address_allocated'; readonly address: string }
  | { readonly type: 'transfer_observed'; readonly amount: bigint }
  | { readonly type: 'transfer_confirmed'; readonly amount: bigint }
  /** Reverting a confirmed transfer; `disposition` is what it was recorded as. */
  | { readonly type: 'transfer_reverted'; readonly amount: bigint; readonly disposition: TransferDisposition }
  | { readonly type: 'invoice_closed' }
  | { readonly type: 'expired' }
  /** reason null: the merchant cancelled (or paused a deposit); merchant_blocked: operator staff. */
  | { readonly type: 'cancelled'; readonly reason: CancelReason | null }
  /** A paused deposit's page is served again (pausing is `cancelled` with no reason). */
  | { readonly type: 'enabled' };

export type LifecycleEffect =
  | { readonly type: 'set_address'; readonly address: string }
  | { readonly type: 'emit'; readonly event: 'transfer.observed' | 'transfer.confirmed' | 'transfer.reverted' | 'invoice.closed' }
  | { readonly type: 'emit_cancelled'; readonly reason: CancelReason | null }
  | { readonly type: 'set_cancelled'; readonly reason: CancelReason | null }
  | { readonly type: 'disable' }
  | { readonly type: 'enable' }
  /** A new payout row, scheduled, of this split. */
  | { readonly type: 'schedule_payout'; readonly split: PayoutSplit & { readonly gross: bigint } }
  /** The unsent payout moves a different sum now (overpayment joined or reverted). */
  | { readonly type: 'resplit_payout'; readonly split: PayoutSplit & { readonly gross: bigint } }
  | { readonly type: 'cancel_payout' }
  | { readonly type: 'mark_group_paid' }
  | { readonly type: 'unmark_group_paid' };

export interface LifecycleResult {
  readonly state: LifecycleState;
  /** For confirmed transfers: how the ledger records it. */
  readonly disposition?: TransferDisposition;
  /** True when the transfer paid a group that another option had already paid. */
  readonly duplicate?: boolean;
  readonly effects: readonly LifecycleEffect[];
}

/** An input that does not apply in this state (an expected outcome, not a bug). */
export interface LifecycleRefusal {
  readonly refused: 'not_registering' | 'not_funded' | 'not_invoice' | 'already_paid' | 'already_cancelled' | 'already_disabled' | 'already_enabled' | 'not_deposit' | 'already_reconciling';
}

export function transition(state: LifecycleState, input: LifecycleInput): LifecycleResult | LifecycleRefusal {
  switch (input.type) {
    case 'address_allocated':
      // Only once: a second allocation (a worker whose lease ran out) finds the address set.
      if (state.status !== 'registering') return { refused: 'not_registering' };
      return { state: { ...state, status: 'open' }, effects: [{ type: 'set_address', address: input.address }] };
    case 'transfer_observed':
      return { state, duplicate: state.paidElsewhere, effects: [{ type: 'emit', event: 'transfer.observed' }] };
    case 'transfer_confirmed':
      return state.kind === 'deposit' ? confirmDeposit(state, input.amount) : confirmInvoice(state, input.amount);
    case 'transfer_reverted':
      return state.kind === 'deposit' ? revertDeposit(state, input.amount) : revertInvoice(state, input.amount, input.disposition);
    case 'invoice_closed':
      if (state.kind !== 'invoice') return { refused: 'not_invoice' };
      if (state.status !== 'funded') return { refused: 'not_funded' };
      return { state: { ...state, status: 'settled' }, effects: [{ type: 'emit', event: 'invoice.closed' }] };
    case 'expired':
      return cancel(state, 'expired');
    case 'cancelled':
      return cancel(state, input.reason);
    case 'enabled':
      if (state.kind !== 'deposit') return { refused: 'not_deposit' };
      if (!state.disabled) return { refused: 'already_enabled' };
      return { state: { ...state, disabled: false }, effects: [{ type: 'enable' }] };
  }
}

function confirmInvoice(state: LifecycleState, amount: bigint): LifecycleResult {
  const received = state.received + amount;
  const confirmed = { type: 'emit', event: 'transfer.confirmed' } as const;
  if (state.paidElsewhere) {
    return { state: { ...state, received }, disposition: 'duplicate', duplicate: true, effects: [confirmed] };
  }
  const invoiceAmount = state.amount ?? 0n;
  if (state.status === 'registering' || state.status === 'open') {
    const credited = state.credited + amount;
    if (credited < invoiceAmount) {
      return { state: { ...state, received, credited }, disposition: 'credited', effects: [confirmed] };
    }
    const split = splitInvoice(state, credited);
    return {
      state: { ...state, received, credited, status: 'funded', payout: { stage: 'unsent', gross: credited } },
      disposition: 'credited',
      effects: [confirmed, { type: 'schedule_payout', split }, { type: 'mark_group_paid' }],
    };
  }
  if (state.status === 'funded' && state.payout?.stage !== 'broadcast') {
    const credited = state.credited + amount;
    return {
      state: { ...state, received, credited, payout: { stage: 'unsent', gross: credited } },
      disposition: 'overpayment',
      effects: [confirmed, { type: 'resplit_payout', split: splitInvoice(state, credited) }],
    };
  }
  // Settled, reconciling, or funded with the sweep already broadcast: a late transfer.
  return { state: { ...state, received }, disposition: 'late', effects: [confirmed] };
}

function confirmDeposit(state: LifecycleState, amount: bigint): LifecycleResult {
  const received = state.received + amount;
  const balance = state.unswept + amount;
  const confirmed = { type: 'emit', event: 'transfer.confirmed' } as const;
  if (state.sweepThreshold === null || balance < state.sweepThreshold) {
    return { state: { ...state, received, unswept: balance }, disposition: 'credited', effects: [confirmed] };
  }
  return {
    state: { ...state, received, unswept: 0n },
    disposition: 'credited',
    effects: [confirmed, { type: 'schedule_payout', split: splitDeposit(state, balance) }],
  };
}

function revertInvoice(state: LifecycleState, amount: bigint, disposition: TransferDisposition): LifecycleResult {
  const received = state.received - amount;
  const reverted = { type: 'emit', event: 'transfer.reverted' } as const;
  if (disposition === 'late' || disposition === 'duplicate') {
    return { state: { ...state, received }, effects: [reverted] };
  }
  const credited = state.credited - amount;
  const invoiceAmount = state.amount ?? 0n;
  const wasPaid = state.status === 'funded' || state.status === 'settled' || state.status === 'reconciling';
  if (!wasPaid) return { state: { ...state, received, credited }, effects: [reverted] };
  if (state.status !== 'funded' || state.payout?.stage === 'broadcast') {
    // The recipient was (or is being) paid from funds that are gone: operator attention.
    return { state: { ...state, received, credited, status: 'reconciling' }, effects: [reverted] };
  }
  if (credited >= invoiceAmount) {
    return {
      state: { ...state, received, credited, payout: { stage: 'unsent', gross: credited } },
      effects: [reverted, { type: 'resplit_payout', split: splitInvoice(state, credited) }],
    };
  }
  return {
    state: { ...state, received, credited, status: 'open', payout: null },
    effects: [reverted, { type: 'cancel_payout' }, { type: 'unmark_group_paid' }],
  };
}

function revertDeposit(state: LifecycleState, amount: bigint): LifecycleResult {
  const received = state.received - amount;
  const reverted = { type: 'emit', event: 'transfer.reverted' } as const;
  if (state.payout === null) {
    return { state: { ...state, received, unswept: state.unswept - amount }, effects: [reverted] };
  }
  if (state.payout.stage === 'broadcast') {
    return { state: { ...state, received, status: 'reconciling' }, effects: [reverted] };
  }
  // The unsent sweep is withdrawn; its other transfers return to the balance,
  // which may still reach the threshold on its own.
  const balance = state.unswept + state.payout.gross - amount;
  if (state.sweepThreshold !== null && balance >= state.sweepThreshold && balance > 0n) {
    return {
      state: { ...state, received, unswept: 0n, payout: null },
      effects: [reverted, { type: 'cancel_payout' }, { type: 'schedule_payout', split: splitDeposit(state, balance) }],
    };
  }
  return { state: { ...state, received, unswept: balance, payout: null }, effects: [reverted, { type: 'cancel_payout' }] };
}

function cancel(state: LifecycleState, reason: CancelReason | null): LifecycleResult | LifecycleRefusal {
  if (state.kind === 'deposit') {
    // Deposits never expire; a block (or a pause) disables the address's page.
    if (reason === 'expired') return { refused: 'not_invoice' };
    if (state.disabled) return { refused: 'already_disabled' };
    return { state: { ...state, disabled: true }, effects: [{ type: 'disable' }] };
  }
  if (state.cancelled) return { refused: 'already_cancelled' };
  if (state.status !== 'registering' && state.status !== 'open') return { refused: 'already_paid' };
  return {
    state: { ...state, cancelled: true },
    effects: [{ type: 'set_cancelled', reason }, { type: 'emit_cancelled', reason }],
  };
}

function splitInvoice(state: LifecycleState, credited: bigint) {
  return { gross: credited, ...payoutSplit(state.amount ?? 0n, credited, state.feeTerms, state.tokenDecimals) };
}

function splitDeposit(state: LifecycleState, balance: bigint) {
  return { gross: balance, ...depositSplit(balance, state.feeTerms, state.tokenDecimals) };
}
