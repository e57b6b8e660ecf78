import { familyRules, type ChainFamily } from '../chains/index.js';
import type { MerchantPayoutSetup } from './service-wallets.repository.js';

/**
 * Whether the merchant may use `family`: always, unless the family needs the
 * operator's opt-in per merchant (SPEC `merchant_network_disabled`). The one
 * opt-in stored today is the merchants table's `tron_enabled`; a second
 * family needing one would add its column here.
 */
export function merchantMayUse(setup: MerchantPayoutSetup, family: ChainFamily): boolean {
  return !familyRules(family).needsMerchantOptIn || setup.tronEnabled;
}
