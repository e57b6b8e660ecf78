export { MAX_AMOUNT_DIGITS, formatDecimal, parseBaseUnits, parseDecimalAmount, pow10, wholeTokens } from './amount.js';
export { depositSplit, feeExceedsAmount, feeFor, payoutSplit, toTokenUnits, units18 } from './fees.js';
export type { FeeTerms, PayoutSplit, Units18 } from './fees.js';
