import { noteApiKeysChanged } from '../keys/index.js';
import { markShopArchived, requireShopAccess, shopRecord, type ShopRecord } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { countOpenWork } from './open-work.repository.js';

/**
 * POST /shops/{id}/archive (decision 0038): an owner retires a shop. From the
 * commit on, the shop answers `shop_archived` as SPEC says of an unusable
 * shop, its API keys stop resolving, and it no longer counts against the
 * shop limit.
 *
 * Refused with `shop_has_open_issuances` (details count each kind) while a
 * payer can still pay it — an open invoice, an enabled deposit — or while
 * live money it received has not finished leaving (funded or reconciling, a
 * payout not confirmed): the merchant must still see that money arrive.
 * Money that comes later to a cancelled invoice or a paused deposit is
 * credited and paid out exactly as before: watching addresses and sending
 * payouts never ask whether the shop is archived.
 *
 * The shop row is held FOR UPDATE: a write of the shop in flight (which holds
 * it FOR KEY SHARE) is waited for and then counted; one that waited for this
 * archive sees the shop archived. Archiving an archived shop answers it
 * unchanged.
 */
export async function archiveShop(trx: Tx, clock: Clock, principal: Principal, shopId: string): Promise<ShopRecord> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true, includeArchived: true });
  if (shop.archived_at !== null) return shopRecord(shop);
  const open = await countOpenWork(trx, shop.id);
  if (open.openInvoices > 0 || open.activeDeposits > 0 || open.unsettled > 0) {
    throw new IvoryError('shop_has_open_issuances', { open_invoices: open.openInvoices, active_deposits: open.activeDeposits, unsettled: open.unsettled });
  }
  const archived = await markShopArchived(trx, shop.id, clock.now());
  await noteApiKeysChanged(trx, shop.id);
  return shopRecord(archived);
}
