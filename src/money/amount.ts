/**
 * Money inside Ivory is a `bigint` of token base units (1 USDC = 1_000_000 with 6
 * decimals). Decimal strings exist only at the edges (DTOs, pages, the network
 * catalogue) and pass through the converters in this file, nowhere else.
 *
 * Parsers return `undefined` for input they refuse: bad input is an expected
 * outcome at an edge. A bad `decimals` argument is a bug in the caller and throws.
 */

/** `numeric(78,0)` in SQL: no amount Ivory stores may have more digits. */
export const MAX_AMOUNT_DIGITS = 78;

const BASE_UNITS_PATTERN = /^(0|[1-9][0-9]*)$/;
const DECIMAL_PATTERN = /^([0-9]+)(?:\.([0-9]+))?$/;

/** 10^exponent. Throws RangeError unless exponent is a non-negative integer. */
export function pow10(exponent: number): bigint {
  if (!Number.isSafeInteger(exponent) || exponent < 0) {
    throw new RangeError(`pow10: exponent must be a non-negative integer, got ${exponent}`);
  }
  return 10n ** BigInt(exponent);
}

/**
 * A base-unit integer string ("10500000") → bigint. Only ASCII digits, no sign,
 * no leading zeros except "0" itself, at most 78 digits; anything else undefined.
 */
export function parseBaseUnits(text: string): bigint | undefined {
  if (text.length > MAX_AMOUNT_DIGITS || !BASE_UNITS_PATTERN.test(text)) return undefined;
  return BigInt(text);
}

/**
 * A decimal token amount ("10.5") → base units (10_500_000 for 6 decimals).
 *
 * Accepts `digits` or `digits.digits` only: no sign, exponent, whitespace, or bare
 * leading/trailing point. Leading zeros in the integer part are normalised away.
 * Fractional digits beyond `decimals` are accepted only when they are all zeros
 * ("1.50" at 1 decimal); a non-zero digit beyond the token's precision is refused
 * (LEDGER "Groups"), as is a result longer than 78 digits.
 */
export function parseDecimalAmount(text: string, decimals: number): bigint | undefined {
  const scale = pow10(decimals);
  const match = DECIMAL_PATTERN.exec(text);
  if (match === null) return undefined;
  const integerPart = match[1] ?? '';
  const fractionPart = match[2] ?? '';
  const kept = fractionPart.slice(0, decimals);
  const dropped = fractionPart.slice(decimals);
  if (/[1-9]/.test(dropped)) return undefined;
  const amount = BigInt(integerPart) * scale + (kept === '' ? 0n : BigInt(kept.padEnd(decimals, '0')));
  if (amount.toString().length > MAX_AMOUNT_DIGITS) return undefined;
  return amount;
}

/**
 * Base units → the shortest decimal string: (10_500_000, 6) → "10.5",
 * (10_000_000, 6) → "10", (1, 6) → "0.000001". Negative amounts get a leading "-".
 */
export function formatDecimal(amount: bigint, decimals: number): string {
  const scale = pow10(decimals);
  const sign = amount < 0n ? '-' : '';
  const magnitude = amount < 0n ? -amount : amount;
  const integerPart = (magnitude / scale).toString();
  const fraction = decimals === 0 ? '' : (magnitude % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return fraction === '' ? `${sign}${integerPart}` : `${sign}${integerPart}.${fraction}`;
}

/** `count` whole tokens in base units: count × 10^decimals. A number must be a safe integer. */
export function wholeTokens(count: bigint | number, decimals: number): bigint {
  if (typeof count === 'number' && !Number.isSafeInteger(count)) {
    throw new RangeError(`wholeTokens: count must be an integer, got ${count}`);
  }
  return BigInt(count) * pow10(decimals);
}
