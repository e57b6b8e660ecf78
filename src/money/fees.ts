import { pow10 } from './amount.js';

/**
 * One fee setting of a network (SPEC "Shop terms"): `bps` in hundredths of a
 * percent, `minimum` and `maximum` in 18-decimal units whatever the token's
 * decimals. The catalogue guarantees 0 ≤ bps ≤ 10,000 and minimum ≤ maximum.
 */
export interface FeeTerms {
  readonly bps: number;
  readonly minimum: Units18;
  readonly maximum: Units18;
}

declare const units18Brand: unique symbol;

/**
 * A value in 18-decimal units (fee bounds), typed apart from token base units
 * so the two cannot meet unconverted: a bare `bigint` is not a `Units18`, and
 * `toTokenUnits` is the one way across. Made only where such a value enters
 * (the catalogue file, a stored row), with `units18`.
 */
export type Units18 = bigint & { readonly [units18Brand]: true };

export function units18(value: bigint): Units18 {
  return value as Units18;
}

/** Where the money at a payment address goes when it is swept. */
export interface PayoutSplit {
  readonly fee: bigint;
  readonly toRecipient: bigint;
  readonly toOperator: bigint;
}

const FEE_TERMS_DECIMALS = 18;
const BPS_PER_WHOLE = 10_000n;

/**
 * An 18-decimal value in the token's base units, rounded down (LEDGER "Fees": the
 * merchant never pays more than the terms say). Tokens with more than 18 decimals
 * multiply instead, exactly.
 */
export function toTokenUnits(value18: Units18, decimals: number): bigint {
  if (decimals <= FEE_TERMS_DECIMALS) return value18 / pow10(FEE_TERMS_DECIMALS - decimals);
  return value18 * pow10(decimals - FEE_TERMS_DECIMALS);
}

/**
 * fee(x) = clamp(floor(x × bps / 10,000), minimum, maximum), bounds converted to
 * the token's base units. Should minimum exceed maximum, maximum wins: the
 * merchant's favour, as everywhere in the fee rules.
 */
export function feeFor(amount: bigint, terms: FeeTerms, decimals: number): bigint {
  const proportional = (amount * BigInt(terms.bps)) / BPS_PER_WHOLE;
  const minimum = toTokenUnits(terms.minimum, decimals);
  const maximum = toTokenUnits(terms.maximum, decimals);
  const atLeastMinimum = proportional < minimum ? minimum : proportional;
  return atLeastMinimum > maximum ? maximum : atLeastMinimum;
}

/** The creation check of LEDGER "Fees": `fee(A) >= A` is `fee_exceeds_amount`. */
export function feeExceedsAmount(amount: bigint, terms: FeeTerms, decimals: number): boolean {
  return feeFor(amount, terms, decimals) >= amount;
}

/**
 * The payout of a funded invoice (LEDGER "Invoices"): the recipient gets
 * `A − fee(A)`; the operator gets `fee(A)` plus everything received above `A`.
 * `toRecipient + toOperator === received` always.
 *
 * Calling it with `received < amount` is a bug (the invoice is not funded) and
 * throws. Creation refuses `fee(A) >= A`, but terms read later could differ, so
 * the fee is capped at `A` here rather than paying the recipient a negative sum.
 */
export function payoutSplit(amount: bigint, received: bigint, terms: FeeTerms, decimals: number): PayoutSplit {
  if (received < amount) {
    throw new RangeError(`payoutSplit: received ${received} is below the invoice amount ${amount}`);
  }
  const fullFee = feeFor(amount, terms, decimals);
  const fee = fullFee > amount ? amount : fullFee;
  return { fee, toRecipient: amount - fee, toOperator: fee + (received - amount) };
}

/**
 * The sweep of a deposit's unswept balance `B` (LEDGER "Deposits"): recipient
 * `B − fee_deposit(B)`, operator `fee_deposit(B)`.
 *
 * When the fee reaches the balance (a tiny balance under a minimum fee) the whole
 * balance goes to the operator and the recipient gets 0; `fee` then reports the
 * balance, the fee actually taken, not the larger fee the terms computed.
 */
export function depositSplit(balance: bigint, terms: FeeTerms, decimals: number): PayoutSplit {
  const fullFee = feeFor(balance, terms, decimals);
  const fee = fullFee >= balance ? balance : fullFee;
  return { fee, toRecipient: balance - fee, toOperator: fee };
}
