import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../platform/database/schema.js';
import { OPEN_INVOICE_GROUP, OPEN_SINGLE_INVOICE } from './open-invoice.js';

/**
 * "An invoice still open" (open-invoice.ts) as a filter, for the expiry job
 * and the SPEC "Limits" count. Expiry is the caller's bound.
 */
export function whereOpenSingleInvoice<O>(query: SelectQueryBuilder<Database, 'issuances', O>): SelectQueryBuilder<Database, 'issuances', O> {
  return query.where((eb) => eb.and(OPEN_SINGLE_INVOICE));
}

export function whereOpenInvoiceGroup<O>(
  query: SelectQueryBuilder<Database, 'issuance_groups', O>,
): SelectQueryBuilder<Database, 'issuance_groups', O> {
  return query.where((eb) => eb.and(OPEN_INVOICE_GROUP));
}
