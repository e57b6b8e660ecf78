import type { Clock } from '../platform/clock.js';
import { newId, sha256Hex } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { fieldError } from '../platform/errors.js';
import { normaliseImage } from '../platform/image.js';
import { findShopAssetBySha256, insertBrandingAsset, updateShop, type ShopRow } from './merchants.repository.js';
import type { ShopAccess } from './shop-access.js';
import { parseName } from './shop.js';

/** A stored logo fits in this square (aspect ratio kept): sharp on a hosted page, small enough to serve from the database. */
export const LOGO_OUTPUT_SIDE = 512;

/**
 * PATCH /shops/{id}/branding. `name`: the displayed name (null: the shop's own
 * name again). `logo`: standard base64 of a PNG or JPEG (null: no logo). A
 * field left out stays; a body with neither is `invalid_request`.
 */
export interface BrandingInput {
  readonly name?: string | null;
  readonly logo?: string | null;
}

/** What the hosted checkout shows (SPEC "Checkout" branding: name, and our logo_url). */
export interface BrandingView {
  readonly shop_id: string;
  readonly name: string;
  readonly logo_url: string | null;
}

/**
 * SPEC "Shops" PATCH /shops/{id}/branding (owner): changes the displayed name
 * and logo only, never the payout recipient — it writes the branding columns
 * and nothing else. The logo is decoded and re-encoded by sharp
 * (platform/image.ts: metadata stripped, at most LOGO_OUTPUT_SIDE px a side,
 * PNG) before anything is written, so a refused image changes nothing. A new
 * logo is a new asset row (assets are immutable: GET /assets/{id} is cached
 * for a year); the same bytes again reuse the shop's existing row.
 */
export async function setShopBranding(trx: Tx, clock: Clock, access: ShopAccess, input: BrandingInput, baseUrl: string): Promise<BrandingView> {
  if (input.name === undefined && input.logo === undefined) throw fieldError('invalid_request', 'body', 'must contain name or logo');
  const name = input.name === undefined || input.name === null ? input.name : parseName(input.name);
  const now = clock.now();
  let logoAssetId: string | null | undefined = input.logo === null ? null : undefined;
  if (typeof input.logo === 'string') {
    const png = await normaliseImage(input.logo, LOGO_OUTPUT_SIDE, 'logo');
    const sha256 = sha256Hex(png);
    logoAssetId = await findShopAssetBySha256(trx, access.shop.id, sha256);
    if (logoAssetId === undefined) {
      logoAssetId = newId();
      await insertBrandingAsset(trx, { id: logoAssetId, shopId: access.shop.id, bytes: png, sha256, now });
    }
  }
  const shop = await updateShop(
    trx,
    access.shop.id,
    { ...(name === undefined ? {} : { branding_name: name }), ...(logoAssetId === undefined ? {} : { branding_logo_asset_id: logoAssetId }) },
    now,
  );
  return brandingView(shop, baseUrl);
}

export function brandingView(shop: ShopRow, baseUrl: string): BrandingView {
  return {
    shop_id: shop.id,
    name: shop.branding_name ?? shop.name,
    logo_url: shop.branding_logo_asset_id === null ? null : `${baseUrl}/assets/${shop.branding_logo_asset_id}`,
  };
}
