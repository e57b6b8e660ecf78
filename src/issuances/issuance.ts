import { asId, type EventId, type GroupId, type IssuanceId, type MerchantId, type PayoutId, type ShopId, type TransferId } from '../platform/ids.js';
import type { FeeTerms, NetworkFamily } from '../catalogue/index.js';
import type {
  CancelReason,
  IssuanceEntryColumns,
  IssuanceKind,
  IssuanceStatus,
  PayoutTarget,
  TransferDisposition,
  TransferStatus,
} from '../platform/database/schema.js';

export type { CancelReason, IssuanceKind, IssuanceStatus, TransferDisposition, TransferStatus };

/** What an issuance and a group both carry, with the same meaning (SPEC "Checkout", "Checkout group"). */
interface IssuanceCommon<IdType extends IssuanceId | GroupId> {
  readonly id: IdType;
  readonly publicId: string;
  readonly shopId: ShopId;
  readonly merchantId: MerchantId;
  readonly kind: IssuanceKind;
  readonly sandbox: boolean;
  readonly externalId: string | null;
  readonly description: string | null;
  readonly returnUrl: string | null;
  readonly expiresAt: Date | null;
  readonly cancelledAt: Date | null;
  readonly cancelReason: CancelReason | null;
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

/**
 * One payable option (an invoice, a deposit, or one option of a group), with
 * money as bigint base units. What the repository reads and writes.
 */
export interface Issuance extends IssuanceCommon<IssuanceId> {
  readonly groupId: GroupId | null;
  readonly groupPosition: number | null;
  readonly chainId: number;
  readonly family: NetworkFamily;
  readonly token: string;
  readonly tokenDecimals: number;
  /** Invoice amount A; null for deposits. */
  readonly amount: bigint | null;
  /** SPEC `received`: every confirmed incoming transfer, late and duplicate included. */
  readonly received: bigint;
  /** Invoices: confirmed funds counted toward A and the payout. */
  readonly credited: bigint;
  /** Deposits: the unswept balance B. */
  readonly unswept: bigint;
  readonly status: IssuanceStatus;
  readonly address: string | null;
  readonly recipient: string | null;
  readonly delegate: string | null;
  readonly payoutTarget: PayoutTarget;
  readonly feeTerms: FeeTerms;
  /** Deposits: base units at which a sweep is scheduled; null for invoices. */
  readonly sweepThreshold: bigint | null;
  readonly fundedAt: Date | null;
  readonly settledAt: Date | null;
}

/** A multi-option issuance: one row, options in `issuances` with `groupId`. */
export interface IssuanceGroup extends IssuanceCommon<GroupId> {
  /** Decimal token amount ("10.5"); null for deposit groups. */
  readonly amount: string | null;
  readonly paidIssuanceId: IssuanceId | null;
}

/** What a row of the ledger (a transfer, a payout) carries of its issuance: whose it is and where it is paid. */
export interface IssuanceEntry {
  readonly issuanceId: IssuanceId;
  readonly shopId: ShopId;
  readonly sandbox: boolean;
  readonly chainId: number;
  readonly token: string;
}

export function issuanceEntry(row: IssuanceEntryColumns): IssuanceEntry {
  return { issuanceId: asId(row.issuance_id), shopId: asId(row.shop_id), sandbox: row.sandbox, chainId: row.chain_id, token: row.token };
}

/** One incoming transfer at an issuance's address (the ledger). */
export interface Transfer extends IssuanceEntry {
  readonly id: TransferId;
  readonly txHash: string;
  readonly logIndex: number;
  readonly fromAddress: string | null;
  readonly toAddress: string | null;
  readonly amount: bigint;
  readonly status: TransferStatus;
  readonly disposition: TransferDisposition | null;
  readonly payoutId: PayoutId | null;
  readonly confirmedEventId: EventId | null;
  readonly observedAt: Date | null;
  readonly confirmedAt: Date | null;
  readonly revertedAt: Date | null;
  readonly createdAt: Date;
}
