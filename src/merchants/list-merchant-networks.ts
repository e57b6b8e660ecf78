import { listedNetwork, type Catalogue, type IsLive, type ListedNetwork } from '../catalogue/index.js';
import { familyRules } from '../chains/index.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { merchantMayUse } from './merchant-families.js';
import { requireMerchantAccess } from './require-shop-access.js';
import { findMerchantPayoutSetup } from './service-wallets.repository.js';

export type MerchantNetwork = ListedNetwork & { wallet_bridge?: boolean };

/**
 * GET /merchants/{id}/networks: the public list as this merchant may use it
 * ("filtered by merchant policy"): Tron networks only while Tron is on for
 * the merchant; Solana entries say `wallet_bridge: true` when the merchant
 * has a Solana service wallet to pay into (decision 0017). Each says whether
 * this deployment takes live payments on it (`live`, decision 0023).
 */
export async function listMerchantNetworks(
  db: Executor,
  networks: { readonly catalogue: Catalogue; readonly isLive: IsLive },
  principal: Principal,
  merchantId: string,
): Promise<MerchantNetwork[]> {
  const access = await requireMerchantAccess(db, principal, merchantId, 'read');
  const setup = await findMerchantPayoutSetup(db, access.merchantId);
  return networks.catalogue
    .publicNetworks()
    .filter((network) => merchantMayUse(setup, network.family))
    .map((network) => listedNetwork(network, networks.isLive))
    .map((network) => (familyRules(network.family).listsWalletBridge ? { ...network, wallet_bridge: setup.wallets[network.family] !== undefined } : network));
}
