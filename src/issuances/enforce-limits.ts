import type { NetworkFamily } from '../catalogue/index.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { countActiveDepositAddresses, countActiveInvoices, lockMerchantLimits } from './limits.repository.js';
import { activeInvoiceLimit, depositAddressLimit } from './limits.js';

/**
 * SPEC "Limits" for what is about to be created. The merchant row is locked
 * first (FOR UPDATE) and held to commit, so two concurrent creations cannot
 * both see room for one.
 */
/** Takes the merchant lock early, for use cases that must read state only after holding it. */
export async function lockMerchantForLimits(trx: Tx, merchantId: string): Promise<void> {
  if ((await lockMerchantLimits(trx, merchantId)) === undefined) throw new Error(`merchant ${merchantId} vanished`);
}

export async function enforceInvoiceLimit(trx: Tx, merchantId: string, sandbox: boolean, now: Date): Promise<void> {
  const limits = await lockMerchantLimits(trx, merchantId);
  if (limits === undefined) throw new Error(`merchant ${merchantId} vanished`);
  const active = await countActiveInvoices(trx, merchantId, sandbox, now);
  if (active + 1 > activeInvoiceLimit(limits.activeInvoiceLimit)) throw new IvoryError('active_invoice_limit_reached');
}

export async function enforceDepositAddressLimit(
  trx: Tx,
  merchantId: string,
  sandbox: boolean,
  wanted: ReadonlyMap<NetworkFamily, number>,
): Promise<void> {
  const limits = await lockMerchantLimits(trx, merchantId);
  if (limits === undefined) throw new Error(`merchant ${merchantId} vanished`);
  for (const [family, count] of wanted) {
    const active = await countActiveDepositAddresses(trx, merchantId, sandbox, family);
    if (active + count > depositAddressLimit(limits.depositAddressLimits, family)) {
      throw new IvoryError('deposit_address_limit_reached', { family });
    }
  }
}
