import type { Catalogue } from '../catalogue/index.js';
import { addressCodec, familyRules, isFamilyServiceAddress } from '../chains/index.js';
import type { Clock } from '../platform/clock.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { RECIPIENT_COLUMNS, writeFamilyRecipient, type RecipientFamily } from './merchants.repository.js';
import { merchantMayUse } from './merchant-families.js';
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
  const rules = familyRules(family);
  if (rules.needsMerchantOptIn && !merchantMayUse(await findMerchantPayoutSetup(trx, merchantId), family)) throw new IvoryError('merchant_network_disabled');
  const address = addressCodec(family).parseRecipient(rawAddress, 'address');
  const current = shop[RECIPIENT_COLUMNS[family]];
  if (current !== null && current !== '') {
    if (current !== address) {
      throw fieldError('shop_addresses_immutable', 'address', `the shop's ${rules.displayName} recipient is already set and cannot change; sending the same address again succeeds`);
    }
    return { address };
  }
  if (await isServiceAddress(trx, deps.catalogue, family, address)) {
    const reason = "is one of this service's own addresses (a token contract or mint, a factory, a payment address, the relayer, a fee wallet, a service wallet): use your own wallet";
    throw fieldError(rules.ownAddressRecipient, 'address', reason);
  }
  await writeFamilyRecipient(trx, shop.id, family, address, deps.clock.now());
  return { address };
}

/**
 * SPEC "Errors": a service address is refused as a recipient (Solana
 * `invalid_solana_address`, Tron `invalid_tron_recipient`). The service's own
 * addresses on a family: the token contracts and mints it accepts (funds sent
 * there are lost), its fee wallets, and every merchant's service wallet
 * (a payout there would credit the wrong books), and what the family's
 * running side owns (Solana: relayers and deposit addresses).
 */
async function isServiceAddress(db: Executor, catalogue: Catalogue, family: RecipientFamily, address: string): Promise<boolean> {
  for (const network of catalogue.networks()) {
    if (network.family !== family) continue;
    const codec = addressCodec(family);
    const own = [...network.tokens.map((token) => token.address), network.mainFactory, network.invoiceFactory, network.chain?.feeWallet].filter((known): known is string => known !== undefined && known !== '');
    if (own.some((known) => codec.same(known, address))) return true;
  }
  return (await isFamilyServiceAddress(db, family, address)) || isServiceWalletAddress(db, family, address);
}
