import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import type { Principal } from '../platform/http/principal.js';
import { updateShop as writeShopChanges } from './merchants.repository.js';
import { checkPayoutTargets } from './payout-setup.js';
import { requireShopAccess } from './require-shop-access.js';
import { findMerchantPayoutSetup } from './service-wallets.repository.js';
import { parseEvmPayoutAddress, payoutRecipient, shopRecord, type ShopRecord } from './shop.js';

export interface UpdateShopInput {
  readonly recipient?: string | undefined;
  readonly delegate?: string | null | undefined;
  readonly solanaPayoutTarget?: PayoutTarget | undefined;
  readonly tronPayoutTarget?: PayoutTarget | undefined;
}

/**
 * PATCH /shops/{id}: an owner changes where future payouts go. Omitted fields
 * stay. Issuances copy the recipient when they are created, so this never
 * rewrites what existing invoices and addresses pay to (SPEC "Shop"). A
 * recipient sent to a shop that pays into the service wallet makes it pay to
 * that address from now on (payout_target `address`; decision 0017). A `wallet`
 * target needs the merchant's service wallet on that family (payout-setup.ts).
 */
export async function updateShop(trx: Tx, clock: Clock, principal: Principal, shopId: string, input: UpdateShopInput): Promise<ShopRecord> {
  const { shop, merchantId } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true });
  const recipient = input.recipient === undefined ? undefined : payoutRecipient({ sandbox: shop.sandbox, payoutTarget: 'address', recipient: input.recipient });
  const delegate = input.delegate === undefined || input.delegate === null ? input.delegate : parseEvmPayoutAddress(input.delegate, 'delegate');
  checkPayoutTargets(await findMerchantPayoutSetup(trx, merchantId), input);
  const updated = await writeShopChanges(
    trx,
    shop.id,
    {
      ...(recipient === undefined ? {} : { recipient, payout_target: 'address' as const }),
      ...(delegate === undefined ? {} : { delegate }),
      ...(input.solanaPayoutTarget === undefined ? {} : { solana_payout_target: input.solanaPayoutTarget }),
      ...(input.tronPayoutTarget === undefined ? {} : { tron_payout_target: input.tronPayoutTarget }),
    },
    clock.now(),
  );
  return shopRecord(updated);
}
