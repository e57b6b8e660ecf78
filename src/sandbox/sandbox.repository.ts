import type { Tx } from '../platform/database/database.js';

/**
 * Deletes a sandbox shop's payment history (POST sandbox/reset): its
 * issuances, groups, transfers, payouts, their events and those events'
 * webhook deliveries and attempts. Events and deliveries belong to the events
 * and webhooks modules; their rows are removed here only because they hang on
 * issuances being deleted, and only those. Idempotency records are kept (SPEC).
 * Refuses (throws) for a live shop: the caller checked, this is the backstop.
 */
export async function deleteSandboxHistory(trx: Tx, shopId: string): Promise<number> {
  const shop = await trx.selectFrom('shops').select('sandbox').where('id', '=', shopId).executeTakeFirst();
  if (shop?.sandbox !== true) throw new Error(`refusing to delete payment history of live shop ${shopId}`);

  const issuanceIds = trx.selectFrom('issuances').select('id').where('shop_id', '=', shopId).where('sandbox', '=', true);
  const eventIds = trx.selectFrom('events').select('id').where('issuance_id', 'in', issuanceIds);
  const deliveryIds = trx.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', eventIds);

  await trx.deleteFrom('webhook_attempts').where('delivery_id', 'in', deliveryIds).execute();
  await trx.deleteFrom('webhook_deliveries').where('event_id', 'in', eventIds).execute();
  await trx.deleteFrom('events').where('issuance_id', 'in', issuanceIds).execute();
  await trx.deleteFrom('transfers').where('shop_id', '=', shopId).where('sandbox', '=', true).execute();
  await trx.deleteFrom('payouts').where('shop_id', '=', shopId).where('sandbox', '=', true).execute();
  const deleted = await trx.deleteFrom('issuances').where('shop_id', '=', shopId).where('sandbox', '=', true).executeTakeFirst();
  await trx.deleteFrom('issuance_groups').where('shop_id', '=', shopId).where('sandbox', '=', true).execute();
  return Number(deleted.numDeletedRows);
}
