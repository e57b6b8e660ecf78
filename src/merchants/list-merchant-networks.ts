import type { Catalogue, PublicNetwork } from '../catalogue/index.js';
import type { Executor } from '../platform/database/database.js';
import type { Principal } from '../platform/http/principal.js';
import { requireMerchantAccess } from './require-shop-access.js';

export type MerchantNetwork = PublicNetwork & { wallet_bridge?: boolean };

/**
 * GET /merchants/{id}/networks: the public list as this merchant may use it.
 * Merchants carry no network policy yet, so it is the public list itself;
 * Solana entries say `wallet_bridge: false` because Ivory has no bridge into a
 * service wallet.
 */
export async function listMerchantNetworks(db: Executor, catalogue: Catalogue, principal: Principal, merchantId: string): Promise<MerchantNetwork[]> {
  await requireMerchantAccess(db, principal, merchantId, 'read');
  return catalogue.publicNetworks().map((network) => (network.family === 'solana' ? { ...network, wallet_bridge: false } : network));
}
