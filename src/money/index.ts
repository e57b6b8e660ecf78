export { MAX_AMOUNT_DIGITS, formatDecimal, parseBaseUnits, parseDecimalAmount, pow10, wholeTokens } from './amount.js';
export { depositSplit, feeExceedsAmount, feeFor, payoutSplit, toTokenUnits } from './fees.js';
export type { FeeTerms, PayoutSplit } from './fees.js';
