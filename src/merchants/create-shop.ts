import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import type { PayoutTarget } from '../platform/database/schema.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { checkPayoutTargets } from './payout-setup.js';
import { findMerchantPayoutSetup } from './service-wallets.repository.js';
import { countActiveShops, hasActiveSandboxShop, insertShop } from './merchants.repository.js';
import { requireMerchantAccess } from './require-shop-access.js';
import { parseEvmPayoutAddress, parseName, payoutRecipient, shopRecord, type ShopRecord } from './shop.js';

export interface CreateShopInput {
  readonly name: string;
  readonly sandbox: boolean;
  readonly recipient?: string | null;
  readonly delegate?: string | null;
  readonly payoutTarget?: PayoutTarget;
  readonly solanaPayoutTarget?: PayoutTarget;
  readonly tronPayoutTarget?: PayoutTarget;
}

/**
 * POST /merchants/{id}/shops: a merchant owner adds a live or sandbox shop.
 * The merchant row is locked first, so the sandbox and shop-count checks hold
 * against concurrent creations (the unique index shops_one_sandbox backs the
 * first). A `wallet` target on any family needs the merchant's service
 * wallet there (payout-setup.ts).
 */
export async function createShop(trx: Tx, clock: Clock, principal: Principal, merchantId: string, input: CreateShopInput): Promise<ShopRecord> {
  const access = await requireMerchantAccess(trx, principal, merchantId, 'owner', { lock: true });
  const name = parseName(input.name);
  const recipient = payoutRecipient({ sandbox: input.sandbox, payoutTarget: input.payoutTarget ?? 'address', recipient: input.recipient });
  const delegate = input.delegate === undefined || input.delegate === null ? null : parseEvmPayoutAddress(input.delegate, 'delegate');
  checkPayoutTargets(await findMerchantPayoutSetup(trx, access.merchantId), input);

  if (input.sandbox && (await hasActiveSandboxShop(trx, access.merchantId))) throw new IvoryError('sandbox_shop_limit_reached');
  if ((await countActiveShops(trx, access.merchantId)) >= access.merchant.shop_limit) throw new IvoryError('shop_limit_reached');

  const shop = await insertShop(trx, {
    id: newId(),
    merchantId: access.merchantId,
    name,
    sandbox: input.sandbox,
    recipient,
    delegate,
    payoutTarget: input.payoutTarget ?? 'address',
    solanaPayoutTarget: input.solanaPayoutTarget ?? 'address',
    tronPayoutTarget: input.tronPayoutTarget ?? 'address',
    now: clock.now(),
  });
  return shopRecord(shop);
}
