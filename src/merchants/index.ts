/** What other modules may use of merchants: the access gate and the shop record. */
export { merchantsRoutes, ShopRecordSchema } from './merchants.routes.js';
export { requireMerchantAccess, requireShopAccess, requireShopAccessForIssuance, roleAllows } from './require-shop-access.js';
export { replyShopIdempotent } from './reply-shop-idempotent.js';
export { IssuanceAccessCache } from './issuance-access-cache.js';
export { findShopPayoutColumns, isIssuanceAccessMoved, lockCurrentIssuingShop, markShopArchived } from './merchants.repository.js';
export type { KeptIssuanceAccess } from './issuance-access-cache.js';
export type { AccessNeed, MerchantAccess } from './require-shop-access.js';
export type { ShopAccess, ShopIssuanceAccess } from './shop-access.js';
export type { ShopColumns } from './merchants.repository.js';
export type { ShopRow } from './merchants.repository.js';
export { parseName, shopRecord } from './shop.js';
export type { ShopRecord } from './shop.js';
export { DEFAULT_TEAM_LIMIT, teamLimit } from './team-limit.js';
export { findMerchantPayoutSetup, writeServiceWallet, writeTronEnabled } from './service-wallets.repository.js';
export type { MerchantPayoutSetup, WalletFamily } from './service-wallets.repository.js';
export { merchantMayUse } from './merchant-families.js';
export {
  deleteMerchantFeeTerms,
  findMerchantControls,
  listMerchantFeeTerms,
  setMerchantBlock,
  setMerchantLimitOverrides,
  upsertMerchantFeeTerms,
} from './merchant-controls.repository.js';
export type { LimitOverrides, MerchantControlsRow, MerchantFeeTermsRow } from './merchant-controls.repository.js';
export { listShops } from './list-shops.js';
