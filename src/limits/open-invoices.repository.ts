import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../platform/database/schema.js';

/**
 * What "an invoice still open" means in SQL, said once for the expiry job and
 * the SPEC "Limits" count: not cancelled and not paid yet. An ungrouped invoice
 * is one row of `issuances`; a group counts once, as its `issuance_groups` row
 * (its options are left out of the first filter). Expiry is the caller's bound.
 */
export function whereOpenSingleInvoice<O>(query: SelectQueryBuilder<Database, 'issuances', O>): SelectQueryBuilder<Database, 'issuances', O> {
  return query.where('kind', '=', 'invoice').where('group_id', 'is', null).where('cancelled_at', 'is', null).where('funded_at', 'is', null);
}

export function whereOpenInvoiceGroup<O>(
  query: SelectQueryBuilder<Database, 'issuance_groups', O>,
): SelectQueryBuilder<Database, 'issuance_groups', O> {
  return query.where('kind', '=', 'invoice').where('cancelled_at', 'is', null).where('paid_issuance_id', 'is', null);
}
