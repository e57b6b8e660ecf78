import type { Principal } from '../platform/http/principal.js';
import type { ShopIssuanceAccess } from './shop-access.js';

/** A shop's issuance access as an API key of that shop was last granted it, with what proves it current. */
export interface KeptIssuanceAccess {
  readonly access: ShopIssuanceAccess;
  /** The merchant's active-invoice limit override when read (null: the default). */
  readonly activeInvoiceLimit: number | null;
  /** The view stamps of the shop and merchant rows it was read from (fee terms and service wallets move the merchant's). */
  readonly stamps: { readonly shop: string; readonly merchant: string };
}

/**
 * The issuance terms of shops (shop row, merchant standing, fee terms, payout
 * setup, limit override) as this process last read them for an API key, so
 * that invoice creation can skip its access read and run in one statement
 * (decision 0019). Never trusted on its own: that statement checks the
 * stamps against the stored rows (`lockCurrentIssuingShop`) and writes
 * nothing when either moved; the request then takes the general path, which
 * reads again.
 * Only granted access is kept (not blocked, not archived), and only handed to
 * an API key of that very shop. Bounded: the oldest entry goes first.
 */
export class IssuanceAccessCache {
  readonly #entries = new Map<string, KeptIssuanceAccess>();

  constructor(readonly capacity = 10_000) {}

  keep(kept: KeptIssuanceAccess): void {
    const shopId = kept.access.shopId;
    this.#entries.delete(shopId);
    this.#entries.set(shopId, kept);
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
  }

  /** What `requireShopAccessForIssuance` would grant this principal, as last read; undefined sends the request the general way. */
  accessFor(principal: Principal, shopId: string): KeptIssuanceAccess | undefined {
    if (principal.kind !== 'api_key' || principal.shopId !== shopId) return undefined;
    const kept = this.#entries.get(shopId);
    return kept !== undefined && kept.access.merchantId === principal.merchantId ? kept : undefined;
  }

  forget(shopId: string): void {
    this.#entries.delete(shopId);
  }
}
