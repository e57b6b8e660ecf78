import { formatDecimal, parseBaseUnits, parseDecimalAmount } from '../money/index.js';
import { ToolFailure } from './tool.js';

/** A decimal token amount from a tool's arguments → base units of the token, for the API. */
export function baseUnitsOf(amount: string, decimals: number, symbol: string): string {
  const units = parseDecimalAmount(amount.trim(), decimals);
  if (units === undefined || units === 0n) {
    throw new ToolFailure('invalid_amount', `"${amount}" is not a positive decimal amount of ${symbol} (at most ${decimals} decimals), such as "10" or "10.5".`);
  }
  return units.toString();
}

/** Base units from the API → a decimal token amount for the model; null stays null (a deposit has no amount). */
export function decimalOf(baseUnits: string | null | undefined, decimals: number): string | null {
  if (baseUnits === null || baseUnits === undefined) return null;
  const units = parseBaseUnits(baseUnits);
  return units === undefined ? baseUnits : formatDecimal(units, decimals);
}
