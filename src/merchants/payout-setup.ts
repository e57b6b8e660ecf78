import type { PayoutTarget } from '../platform/database/schema.js';
import { IvoryError } from '../platform/errors.js';
import type { MerchantPayoutSetup } from './service-wallets.repository.js';

/** The payout targets a shop creation or PATCH /shops/{id} sends; undefined: not sent. */
export interface PayoutTargetChoice {
  readonly payoutTarget?: PayoutTarget | undefined;
  readonly solanaPayoutTarget?: PayoutTarget | undefined;
  readonly tronPayoutTarget?: PayoutTarget | undefined;
}

/**
 * SPEC "Shop" and "Errors": a `wallet` target pays into the merchant's
 * service wallet on that family, so it is accepted only where one is set up
 * (decision 0017): EVM `wallet_not_ready`; Solana `solana_bridge_unavailable`;
 * Tron `merchant_network_disabled` when Tron is off for the merchant, else
 * `tron_bridge_unavailable`. `address` needs nothing here (the recipient is
 * checked on its own). The same checks run again when an issuance is created,
 * since operator staff can remove a wallet later.
 */
export function checkPayoutTargets(setup: MerchantPayoutSetup, choice: PayoutTargetChoice): void {
  if (choice.payoutTarget === 'wallet' && setup.wallets.evm === undefined) throw new IvoryError('wallet_not_ready');
  if (choice.solanaPayoutTarget === 'wallet' && setup.wallets.solana === undefined) throw new IvoryError('solana_bridge_unavailable');
  if (choice.tronPayoutTarget === 'wallet') {
    if (!setup.tronEnabled) throw new IvoryError('merchant_network_disabled');
    if (setup.wallets.tron === undefined) throw new IvoryError('tron_bridge_unavailable');
  }
}
