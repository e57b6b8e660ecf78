/**
 * SPEC "Limits": what makes an invoice open — not cancelled, not paid yet —
 * said once, as the column values of the row that holds it (null: the column
 * is null). An ungrouped invoice is one row of `issuances` (a group's
 * options are left out: the group counts once); a group is its row of
 * `issuance_groups`. Expiry is not part of it: each caller bounds that.
 *
 * The queries filter with these (`whereOpenSingleInvoice`,
 * `whereOpenInvoiceGroup`); the open-invoice tallies' triggers say the same
 * in SQL (`ivory_is_open_issuance`, `ivory_is_open_group`, migration
 * 202611260030), and test/api/open-invoice-definition.test.ts checks the
 * three readings agree on every combination of the columns.
 */
export const OPEN_SINGLE_INVOICE = { kind: 'invoice', group_id: null, cancelled_at: null, funded_at: null } as const;
export const OPEN_INVOICE_GROUP = { kind: 'invoice', cancelled_at: null, paid_issuance_id: null } as const;

type ColumnsOf<Conditions> = { readonly [Column in keyof Conditions]: unknown };

/** An `issuances` row that is an open ungrouped invoice. */
export function isOpenSingleInvoice(row: ColumnsOf<typeof OPEN_SINGLE_INVOICE>): boolean {
  return meets(row, OPEN_SINGLE_INVOICE);
}

/** An `issuance_groups` row that is an open invoice group. */
export function isOpenInvoiceGroup(row: ColumnsOf<typeof OPEN_INVOICE_GROUP>): boolean {
  return meets(row, OPEN_INVOICE_GROUP);
}

function meets<Conditions extends object>(row: ColumnsOf<Conditions>, conditions: Conditions): boolean {
  return (Object.keys(conditions) as (keyof Conditions)[]).every((column) => row[column] === conditions[column]);
}
