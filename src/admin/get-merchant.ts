import { findMerchantControls, listMerchantFeeTerms } from '../merchants/index.js';
import { isUuid } from '../platform/ids.js';
import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { adminMerchantView, type AdminMerchantView } from './merchant-view.js';

/** GET /admin/v1/merchants/{id}. An unknown (or malformed) id is 404 `not_found`. */
export async function getMerchant(db: Executor, merchantId: string): Promise<AdminMerchantView> {
  if (!isUuid(merchantId)) throw new IvoryError('not_found');
  const merchant = await findMerchantControls(db, merchantId);
  if (merchant === undefined) throw new IvoryError('not_found');
  return adminMerchantView(merchant, await listMerchantFeeTerms(db, merchantId));
}

/** The merchant row locked for an operator change, or 404 `not_found`. */
export async function lockMerchantForOperator(trx: Executor, merchantId: string) {
  if (!isUuid(merchantId)) throw new IvoryError('not_found');
  const merchant = await findMerchantControls(trx, merchantId, { lock: true });
  if (merchant === undefined) throw new IvoryError('not_found');
  return merchant;
}
