import type { Executor, Tx } from '../platform/database/database.js';
import type { Issuance } from './issuance.js';

/** SQL behind SPEC "Limits": the merchant's overrides (locked) and the active counts. */

/**
 * The merchant's limit overrides, with the merchant row locked: limit checks
 * are then race-free. FOR NO KEY UPDATE, not FOR UPDATE: the issuance rows a
 * creation has already inserted hold FOR KEY SHARE on the merchant (their
 * foreign key), which FOR UPDATE would wait on — two creations would deadlock.
 */
export async function lockMerchantLimits(
  trx: Tx,
  merchantId: string,
): Promise<{ activeInvoiceLimit: number | null; depositAddressLimits: Record<string, number> | null } | undefined> {
  const row = await trx
    .selectFrom('merchants')
    .select(['active_invoice_limit', 'deposit_address_limits'])
    .where('id', '=', merchantId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : { activeInvoiceLimit: row.active_invoice_limit, depositAddressLimits: row.deposit_address_limits };
}

/**
 * SPEC "Limits": invoices active (not paid, cancelled or expired) for the
 * merchant in sandbox or live; a group counts once.
 */
export async function countActiveInvoices(executor: Executor, merchantId: string, sandbox: boolean, now: Date): Promise<number> {
  // One statement for both counts: this runs while the merchant row is locked,
  // so every round trip saved shortens the time other creations wait.
  const row = await executor
    .selectNoFrom((eb) => [
      eb
        .selectFrom('issuances')
        .select((inner) => inner.fn.countAll<string>().as('count'))
        .where('merchant_id', '=', merchantId)
        .where('sandbox', '=', sandbox)
        .where('kind', '=', 'invoice')
        .where('group_id', 'is', null)
        .where('cancelled_at', 'is', null)
        .where('funded_at', 'is', null)
        .where('expires_at', '>', now)
        .as('single'),
      eb
        .selectFrom('issuance_groups')
        .select((inner) => inner.fn.countAll<string>().as('count'))
        .where('merchant_id', '=', merchantId)
        .where('sandbox', '=', sandbox)
        .where('kind', '=', 'invoice')
        .where('cancelled_at', 'is', null)
        .where('paid_issuance_id', 'is', null)
        .where('expires_at', '>', now)
        .as('grouped'),
    ])
    .executeTakeFirstOrThrow();
  return Number(row.single ?? 0) + Number(row.grouped ?? 0);
}

/** SPEC "Limits": deposit addresses not disabled, per merchant, family and mode. */
export async function countActiveDepositAddresses(
  executor: Executor,
  merchantId: string,
  sandbox: boolean,
  family: string,
): Promise<number> {
  const row = await executor
    .selectFrom('issuances')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('merchant_id', '=', merchantId)
    .where('sandbox', '=', sandbox)
    .where('family', '=', family as Issuance['family'])
    .where('kind', '=', 'deposit')
    .where('disabled_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
