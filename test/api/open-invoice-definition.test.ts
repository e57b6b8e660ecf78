import { sql, type QueryCreator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isOpenInvoiceGroup, isOpenSingleInvoice, whereOpenInvoiceGroup, whereOpenSingleInvoice } from '../../src/limits/index.js';
import type { DatabaseHandle } from '../../src/platform/database/database.js';
import type { Database, IssuanceStatus } from '../../src/platform/database/schema.js';
import { freshDatabase } from '../support/database.js';

// SPEC "Limits" (active invoices per merchant), decision 0005: "open" (not
// cancelled, not paid) is said once in TypeScript (src/limits/open-invoice.ts:
// the queries' filter and a pure predicate) and once in SQL for the tallies'
// triggers (ivory_is_open_issuance / ivory_is_open_group, migration
// 202611260030). The shared gate reads the tallies, the exclusive gate and the
// expiry job the filter: were they to differ, the two gates would count
// different invoices. Here all three readings judge every combination of the
// columns a row can have, including ones the lifecycle never produces.

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await freshDatabase();
});
afterAll(async () => {
  await handle.close();
});

const STATUSES: readonly IssuanceStatus[] = ['registering', 'open', 'funded', 'settled', 'reconciling'];
const KINDS = ['invoice', 'deposit'] as const;
const BOOLEANS = [false, true] as const;
const AT = '2026-11-26T12:00:00.000Z';
const OTHER_ID = '00000000-0000-4000-8000-000000000001';

const uuid = (index: number) => `00000000-0000-4000-8000-${String(index + 1000).padStart(12, '0')}`;

/** Every combination, as rows of `issuances`: the columns of the definition and the ones that must not matter. */
function issuanceCombinations() {
  const rows = [];
  for (const kind of KINDS)
    for (const status of STATUSES)
      for (const grouped of BOOLEANS)
        for (const cancelled of BOOLEANS)
          for (const funded of BOOLEANS)
            for (const disabled of BOOLEANS)
              for (const sandbox of BOOLEANS)
                rows.push({
                  id: uuid(rows.length),
                  kind,
                  status,
                  sandbox,
                  group_id: grouped ? OTHER_ID : null,
                  cancelled_at: cancelled ? AT : null,
                  funded_at: funded ? AT : null,
                  disabled_at: disabled ? AT : null,
                });
  return rows;
}

function groupCombinations() {
  const rows = [];
  for (const kind of KINDS)
    for (const cancelled of BOOLEANS)
      for (const paid of BOOLEANS)
        for (const disabled of BOOLEANS)
          for (const sandbox of BOOLEANS)
            rows.push({
              id: uuid(rows.length),
              kind,
              sandbox,
              cancelled_at: cancelled ? AT : null,
              paid_issuance_id: paid ? OTHER_ID : null,
              disabled_at: disabled ? AT : null,
            });
  return rows;
}

/** Ids of the rows the SQL function calls open, all rows judged by one query. */
async function openBySqlFunction(table: 'issuances' | 'issuance_groups', rows: readonly object[]): Promise<string[]> {
  const judge = table === 'issuances' ? sql`ivory_is_open_issuance(candidate)` : sql`ivory_is_open_group(candidate)`;
  const { rows: judged } = await sql<{ id: string; open: number }>`
    select candidate.id, ${judge} as open
    from jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb) as candidate
  `.execute(handle.db);
  expect(judged).toHaveLength(rows.length);
  return judged.filter((row) => row.open === 1).map((row) => row.id);
}

/**
 * Ids of the rows the queries' filter keeps: the filter runs on its own table
 * name, here a CTE of the combinations that hides the real table.
 */
async function openByQueryFilter(table: 'issuances' | 'issuance_groups', rows: readonly object[]): Promise<string[]> {
  const combinations = handle.db.with(table, (creator) =>
    creator.selectFrom(sql`jsonb_populate_recordset(null::${sql.table(table)}, ${JSON.stringify(rows)}::jsonb)`.as('candidate')).selectAll(),
  ) as unknown as QueryCreator<Database>;
  const kept =
    table === 'issuances'
      ? await whereOpenSingleInvoice(combinations.selectFrom('issuances').select('id')).execute()
      : await whereOpenInvoiceGroup(combinations.selectFrom('issuance_groups').select('id')).execute();
  return kept.map((row) => row.id);
}

describe('"open invoice" is one rule in TypeScript and in SQL (SPEC "Limits", decision 0005)', () => {
  it('an issuance: the SQL function, the query filter and the predicate agree on every combination', async () => {
    const rows = issuanceCombinations();
    expect(rows).toHaveLength(2 * 5 * 2 ** 5);
    const byPredicate = rows.filter((row) => isOpenSingleInvoice(row)).map((row) => row.id);
    expect((await openBySqlFunction('issuances', rows)).sort()).toEqual(byPredicate.sort());
    expect((await openByQueryFilter('issuances', rows)).sort()).toEqual(byPredicate.sort());
    // The rule itself, once by hand: an ungrouped invoice neither cancelled nor funded.
    expect(byPredicate).toHaveLength(5 * 2 * 2);
  });

  it('a group: the SQL function, the query filter and the predicate agree on every combination', async () => {
    const rows = groupCombinations();
    expect(rows).toHaveLength(2 ** 5);
    const byPredicate = rows.filter((row) => isOpenInvoiceGroup(row)).map((row) => row.id);
    expect((await openBySqlFunction('issuance_groups', rows)).sort()).toEqual(byPredicate.sort());
    expect((await openByQueryFilter('issuance_groups', rows)).sort()).toEqual(byPredicate.sort());
    // An invoice group neither cancelled nor paid, disabled or not, in either mode.
    expect(byPredicate).toHaveLength(2 * 2);
  });
});
