import type { Role } from '../platform/database/schema.js';
import type { MerchantId, ShopId } from '../platform/ids.js';
import type { MerchantIssuanceTerms } from './merchant-controls.repository.js';
import type { ShopRow } from './merchants.repository.js';

// What `requireShopAccess` grants, apart from it so that the issuance access cache,
// which it fills, can name it without an import cycle.

export interface ShopAccess {
  readonly shop: ShopRow;
  /** The shop's id and its merchant's, typed (the row's columns are text). */
  readonly shopId: ShopId;
  readonly merchantId: MerchantId;
  /** The session user's role on this shop; null for an API key. */
  readonly role: Role | null;
}

export interface ShopIssuanceAccess extends ShopAccess {
  /** The merchant's fee terms and payout setup, which price and route the new issuance. */
  readonly terms: MerchantIssuanceTerms;
}
