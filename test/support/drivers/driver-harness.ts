import type { NetworkFamily } from '../../../src/catalogue/index.js';
import type { TestApp } from '../app.js';

/**
 * What the driver conformance suite (test/chain/driver-conformance.test.ts)
 * needs from one chain family: everything family-specific sits behind this
 * interface, the suite itself never asks which family it runs. A harness for
 * a new family (Tron on a node under the Tron HTTP API, Solana on litesvm)
 * implements it in `test/support/drivers/<family>-harness.ts` and is added
 * to the suite's list; nothing else changes.
 *
 * The app is the real composition root on a fresh database; the harness
 * starts the family's node and Ivory's chain side for it, and drives the
 * chain (pay, advance, roll back). All money is token base units.
 */

/**
 * The cases of issue 21 item 6, by name (`notApplicable` keys), and
 * `cancelled-paid`: the other side of the late rule (LEDGER "Cancellation and
 * expiry": a cancelled or expired invoice still pays out; only a transfer
 * after settlement is late).
 */
export type ConformanceCase = 'allocation' | 'credited-once' | 'reversal' | 'one-sweep' | 'gas-wait' | 'late' | 'cancelled-paid';

/**
 * Where a payout sender can die (ARCHITECTURE "Chains": signed and stored
 * before broadcast, so a crash at any step leads to exactly one sweep):
 * - `after-sign`: the transaction is signed, its row not yet committed;
 * - `after-store`: stored and committed, not yet broadcast;
 * - `after-broadcast`: broadcast, the payout worker never heard the answer.
 */
export const KILL_POINTS = ['after-sign', 'after-store', 'after-broadcast'] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

/** A shop of this harness's network, with a read+write API key, paying `recipient`. */
export interface HarnessShop {
  readonly shopId: string;
  readonly apiKey: string;
  readonly recipient: string;
}

/** An invoice created over the API and allocated (open, with its address). */
export interface HarnessInvoice {
  readonly shop: HarnessShop;
  readonly id: string;
  readonly address: string;
  readonly amount: bigint;
}

/** One incoming transfer the harness made; `handle` is the harness's own key for it. */
export interface Payment {
  readonly invoice: HarnessInvoice;
  readonly amount: bigint;
  readonly handle: string;
}

/** What only a family that moves real tokens can show: the chain's own view. */
export interface OnChain {
  /** The issuance token's balance of `holder`, read from the node. */
  balanceOf(holder: string): Promise<bigint>;
  /** Sweeps of `address` that landed on chain (successful), read from the node. */
  sweepsOf(address: string): Promise<number>;
}

/** Crash points of the payout sender, and the restart after them. */
export interface SenderControl {
  /** From now on the sender dies at `point` (in-process: its send throws there, as if the process died). */
  killAt(point: KillPoint): Promise<void>;
  /** A new sender process: the chain side as it starts, with nothing of the dead one but the database and the chain. */
  restart(): Promise<void>;
}

/** The network fee payer (EVM and Tron relayer gas/energy, Solana fee payer). */
export interface FeePayerControl {
  /** Leaves the fee payer unable to pay for a sweep. */
  drain(): Promise<void>;
  /** Gives the fee payer enough for every sweep of the suite. */
  fund(): Promise<void>;
}

/**
 * A family as the suite lists it. What decides skips is known before the node
 * starts: vitest decides them when it collects the tests.
 */
export interface HarnessSpec {
  /** Shown in the test titles. */
  readonly name: string;
  /** Cases this family cannot run, each with the reason the suite reports it skipped for. */
  readonly notApplicable: Partial<Record<ConformanceCase, string>>;
  /** The points its payout sender can be killed at (the one-sweep case runs once per point). */
  readonly killPoints: readonly KillPoint[];
  /** Starts the node and Ivory's chain side for it. */
  start(): Promise<DriverHarness>;
}

export interface DriverHarness {
  readonly family: NetworkFamily;
  readonly app: TestApp;
  /** The catalogue network and token the suite's invoices use. */
  readonly chainId: number;
  readonly token: string;
  /** What a payment address of this family looks like. */
  readonly addressPattern: RegExp;
  /** Whether a transfer is reported seen (`transfer.observed`) before it is confirmed. */
  readonly observesBeforeConfirming: boolean;
  /** Present when the family moves real tokens. */
  readonly onChain?: OnChain;
  readonly sender?: SenderControl;
  readonly feePayer?: FeePayerControl;

  newShop(): Promise<HarnessShop>;
  /** A transfer of `amount` of the harness's token to the invoice's address (sandbox: the simulate API). */
  pay(invoice: HarnessInvoice, amount: bigint): Promise<Payment>;
  /**
   * The same transfer seen again: the chain side scans its range again and
   * repeats its reports to the ledger (sandbox: the simulate request retried
   * with its Idempotency-Key). Runs the jobs.
   */
  seeAgain(payment: Payment): Promise<void>;
  /** Moves the chain to the confirmation depth of what is pending and runs every job until nothing is due. */
  advance(): Promise<void>;
  /**
   * Takes `payment` back, as a reorg (EVM), a rollback (Tron, Solana) or the
   * simulated reversal (sandbox) does, and lets the chain side see it.
   * `payment` is the latest payment the harness made.
   */
  reverse(payment: Payment): Promise<void>;
  /** After full payment: what closes the invoice (live: the sweep, to depth; sandbox: simulated invoice.closed). */
  closeInvoice(invoice: HarnessInvoice): Promise<void>;
  /** Puts back what a case may have left changed (sender killed, fee payer drained), so cases do not leak. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** LEDGER "Fees" with the suite catalogues' terms (50 bps, min 0.1, max 5 tokens), for a 6-decimal token. */
export function fee(amount: bigint): bigint {
  const raw = (amount * 50n) / 10_000n;
  return raw < 100_000n ? 100_000n : raw > 5_000_000n ? 5_000_000n : raw;
}

/** Whole tokens → base units of a 6-decimal token. */
export const usd = (whole: number): bigint => BigInt(Math.round(whole * 1_000_000));
