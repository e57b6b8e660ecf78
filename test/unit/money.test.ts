import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  depositSplit,
  feeExceedsAmount,
  feeFor,
  formatDecimal,
  parseBaseUnits,
  parseDecimalAmount,
  payoutSplit,
  pow10,
  toTokenUnits,
  units18,
  wholeTokens,
  type FeeTerms,
} from '../../src/money/index.js';

const USDC_DECIMALS = 6;
const usdc = (text: string): bigint => {
  const amount = parseDecimalAmount(text, USDC_DECIMALS);
  if (amount === undefined) throw new Error(`bad test amount ${text}`);
  return amount;
};
const feeTerms = (bps: number, minimum: string, maximum: string): FeeTerms => ({
  bps,
  minimum: units18(BigInt(minimum)),
  maximum: units18(BigInt(maximum)),
});
// LEDGER "Fees": 50 bps, minimum 0.1, maximum 5, in 18-decimal units.
const standardTerms = feeTerms(50, '100000000000000000', '5000000000000000000');

describe('LEDGER "Fees" table', () => {
  it('fee is bps of the amount between the bounds (100 USDC → 0.5)', () => {
    expect(feeFor(100_000_000n, standardTerms, USDC_DECIMALS)).toBe(500_000n);
    expect(payoutSplit(100_000_000n, 100_000_000n, standardTerms, USDC_DECIMALS).toRecipient).toBe(99_500_000n);
  });

  it('the minimum applies when bps gives less (10 USDC → 0.1 over 0.05)', () => {
    expect(feeFor(10_000_000n, standardTerms, USDC_DECIMALS)).toBe(100_000n);
    expect(payoutSplit(10_000_000n, 10_000_000n, standardTerms, USDC_DECIMALS).toRecipient).toBe(9_900_000n);
  });

  it('the maximum applies when bps gives more (2,000 USDC → 5 over 10)', () => {
    expect(feeFor(2_000_000_000n, standardTerms, USDC_DECIMALS)).toBe(5_000_000n);
    expect(payoutSplit(2_000_000_000n, 2_000_000_000n, standardTerms, USDC_DECIMALS).toRecipient).toBe(1_995_000_000n);
  });

  it('fee(A) >= A is fee_exceeds_amount (0.05 USDC under a 0.1 minimum)', () => {
    expect(feeFor(50_000n, standardTerms, USDC_DECIMALS)).toBe(100_000n);
    expect(feeExceedsAmount(50_000n, standardTerms, USDC_DECIMALS)).toBe(true);
    expect(feeExceedsAmount(100_000n, standardTerms, USDC_DECIMALS)).toBe(true); // equal is refused too
    expect(feeExceedsAmount(100_001n, standardTerms, USDC_DECIMALS)).toBe(false);
  });

  it('the proportional fee rounds down in the merchant’s favour (33 bps of 1.000001 → 3,300)', () => {
    const terms = feeTerms(33, '0', '1000000000000000000000000000000');
    expect(feeFor(1_000_001n, terms, USDC_DECIMALS)).toBe(3_300n);
    expect(payoutSplit(1_000_001n, 1_000_001n, terms, USDC_DECIMALS).toRecipient).toBe(996_701n);
  });

  it('18-decimal bounds convert to token units rounding down', () => {
    expect(toTokenUnits(units18(100_000_000_000_000_000n), 6)).toBe(100_000n);
    expect(toTokenUnits(units18(100_000_000_000_000_000n), 18)).toBe(100_000_000_000_000_000n);
    expect(toTokenUnits(units18(100_000_000_000_000_000n), 0)).toBe(0n);
    expect(toTokenUnits(units18(1_999_999_999_999n), 6)).toBe(1n);
    expect(toTokenUnits(units18(3n), 20)).toBe(300n);
  });

  it('an 18-decimal token (BNB Chain USDT) uses the bounds unconverted', () => {
    expect(feeFor(wholeTokens(10, 18), standardTerms, 18)).toBe(100_000_000_000_000_000n);
    expect(feeFor(wholeTokens(100, 18), standardTerms, 18)).toBe(500_000_000_000_000_000n);
  });

  it('when minimum exceeds maximum the maximum wins', () => {
    expect(feeFor(100_000_000n, feeTerms(50, '5000000000000000000', '1000000000000000000'), USDC_DECIMALS)).toBe(1_000_000n);
  });
});

describe('LEDGER "Invoices" table, payout columns (A = 100 USDC)', () => {
  const amount = usdc('100');

  it('partial payments add up: 40 then 60 funds it; recipient 99.5, operator 0.5', () => {
    const split = payoutSplit(amount, usdc('40') + usdc('60'), standardTerms, USDC_DECIMALS);
    expect(split).toEqual({ fee: usdc('0.5'), toRecipient: usdc('99.5'), toOperator: usdc('0.5') });
  });

  it('40 alone stays open: no payout exists while R < A', () => {
    expect(() => payoutSplit(amount, usdc('40'), standardTerms, USDC_DECIMALS)).toThrow(RangeError);
  });

  it('overpayment goes to the operator: 130 gives recipient 99.5, operator 30.5', () => {
    const split = payoutSplit(amount, usdc('130'), standardTerms, USDC_DECIMALS);
    expect(split).toEqual({ fee: usdc('0.5'), toRecipient: usdc('99.5'), toOperator: usdc('30.5') });
  });

  it('a late transfer after settled is not in the payout: 100 then 5 gives 99.5 / 0.5', () => {
    // The sweep happened at R = 100; the 5 arrives after settlement and is never paid out.
    const split = payoutSplit(amount, usdc('100'), standardTerms, USDC_DECIMALS);
    expect(split).toEqual({ fee: usdc('0.5'), toRecipient: usdc('99.5'), toOperator: usdc('0.5') });
  });

  it('recipient and operator shares always add up to what was received', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.bigInt({ min: 0n, max: 10n ** 30n }), (invoiceAmount, extra) => {
        const split = payoutSplit(invoiceAmount, invoiceAmount + extra, standardTerms, USDC_DECIMALS);
        return split.toRecipient + split.toOperator === invoiceAmount + extra && split.toRecipient >= 0n;
      }),
    );
  });
});

describe('LEDGER "Deposits": sweep split', () => {
  it('recipient gets B − fee_deposit(B), operator fee_deposit(B)', () => {
    expect(depositSplit(usdc('100'), standardTerms, USDC_DECIMALS)).toEqual({
      fee: usdc('0.5'),
      toRecipient: usdc('99.5'),
      toOperator: usdc('0.5'),
    });
  });

  it('a balance at or under the fee goes wholly to the operator', () => {
    expect(depositSplit(usdc('0.05'), standardTerms, USDC_DECIMALS)).toEqual({
      fee: usdc('0.05'),
      toRecipient: 0n,
      toOperator: usdc('0.05'),
    });
    expect(depositSplit(usdc('0.1'), standardTerms, USDC_DECIMALS)).toEqual({
      fee: usdc('0.1'),
      toRecipient: 0n,
      toOperator: usdc('0.1'),
    });
  });
});

describe('parseBaseUnits', () => {
  it('accepts plain digit strings', () => {
    expect(parseBaseUnits('0')).toBe(0n);
    expect(parseBaseUnits('10500000')).toBe(10_500_000n);
    expect(parseBaseUnits('9'.repeat(78))).toBe(10n ** 78n - 1n);
  });

  it.each(['', '01', '00', '-1', '+1', ' 1', '1 ', '1.0', '1e5', '0x10', '１', '1_000'])('refuses %j', (text) => {
    expect(parseBaseUnits(text)).toBeUndefined();
  });

  it('refuses 79 digits (numeric(78,0))', () => {
    expect(parseBaseUnits('1' + '0'.repeat(78))).toBeUndefined();
  });
});

describe('parseDecimalAmount', () => {
  it('converts decimal token amounts to base units', () => {
    expect(parseDecimalAmount('10.5', 6)).toBe(10_500_000n);
    expect(parseDecimalAmount('10', 6)).toBe(10_000_000n);
    expect(parseDecimalAmount('0.000001', 6)).toBe(1n);
    expect(parseDecimalAmount('0.5', 6)).toBe(500_000n);
    expect(parseDecimalAmount('010', 6)).toBe(10_000_000n);
    expect(parseDecimalAmount('0', 6)).toBe(0n);
  });

  it('handles 18 and 0 decimals', () => {
    expect(parseDecimalAmount('1.000000000000000001', 18)).toBe(1_000_000_000_000_000_001n);
    expect(parseDecimalAmount('2.5', 18)).toBe(2_500_000_000_000_000_000n);
    expect(parseDecimalAmount('42', 0)).toBe(42n);
    expect(parseDecimalAmount('42.0', 0)).toBe(42n);
    expect(parseDecimalAmount('42.5', 0)).toBeUndefined();
  });

  it('LEDGER "Groups": more decimals than the token has are refused unless they are zeros', () => {
    expect(parseDecimalAmount('1.0000001', 6)).toBeUndefined();
    expect(parseDecimalAmount('1.0000010', 6)).toBe(1_000_001n);
    expect(parseDecimalAmount('1.500000000', 6)).toBe(1_500_000n);
  });

  it.each(['1.0e5', '1e5', '-1', '+1', ' 1', '1 ', '1.', '.5', '', '.', '1,5', '1.2.3', 'NaN', 'Infinity', '٣'])('refuses %j', (text) => {
    expect(parseDecimalAmount(text, 6)).toBeUndefined();
  });

  it('refuses a result longer than 78 digits', () => {
    expect(parseDecimalAmount('9'.repeat(72), 6)).toBe(BigInt('9'.repeat(72)) * 1_000_000n);
    expect(parseDecimalAmount('1' + '0'.repeat(72), 6)).toBeUndefined();
  });

  it('throws on a decimals argument that is not a non-negative integer (a caller bug)', () => {
    expect(() => parseDecimalAmount('1', -1)).toThrow(RangeError);
    expect(() => parseDecimalAmount('1', 1.5)).toThrow(RangeError);
  });
});

describe('formatDecimal', () => {
  it('gives the shortest decimal string', () => {
    expect(formatDecimal(10_500_000n, 6)).toBe('10.5');
    expect(formatDecimal(10_000_000n, 6)).toBe('10');
    expect(formatDecimal(1n, 6)).toBe('0.000001');
    expect(formatDecimal(0n, 6)).toBe('0');
    expect(formatDecimal(1_000_000_000_000_000_001n, 18)).toBe('1.000000000000000001');
    expect(formatDecimal(42n, 0)).toBe('42');
  });

  it('keeps the sign of negative amounts', () => {
    expect(formatDecimal(-10_500_000n, 6)).toBe('-10.5');
    expect(formatDecimal(-1n, 6)).toBe('-0.000001');
    expect(formatDecimal(-42n, 0)).toBe('-42');
  });

  it('round-trips through parseDecimalAmount for any amount and 0..18 decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 78n - 1n }), fc.integer({ min: 0, max: 18 }), (amount, decimals) => {
        return parseDecimalAmount(formatDecimal(amount, decimals), decimals) === amount;
      }),
    );
  });
});

describe('wholeTokens and pow10', () => {
  it('multiplies by 10^decimals', () => {
    expect(wholeTokens(5, 6)).toBe(5_000_000n);
    expect(wholeTokens(1_000_000n, 18)).toBe(10n ** 24n);
    expect(wholeTokens(3, 0)).toBe(3n);
    expect(pow10(0)).toBe(1n);
    expect(pow10(36)).toBe(10n ** 36n);
  });

  it('throws on non-integer input (a caller bug)', () => {
    expect(() => wholeTokens(1.5, 6)).toThrow(RangeError);
    expect(() => pow10(-1)).toThrow(RangeError);
  });
});
