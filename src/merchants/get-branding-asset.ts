import type { Executor } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { findBrandingAsset, type BrandingAsset } from './merchants.repository.js';
import { isUuid } from '../platform/ids.js';

/** GET /assets/{id} (public): a branding image by id, or 404 `not_found` (SPEC "Public"). */
export async function getBrandingAsset(db: Executor, assetId: string): Promise<BrandingAsset> {
  const asset = isUuid(assetId) ? await findBrandingAsset(db, assetId) : undefined;
  if (asset === undefined) throw new IvoryError('not_found');
  return asset;
}
