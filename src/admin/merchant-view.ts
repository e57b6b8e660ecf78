import type { NetworkFamily } from '../catalogue/index.js';
import { CHAIN_FAMILIES } from '../chains/index.js';
import { activeInvoiceLimit, depositAddressLimit } from '../limits/index.js';
import { teamLimit, type MerchantControlsRow, type MerchantFeeTermsRow } from '../merchants/index.js';


export interface FeeTermsView {
  readonly chain_id: number;
  readonly kind: 'invoice' | 'deposit';
  readonly bps: number;
  /** Integer strings in 18-decimal units, like the catalogue's terms. */
  readonly minimum: string;
  readonly maximum: string;
  readonly updated_at: string;
}

/** What GET /admin/v1/merchants/{id} (and every merchant action) answers. */
export interface AdminMerchantView {
  readonly id: string;
  readonly name: string;
  readonly created_at: string;
  readonly blocked: boolean;
  readonly blocked_at: string | null;
  readonly blocked_reason: string | null;
  /** The limits in force: the override where one is set, else SPEC "Limits". */
  readonly limits: {
    readonly active_invoices: number;
    readonly deposit_addresses: Readonly<Record<NetworkFamily, number>>;
    readonly team: number;
  };
  /** What operators set; null: the default applies. */
  readonly limit_overrides: {
    readonly active_invoices: number | null;
    readonly deposit_addresses: Readonly<Record<NetworkFamily, number | null>>;
    readonly team: number | null;
  };
  /** The merchant's own fee terms; a network and kind not listed use the catalogue's. */
  readonly fee_overrides: FeeTermsView[];
}

export function adminMerchantView(merchant: MerchantControlsRow, feeTerms: readonly MerchantFeeTermsRow[]): AdminMerchantView {
  const depositOverride = (family: NetworkFamily): number | null => {
    const value = merchant.depositAddressLimits?.[family];
    return typeof value === 'number' ? value : null;
  };
  return {
    id: merchant.id,
    name: merchant.name,
    created_at: merchant.createdAt.toISOString(),
    blocked: merchant.blockedAt !== null,
    blocked_at: merchant.blockedAt?.toISOString() ?? null,
    blocked_reason: merchant.blockedReason,
    limits: {
      active_invoices: activeInvoiceLimit(merchant.activeInvoiceLimit),
      deposit_addresses: perFamily((family) => depositAddressLimit(merchant.depositAddressLimits, family)),
      team: teamLimit(merchant.teamLimit),
    },
    limit_overrides: {
      active_invoices: merchant.activeInvoiceLimit,
      deposit_addresses: perFamily(depositOverride),
      team: merchant.teamLimit,
    },
    fee_overrides: feeTerms.map((terms) => ({
      chain_id: terms.chainId,
      kind: terms.kind,
      bps: terms.bps,
      minimum: terms.minimum.toString(),
      maximum: terms.maximum.toString(),
      updated_at: terms.updatedAt.toISOString(),
    })),
  };
}

function perFamily<T>(value: (family: NetworkFamily) => T): Record<NetworkFamily, T> {
  return Object.fromEntries(CHAIN_FAMILIES.map((family) => [family, value(family)])) as Record<NetworkFamily, T>;
}
