import type { Clock } from '../platform/clock.js';
import type { Tx } from '../platform/database/database.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import type { Principal } from '../platform/http/principal.js';
import { updateShop as writeShopChanges } from './merchants.repository.js';
import { requireShopAccess } from './require-shop-access.js';
import { parseEvmPayoutAddress, payoutRecipient, shopRecord, type ShopRecord } from './shop.js';

export interface UpdateShopInput {
  readonly recipient?: string;
  readonly delegate?: string | null;
  readonly solanaPayoutTarget?: PayoutTarget;
  readonly tronPayoutTarget?: PayoutTarget;
}

/**
 * PATCH /shops/{id}: an owner changes where future payouts go. Omitted fields
 * stay. Issuances copy the recipient when they are created, so this never
 * rewrites what existing invoices and addresses pay to (SPEC "Shop").
 */
export async function updateShop(trx: Tx, clock: Clock, principal: Principal, shopId: string, input: UpdateShopInput): Promise<ShopRecord> {
  const { shop } = await requireShopAccess(trx, principal, shopId, 'owner', { lock: true });
  const recipient =
    input.recipient === undefined ? undefined : payoutRecipient({ sandbox: shop.sandbox, payoutTarget: shop.payout_target, recipient: input.recipient });
  const delegate = input.delegate === undefined || input.delegate === null ? input.delegate : parseEvmPayoutAddress(input.delegate);
  const updated = await writeShopChanges(
    trx,
    shop.id,
    {
      ...(recipient === undefined ? {} : { recipient }),
      ...(delegate === undefined ? {} : { delegate }),
      ...(input.solanaPayoutTarget === undefined ? {} : { solanaPayoutTarget: input.solanaPayoutTarget }),
      ...(input.tronPayoutTarget === undefined ? {} : { tronPayoutTarget: input.tronPayoutTarget }),
    },
    clock.now(),
  );
  return shopRecord(updated);
}
