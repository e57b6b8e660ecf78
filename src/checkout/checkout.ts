import type { ListedNetwork } from '../catalogue/index.js';
import type { ChainFamily } from '../chains/index.js';
import type { Issuance, IssuanceGroup, IssuanceStatus } from '../issuances/index.js';
import { groupStatus, paymentUrl } from '../issuances/index.js';

/**
 * The public checkout view (SPEC "Checkout", "Checkout group"): pure builders
 * from issuance records to what GET /checkout/{public_id} answers and what the
 * hosted page renders. No I/O here.
 */

export interface Branding {
  name: string;
  logo_url?: string;
}

export type CheckoutCancelReason = 'expired' | 'merchant' | 'merchant_blocked';

/** The stored reason is null for the merchant's own cancel (SPEC: invoice.cancelled "without reason"). */
function cancelReasonOf(record: { readonly cancelledAt: Date | null; readonly cancelReason: 'expired' | 'merchant_blocked' | null }): CheckoutCancelReason | null {
  if (record.cancelledAt === null) return null;
  return record.cancelReason ?? 'merchant';
}

/** The fields SPEC gives both a Checkout and a Checkout group, with the same meaning. */
interface CheckoutCommon {
  public_id: string;
  shop_id: string;
  kind: 'invoice' | 'deposit';
  status: IssuanceStatus;
  cancelled_at: string | null;
  /**
   * Why `cancelled_at` is set (issue 12): `expired` by the expiry job,
   * `merchant` by the merchant's cancel, `merchant_blocked` by operator staff;
   * null while not cancelled. Lets a client (the hosted page) tell them apart.
   */
  cancel_reason: CheckoutCancelReason | null;
  disabled_at: string | null;
  /** SPEC types it "timestamp"; deposits never expire (SPEC "Deposits"), so theirs is null. */
  expires_at: string | null;
  description: string;
  return_url: string;
  branding: Branding;
  merchant_name: string;
  sandbox: boolean;
}

/** SPEC "Checkout" without `payment_url`: the shape of a group's option. */
export interface CheckoutOption extends CheckoutCommon {
  family: ChainFamily;
  chain_id: number;
  token: string;
  token_decimals: number;
  network: ListedNetwork;
  amount: string;
  address: string;
  tx_hash: string;
  received: string;
}

export interface Checkout extends CheckoutOption {
  payment_url: string;
}

export interface CheckoutGroup extends CheckoutCommon {
  group: true;
  /** The group's decimal token amount (SPEC), "0" for deposit groups (see `amountOf`). */
  amount: string;
  paid_public_id: string | null;
  payment_url: string;
  options: CheckoutOption[];
}

/** What the shop and merchant contribute to every checkout of the shop. */
export interface CheckoutOwner {
  readonly shopName: string;
  readonly brandingName: string | null;
  readonly brandingLogoAssetId: string | null;
  readonly merchantName: string;
}

export interface CheckoutUrls {
  /** `{pay_url}`: `payment_url` is this + `/` + public_id. */
  readonly payUrl: string;
  /** `{base_url}`: branding logos are served at `/assets/{id}` under it. */
  readonly baseUrl: string;
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

export function brandingOf(owner: CheckoutOwner, baseUrl: string): Branding {
  const name = owner.brandingName ?? owner.shopName;
  return owner.brandingLogoAssetId === null ? { name } : { name, logo_url: `${baseUrl}/assets/${owner.brandingLogoAssetId}` };
}

/**
 * SPEC types `amount` as a base-unit integer string on every Checkout, but a
 * deposit has no fixed amount: "0" keeps the type a client parses (never null)
 * and reads as "any amount", which `kind: deposit` already says.
 */
function amountOf(amount: bigint | null): string {
  return amount === null ? '0' : amount.toString();
}

/** SPEC lists these for a Checkout and a Checkout group alike; `status` is each one's own. */
function commonFields(
  record: Issuance | IssuanceGroup,
  extra: { readonly branding: Branding; readonly merchantName: string },
): Omit<CheckoutCommon, 'status'> {
  return {
    public_id: record.publicId,
    shop_id: record.shopId,
    kind: record.kind,
    cancelled_at: iso(record.cancelledAt),
    cancel_reason: cancelReasonOf(record),
    disabled_at: iso(record.disabledAt),
    expires_at: iso(record.expiresAt),
    description: record.description ?? '',
    return_url: record.returnUrl ?? '',
    branding: extra.branding,
    merchant_name: extra.merchantName,
    sandbox: record.sandbox,
  };
}

export function checkoutOption(
  issuance: Issuance,
  extra: { readonly txHash: string | null; readonly network: ListedNetwork; readonly branding: Branding; readonly merchantName: string },
): CheckoutOption {
  return {
    ...commonFields(issuance, extra),
    family: issuance.family,
    chain_id: issuance.chainId,
    token: issuance.token,
    token_decimals: issuance.tokenDecimals,
    network: extra.network,
    amount: amountOf(issuance.amount),
    // SPEC allows "empty or null" until allocated; always a string is simpler to consume.
    address: issuance.address ?? '',
    status: issuance.status,
    tx_hash: extra.txHash ?? '',
    received: issuance.received.toString(),
  };
}

export function checkoutView(option: CheckoutOption, payUrl: string): Checkout {
  return { ...option, payment_url: paymentUrl(payUrl, option.public_id) };
}

export function checkoutGroupView(
  group: IssuanceGroup,
  options: readonly Issuance[],
  optionViews: CheckoutOption[],
  extra: { readonly branding: Branding; readonly merchantName: string; readonly payUrl: string },
): CheckoutGroup {
  const paid = options.find((option) => option.id === group.paidIssuanceId);
  return {
    group: true,
    ...commonFields(group, extra),
    amount: group.amount ?? '0',
    status: groupStatus(group, options),
    paid_public_id: paid?.publicId ?? null,
    payment_url: paymentUrl(extra.payUrl, group.publicId),
    options: optionViews,
  };
}

/**
 * Which screen the hosted page shows (issue 12: every state its own screen).
 * LEDGER "Cancellation": a cancelled invoice is never shown as payable again,
 * even if funds arrive later; a paused deposit, a paid or settled invoice, an
 * invoice past `expires_at` (before the expiry worker got to it) and an
 * option of a group already paid through another option are closed too.
 * Why a checkout was cancelled comes from `cancel_reason`, never guessed.
 */
export type CheckoutPhase =
  | 'preparing'
  | 'awaiting'
  | 'partial'
  | 'funded'
  | 'settled'
  | 'cancelled'
  | 'expired'
  | 'paused'
  | 'elsewhere'
  | 'review';

/** Phases after which nothing on the page can change any more: the page stops polling. */
export const FINAL_PHASES: readonly CheckoutPhase[] = ['settled', 'cancelled', 'expired', 'elsewhere'];

export function checkoutPhase(
  view: {
    readonly kind: 'invoice' | 'deposit';
    readonly status: IssuanceStatus;
    readonly cancelled_at: string | null;
    readonly cancel_reason: CheckoutCancelReason | null;
    readonly disabled_at: string | null;
    readonly expires_at: string | null;
    /** Absent on a group view (it has no `received`). */
    readonly received?: string;
  },
  now: Date,
  paidElsewhere = false,
): CheckoutPhase {
  if (view.cancelled_at !== null) return view.cancel_reason === 'expired' ? 'expired' : 'cancelled';
  if (view.disabled_at !== null) return 'paused';
  if (view.status === 'reconciling') return 'review';
  if (view.kind === 'invoice') {
    if (paidElsewhere) return 'elsewhere';
    if (view.status === 'settled') return 'settled';
    if (view.status === 'funded') return 'funded';
    if (view.expires_at !== null && new Date(view.expires_at).getTime() <= now.getTime()) return 'expired';
  }
  if (view.status === 'registering') return 'preparing';
  return view.kind === 'invoice' && view.received !== undefined && view.received !== '0' ? 'partial' : 'awaiting';
}
