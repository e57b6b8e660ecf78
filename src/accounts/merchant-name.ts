export const MAX_MERCHANT_NAME_LENGTH = 100;

/**
 * A merchant name: trimmed, 1 to 100 characters (code points, so that an
 * emoji counts once). SPEC leaves the length open ("Limits": not shown).
 * Undefined when out of range.
 */
export function parseMerchantName(raw: string): string | undefined {
  const name = raw.trim();
  const length = [...name].length;
  return length >= 1 && length <= MAX_MERCHANT_NAME_LENGTH ? name : undefined;
}
