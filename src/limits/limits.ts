import type { NetworkFamily } from '../catalogue/index.js';
import { wholeTokens } from '../money/index.js';
import { fieldError } from '../platform/errors.js';

/** SPEC "Limits", in whole tokens: one invoice, and one sandbox invoice or simulated transfer. */
export const INVOICE_AMOUNT_LIMIT_TOKENS = 1_000_000;
export const SANDBOX_AMOUNT_LIMIT_TOKENS = 10_000;

/** An invoice amount in base units against both caps, in SPEC's order: invoice_amount_limit, then sandbox_amount_limit. */
export function checkInvoiceAmountLimits(amount: bigint, decimals: number, sandbox: boolean): void {
  if (amount > wholeTokens(INVOICE_AMOUNT_LIMIT_TOKENS, decimals)) {
    throw fieldError('invoice_amount_limit', 'amount', `must be at most ${INVOICE_AMOUNT_LIMIT_TOKENS} whole tokens per invoice`);
  }
  if (sandbox && amount > wholeTokens(SANDBOX_AMOUNT_LIMIT_TOKENS, decimals)) {
    throw fieldError('sandbox_amount_limit', 'amount', `must be at most ${SANDBOX_AMOUNT_LIMIT_TOKENS} whole tokens on a sandbox shop`);
  }
}

/** SPEC "Limits": active invoices per merchant (sandbox and live counted apart). */
export const DEFAULT_ACTIVE_INVOICE_LIMIT = 2_000;

/** SPEC "Limits": active deposit addresses per merchant per family. */
export const DEFAULT_DEPOSIT_ADDRESS_LIMITS: Readonly<Record<NetworkFamily, number>> = { evm: 10_000, tron: 10_000, solana: 10 };

/** The merchant's limit, or the default when operators set none (merchants.active_invoice_limit). */
export function activeInvoiceLimit(override: number | null): number {
  return override ?? DEFAULT_ACTIVE_INVOICE_LIMIT;
}

/** Per family, from merchants.deposit_address_limits ({"evm": n, …}) or the default. */
export function depositAddressLimit(overrides: Readonly<Record<string, number>> | null, family: NetworkFamily): number {
  const value = overrides?.[family];
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : DEFAULT_DEPOSIT_ADDRESS_LIMITS[family];
}

/** How many new deposit addresses each family needs for these options. */
export function addressesByFamily(options: readonly { readonly family: NetworkFamily }[]): Map<NetworkFamily, number> {
  const counts = new Map<NetworkFamily, number>();
  for (const option of options) counts.set(option.family, (counts.get(option.family) ?? 0) + 1);
  return counts;
}
