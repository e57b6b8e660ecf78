import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { writeFamilyRecipient, type RecipientFamily } from './merchants.repository.js';
import { parseSolanaRecipient, parseTronRecipient } from './recipient-addresses.js';
import { requireShopAccess } from './require-shop-access.js';

/**
 * PUT /shops/{id}/solana-recipient and /tron-recipient (owner). SPEC "Shop":
 * immutable once set — a different address is `shop_addresses_immutable`, the
 * same address again succeeds and changes nothing. The shop row is locked so
 * two first settings cannot both win.
 */
export async function setShopRecipient(
  trx: Tx,
  clock: Clock,
  principal: Principal,
  shopId: string,
  family: RecipientFamily,
  rawAddress: string,
): Promise<{ address: string }> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true });
  const address = family === 'solana' ? parseSolanaRecipient(rawAddress) : parseTronRecipient(rawAddress);
  const current = family === 'solana' ? shop.solana_recipient : shop.tron_recipient;
  if (current !== null && current !== '') {
    if (current !== address) throw new IvoryError('shop_addresses_immutable');
    return { address };
  }
  await writeFamilyRecipient(trx, shop.id, family, address, clock.now());
  return { address };
}

