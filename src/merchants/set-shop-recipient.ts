import type { Catalogue } from '../catalogue/index.js';
import type { Clock } from '../platform/clock.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { writeFamilyRecipient, type RecipientFamily } from './merchants.repository.js';
import { parseSolanaRecipient, parseTronRecipient } from './recipient-addresses.js';
import { requireShopAccess } from './require-shop-access.js';
import { findMerchantPayoutSetup, isServiceWalletAddress } from './service-wallets.repository.js';

/**
 * PUT /shops/{id}/solana-recipient and /tron-recipient (owner). SPEC "Shop":
 * immutable once set — a different address is `shop_addresses_immutable`, the
 * same address again succeeds and changes nothing. The shop row is locked so
 * two first settings cannot both win. Tron needs Tron on for the merchant
 * (`merchant_network_disabled`); the address must be well formed
 * (recipient-addresses.ts) and not one of the service's own (below).
 */
export async function setShopRecipient(
  trx: Tx,
  deps: { readonly clock: Clock; readonly catalogue: Catalogue },
  principal: Principal,
  shopId: string,
  family: RecipientFamily,
  rawAddress: string,
): Promise<{ address: string }> {
  const { shop, merchantId } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true });
  if (family === 'tron' && !(await findMerchantPayoutSetup(trx, merchantId)).tronEnabled) throw new IvoryError('merchant_network_disabled');
  const address = family === 'solana' ? parseSolanaRecipient(rawAddress) : parseTronRecipient(rawAddress);
  const current = family === 'solana' ? shop.solana_recipient : shop.tron_recipient;
  if (current !== null && current !== '') {
    if (current !== address) {
      throw fieldError('shop_addresses_immutable', 'address', `the shop's ${FAMILY_NAMES[family]} recipient is already set and cannot change; sending the same address again succeeds`);
    }
    return { address };
  }
  if (await isServiceAddress(trx, deps.catalogue, family, address)) {
    const reason = "is one of this service's own addresses (a token contract or mint, a fee wallet, a service wallet): use your own wallet";
    throw fieldError(family === 'solana' ? 'invalid_solana_address' : 'invalid_tron_recipient', 'address', reason);
  }
  await writeFamilyRecipient(trx, shop.id, family, address, deps.clock.now());
  return { address };
}

const FAMILY_NAMES: Readonly<Record<RecipientFamily, string>> = { solana: 'Solana', tron: 'Tron' };

/**
 * SPEC "Errors": a service address is refused as a recipient (Solana
 * `invalid_solana_address`, Tron `invalid_tron_recipient`). The service's own
 * addresses on a family: the token contracts and mints it accepts (funds sent
 * there are lost), its fee wallets, and every merchant's service wallet
 * (a payout there would credit the wrong books).
 */
async function isServiceAddress(db: Executor, catalogue: Catalogue, family: RecipientFamily, address: string): Promise<boolean> {
  for (const network of catalogue.networks()) {
    if (network.family !== family) continue;
    if (network.tokens.some((token) => token.address === address) || network.chain?.feeWallet === address) return true;
  }
  return isServiceWalletAddress(db, family, address);
}
