import type { Executor } from '../platform/database/database.js';
import type { PayoutStatus } from '../platform/database/schema.js';
import { countRows } from '../platform/database/count-rows.js';

/**
 * What keeps a shop from being archived (decision 0038), counted as the
 * issuance list shows things: an ungrouped issuance or a group is one item,
 * never its options.
 */
export interface OpenWork {
  /** Invoices a payer can still pay: not cancelled (or expired), not paid. */
  readonly openInvoices: number;
  /** Deposits whose checkout is enabled. */
  readonly activeDeposits: number;
  /**
   * Live issuances whose received money has not finished leaving: funded or
   * reconciling, or with a payout not yet confirmed (scheduled, waiting for
   * gas, sending, sent, failed). Sandbox money does not exist and never counts.
   */
  readonly unsettled: number;
}

/** Payout statuses after which the payout itself moves nothing more. */
const FINAL_PAYOUT_STATUSES: readonly PayoutStatus[] = ['confirmed', 'cancelled', 'reverted'];

/** Read with the shop row held FOR UPDATE by the caller, so that no write of the shop runs meanwhile. */
export async function countOpenWork(db: Executor, shopId: string): Promise<OpenWork> {
  const openSingles = await countRows(
    db
      .selectFrom('issuances')
      .where((eb) => eb.and({ shop_id: shopId, kind: 'invoice', group_id: null, cancelled_at: null }))
      .where('status', 'in', ['registering', 'open']),
  );
  const openGroups = await countRows(
    db.selectFrom('issuance_groups').where((eb) => eb.and({ shop_id: shopId, kind: 'invoice', cancelled_at: null, paid_issuance_id: null })),
  );
  const activeSingles = await countRows(db.selectFrom('issuances').where((eb) => eb.and({ shop_id: shopId, kind: 'deposit', group_id: null, disabled_at: null })));
  const activeGroups = await countRows(db.selectFrom('issuance_groups').where((eb) => eb.and({ shop_id: shopId, kind: 'deposit', disabled_at: null })));
  const unsettled = await countRows(
    db
      .selectFrom('issuances')
      .where((eb) => eb.and({ 'issuances.shop_id': shopId, 'issuances.sandbox': false }))
      .where((eb) =>
        eb.or([
          eb('issuances.status', 'in', ['funded', 'reconciling']),
          eb.exists(
            eb
              .selectFrom('payouts as p')
              .select('p.id')
              .whereRef('p.issuance_id', '=', 'issuances.id')
              .where('p.status', 'not in', [...FINAL_PAYOUT_STATUSES]),
          ),
        ]),
      ),
  );
  return { openInvoices: openSingles + openGroups, activeDeposits: activeSingles + activeGroups, unsettled };
}
