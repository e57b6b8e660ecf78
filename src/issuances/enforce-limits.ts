import type { NetworkFamily } from '../catalogue/index.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import { countActiveDepositAddresses, countActiveInvoices, lockMerchantLimits } from './limits.repository.js';
import { activeInvoiceLimit, depositAddressLimit } from './limits.js';

/**
 * SPEC "Limits". The merchant row is locked (FOR UPDATE) and held to commit,
 * and only then counted, so two concurrent creations cannot both see room for
 * one. `adding` is what the caller is about to store; 0 when it has already
 * stored it in this transaction — creation does that, so the lock is taken as
 * late as possible and other creations of the merchant wait the least.
 */

/** Takes the merchant lock early, for use cases that must read state only after holding it. */
export async function lockMerchantForLimits(trx: Tx, merchantId: string): Promise<void> {
  if ((await lockMerchantLimits(trx, merchantId)) === undefined) throw new Error(`merchant ${merchantId} vanished`);
}

export async function enforceInvoiceLimit(trx: Tx, merchantId: string, sandbox: boolean, now: Date, adding: 0 | 1): Promise<void> {
  const limits = await lockMerchantLimits(trx, merchantId);
  if (limits === undefined) throw new Error(`merchant ${merchantId} vanished`);
  const active = await countActiveInvoices(trx, merchantId, sandbox, now);
  if (active + adding > activeInvoiceLimit(limits.activeInvoiceLimit)) throw new IvoryError('active_invoice_limit_reached');
}

export async function enforceDepositAddressLimit(
  trx: Tx,
  merchantId: string,
  sandbox: boolean,
  wanted: ReadonlyMap<NetworkFamily, number>,
  alreadyStored = false,
): Promise<void> {
  const limits = await lockMerchantLimits(trx, merchantId);
  if (limits === undefined) throw new Error(`merchant ${merchantId} vanished`);
  for (const [family, count] of wanted) {
    const active = await countActiveDepositAddresses(trx, merchantId, sandbox, family);
    if (active + (alreadyStored ? 0 : count) > depositAddressLimit(limits.depositAddressLimits, family)) {
      throw new IvoryError('deposit_address_limit_reached', { family });
    }
  }
}
