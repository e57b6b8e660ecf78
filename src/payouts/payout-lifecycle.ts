import type { PayoutStatus } from './payout.js';

/**
 * The payout's own lifecycle as one pure function (STYLE 7), beside the
 * issuance's: what a send attempt, a confirmation or a reversal does to a
 * payout row, and which SPEC "Events" it emits. No I/O; `apply-payout-input.ts`
 * persists the answer.
 *
 *   scheduled | waiting_gas ──claim──► sending ──broadcast──► sent ──confirmed──► confirmed
 *        ▲             ▲                  │                     │  ▲                    │
 *        │             └── gas / error ───┤                     │  └──── reverted ──────┘ (reorg: redone)
 *        └──────── sweep reverted ────────┴─────────────────────┘
 *   error 20×, or adapter 'failed', or sweep reverted 20× ──► failed
 *
 * A confirmed sweep reorged away is redone, not written off (issue 9): the
 * funds never left the forwarder on the surviving chain, and the relayer
 * rebroadcasts the same signed transaction. So `reverted` returns the payout
 * to `sent` with payout.reverted, and a later confirmation counts again.
 */

/** Thrown send attempts in a row after which the payout is failed (payout.failed). */
export const MAX_SEND_ERRORS = 20;
/** How long a claimed payout stays `sending` before another worker may claim it again. */
export const SEND_LEASE_MS = 10 * 60_000;
/** How soon a payout waiting for network fee funds is tried again. */
export const GAS_RETRY_MS = 2 * 60_000;
const ERROR_RETRY_BASE_MS = 30_000;
const ERROR_RETRY_MAX_MS = 60 * 60_000;

export type PayoutEvent = 'payout.sent' | 'payout.confirmed' | 'payout.reverted' | 'payout.failed';

export interface PayoutState {
  readonly status: PayoutStatus;
  /** Thrown send attempts so far (and sends whose lease ran out). */
  readonly attempts: number;
  readonly txHash: string | null;
}

export type PayoutInput =
  /** The adapter broadcast the sweep. */
  | { readonly type: 'broadcast'; readonly txHash: string }
  | { readonly type: 'waiting_gas' }
  /** The adapter gave up for good. */
  | { readonly type: 'failed'; readonly reason: string }
  /** The adapter threw: temporary trouble. */
  | { readonly type: 'send_error'; readonly message: string }
  /** A chain watcher saw the sweep confirmed. */
  | { readonly type: 'confirmed'; readonly txHash: string }
  /** A chain watcher saw the confirmed sweep reorged away: it is redone. */
  | { readonly type: 'reverted' }
  /**
   * The broadcast sweep `txHash` failed on chain (reverted, or its nonce was
   * used by another transaction): back to the queue for a new attempt, counted
   * like a thrown send. Ignored when the payout has moved on to another hash.
   */
  | { readonly type: 'sweep_reverted'; readonly txHash: string }
  /**
   * The internal signals of SPEC "Events" (the sandbox simulates them): the
   * unsent payout waits for network fee funds, or one sweep attempt failed
   * (counted; not the terminal payout.failed). Due again at once; no event.
   */
  | { readonly type: 'gas_wait_signal' }
  | { readonly type: 'sweep_failed_signal' };

export interface PayoutStep {
  readonly status: PayoutStatus;
  readonly attempts: number;
  readonly txHash: string | null;
  /** Milliseconds until the worker may claim it again; null: never (not in the queue). */
  readonly retryInMs: number | null;
  readonly lastError: string | null;
  readonly stamp: 'sent' | 'confirmed' | 'failed' | null;
  /** In order. */
  readonly events: readonly PayoutEvent[];
}

/** An input that does not apply (a repeat, or a late answer): the caller changes nothing. */
export interface PayoutRefusal {
  readonly refused:
    | 'already_sent'
    | 'already_confirmed'
    | 'already_reverted'
    | 'not_sending'
    | 'not_confirmed'
    | 'not_unsent'
    | 'not_broadcast'
    | 'other_transaction'
    | 'withdrawn';
}

/** Statuses a confirmation is accepted from: the sweep may be seen on chain before its send was recorded. */
const CONFIRMABLE: readonly PayoutStatus[] = ['scheduled', 'waiting_gas', 'sending', 'sent', 'failed'];

export function payoutTransition(state: PayoutState, input: PayoutInput): PayoutStep | PayoutRefusal {
  const keep = { attempts: state.attempts, txHash: state.txHash, lastError: null, stamp: null } as const;
  switch (input.type) {
    case 'broadcast':
      // A broadcast is a fact even when the worker's lease ran out meanwhile.
      if (state.status === 'sent' || state.status === 'confirmed') return { refused: 'already_sent' };
      if (state.status === 'cancelled' || state.status === 'reverted') return { refused: 'withdrawn' };
      return { ...keep, status: 'sent', txHash: input.txHash, retryInMs: null, stamp: 'sent', events: ['payout.sent'] };
    case 'waiting_gas':
      if (state.status !== 'sending') return { refused: 'not_sending' };
      return { ...keep, status: 'waiting_gas', retryInMs: GAS_RETRY_MS, events: [] };
    case 'failed':
      if (state.status !== 'sending') return { refused: 'not_sending' };
      return { ...keep, status: 'failed', retryInMs: null, lastError: input.reason, stamp: 'failed', events: ['payout.failed'] };
    case 'send_error': {
      if (state.status !== 'sending') return { refused: 'not_sending' };
      const attempts = state.attempts + 1;
      if (attempts >= MAX_SEND_ERRORS) {
        return { ...keep, status: 'failed', attempts, retryInMs: null, lastError: input.message, stamp: 'failed', events: ['payout.failed'] };
      }
      return { ...keep, status: 'scheduled', attempts, retryInMs: sendRetryDelayMs(attempts), lastError: input.message, events: [] };
    }
    case 'confirmed': {
      if (state.status === 'confirmed') return { refused: 'already_confirmed' };
      if (state.status === 'reverted') return { refused: 'already_reverted' };
      if (!CONFIRMABLE.includes(state.status)) return { refused: 'withdrawn' };
      // Seen on chain before its broadcast was recorded (a worker died after sending):
      // payout.sent first, so that every confirmed payout has one.
      const events: PayoutEvent[] = state.status === 'sent' ? ['payout.confirmed'] : ['payout.sent', 'payout.confirmed'];
      return { ...keep, status: 'confirmed', txHash: input.txHash, retryInMs: null, stamp: 'confirmed', events };
    }
    case 'gas_wait_signal':
      if (state.status !== 'scheduled' && state.status !== 'waiting_gas') return { refused: 'not_unsent' };
      return { ...keep, status: 'waiting_gas', retryInMs: 0, events: [] };
    case 'sweep_failed_signal':
      if (state.status !== 'scheduled' && state.status !== 'waiting_gas') return { refused: 'not_unsent' };
      return { ...keep, status: 'scheduled', attempts: state.attempts + 1, retryInMs: 0, lastError: 'sweep attempt failed', events: [] };
    case 'reverted':
      if (state.status === 'reverted') return { refused: 'already_reverted' };
      if (state.status !== 'confirmed') return { refused: 'not_confirmed' };
      return { ...keep, status: 'sent', retryInMs: null, events: ['payout.reverted'] };
    case 'sweep_reverted': {
      if (state.status !== 'sending' && state.status !== 'sent') return { refused: 'not_broadcast' };
      if (state.txHash !== null && state.txHash !== input.txHash) return { refused: 'other_transaction' };
      const attempts = state.attempts + 1;
      const lastError = `sweep ${input.txHash} failed on chain`;
      if (attempts >= MAX_SEND_ERRORS) {
        return { ...keep, status: 'failed', attempts, txHash: null, retryInMs: null, lastError, stamp: 'failed', events: ['payout.failed'] };
      }
      return { ...keep, status: 'scheduled', attempts, txHash: null, retryInMs: sendRetryDelayMs(attempts), lastError, events: [] };
    }
  }
}

/** Back-off after the n-th thrown attempt: 30 s doubling, at most an hour (twenty take about 14 hours). */
export function sendRetryDelayMs(attempts: number): number {
  return Math.min(ERROR_RETRY_BASE_MS * 2 ** Math.max(attempts - 1, 0), ERROR_RETRY_MAX_MS);
}
