import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { RECIPIENT_COLUMNS, type RecipientFamily } from './merchants.repository.js';
import { requireShopAccess } from './require-shop-access.js';

/** GET /shops/{id}/solana-recipient and /tron-recipient: `{address}`, empty until set. */
export async function getShopRecipient(db: Executor, principal: Principal, shopId: string, family: RecipientFamily): Promise<{ address: string }> {
  const { shop } = await requireShopAccess(db, principal, shopId, 'read');
  return { address: shop[RECIPIENT_COLUMNS[family]] ?? '' };
}
