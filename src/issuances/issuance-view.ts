import type { Issuance, IssuanceGroup, IssuanceStatus } from './issuance.js';

/** SPEC "Issuance (authenticated view)", plus chain_id, token, family, public_id, shop_id, group_id, created_at. */
export interface IssuanceView {
  id: string;
  kind: 'invoice' | 'deposit';
  status: IssuanceStatus;
  amount: string | null;
  received: string;
  token_decimals: number;
  chain_id: number;
  token: string;
  family: string;
  expires_at: string | null;
  cancelled_at: string | null;
  disabled_at: string | null;
  payout_tx_hash: string | null;
  address: string | null;
  payment_url: string;
  external_id: string | null;
  public_id: string;
  shop_id: string;
  group_id: string | null;
  created_at: string;
}

/** SPEC "Group issuance" option. */
export interface GroupOptionView {
  id: string;
  public_id: string;
  chain_id: number;
  token: string;
  token_decimals: number;
  family: string;
  amount: string | null;
  address: string | null;
  status: IssuanceStatus;
}

/** SPEC "Group issuance", plus kind, amount (decimal), external_id, cancelled_at, disabled_at, created_at. */
export interface GroupView {
  id: string;
  group: true;
  kind: 'invoice' | 'deposit';
  shop_id: string;
  public_id: string;
  status: IssuanceStatus;
  amount: string | null;
  payment_url: string;
  expires_at: string | null;
  cancelled_at: string | null;
  disabled_at: string | null;
  paid_issuance_id: string | null;
  external_id: string | null;
  created_at: string;
  options: GroupOptionView[];
}

const iso = (value: Date | null) => (value === null ? null : value.toISOString());

/** `payment_url` is `{pay_url}/{public_id}`; clients use it as returned (SPEC "Checkout"). */
export function paymentUrl(payUrl: string, publicId: string): string {
  return `${payUrl}/${publicId}`;
}

export function issuanceView(issuance: Issuance, payoutTxHash: string | null, payUrl: string): IssuanceView {
  return {
    id: issuance.id,
    kind: issuance.kind,
    status: issuance.status,
    amount: issuance.amount === null ? null : issuance.amount.toString(),
    received: issuance.received.toString(),
    token_decimals: issuance.tokenDecimals,
    chain_id: issuance.chainId,
    token: issuance.token,
    family: issuance.family,
    expires_at: iso(issuance.expiresAt),
    cancelled_at: iso(issuance.cancelledAt),
    disabled_at: iso(issuance.disabledAt),
    payout_tx_hash: payoutTxHash,
    address: issuance.address,
    payment_url: paymentUrl(payUrl, issuance.publicId),
    external_id: issuance.externalId,
    public_id: issuance.publicId,
    shop_id: issuance.shopId,
    group_id: issuance.groupId,
    created_at: issuance.createdAt.toISOString(),
  };
}

/**
 * A group's status (SPEC "Groups"): an invoice group follows its paid option;
 * until then it is `registering` while any option waits for an address (Rule 4:
 * clients poll until every option has one), else `open`. A deposit group shows
 * `reconciling` if any option needs the operator.
 */
export function groupStatus(group: IssuanceGroup, options: readonly Issuance[]): IssuanceStatus {
  const paid = options.find((option) => option.id === group.paidIssuanceId);
  if (paid !== undefined) return paid.status;
  if (options.some((option) => option.status === 'registering')) return 'registering';
  if (options.some((option) => option.status === 'reconciling')) return 'reconciling';
  return 'open';
}

export function groupView(group: IssuanceGroup, options: readonly Issuance[], payUrl: string): GroupView {
  return {
    id: group.id,
    group: true,
    kind: group.kind,
    shop_id: group.shopId,
    public_id: group.publicId,
    status: groupStatus(group, options),
    amount: group.amount,
    payment_url: paymentUrl(payUrl, group.publicId),
    expires_at: iso(group.expiresAt),
    cancelled_at: iso(group.cancelledAt),
    disabled_at: iso(group.disabledAt),
    paid_issuance_id: group.paidIssuanceId,
    external_id: group.externalId,
    created_at: group.createdAt.toISOString(),
    options: options.map((option) => ({
      id: option.id,
      public_id: option.publicId,
      chain_id: option.chainId,
      token: option.token,
      token_decimals: option.tokenDecimals,
      family: option.family,
      amount: option.amount === null ? null : option.amount.toString(),
      address: option.address,
      status: option.status,
    })),
  };
}
