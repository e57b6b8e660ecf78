import { sql, type CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IssuanceAccessCache, requireShopAccessForIssuance } from '../../src/merchants/index.js';
import { withInvoiceLimitGate } from '../../src/limits/index.js';
import { inTransaction, type DatabaseHandle, type Tx } from '../../src/platform/database/database.js';
import type { ApiKeyPrincipal } from '../../src/platform/http/principal.js';
import { createOwnerWithShop } from '../support/factories.js';
import { freshDatabase } from '../support/database.js';

// Decision 0019, "Invoice creation in one statement": the issuance terms a
// process keeps (IssuanceAccessCache) are trusted while the shop's and the
// merchant's view stamps are unchanged, so every table those terms are read
// from must move one of the two stamps when it changes. The shop and merchant
// rows move their own (migration 202611260020); every other table needs a
// trigger that touches the merchant row (202611260040). A table the access
// read starts to read without such a trigger would let the one-statement
// path create invoices on stale terms: this file fails first.

/** Every table the access read of invoice creation reads, and so every input of the kept terms. */
const TABLES_OF_KEPT_TERMS = ['shops', 'merchants', 'merchant_fee_terms', 'merchant_service_wallets'] as const;
/** The rows that carry the stamps themselves. */
const STAMPED_ROWS = new Set<string>(['shops', 'merchants']);

// pg_trigger.tgtype bits (PostgreSQL's trigger.h).
const ROW = 1;
const INSERT = 4;
const DELETE = 8;
const UPDATE = 16;

let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await freshDatabase();
});
afterAll(async () => {
  await handle.close();
});

interface TriggerRow {
  readonly table_name: string;
  readonly trigger_name: string;
  readonly type: number;
  readonly enabled: string;
  readonly source: string;
}

/** The user triggers on `tables`, with their function's source, from the catalogue. */
async function triggersOn(tables: readonly string[]): Promise<TriggerRow[]> {
  const { rows } = await sql<TriggerRow>`
    select c.relname as table_name, t.tgname as trigger_name, t.tgtype::integer as type, t.tgenabled::text as enabled, p.prosrc as source
    from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_proc p on p.oid = t.tgfoid
    where not t.tgisinternal and n.nspname = current_schema() and c.relname in (${sql.join([...tables])})
  `.execute(handle.db);
  return rows;
}

/** Moves the merchant's stamp: an update of the merchant row (whose own trigger then bumps `view_stamp`). */
const touchesMerchantRow = (source: string): boolean => /update\s+merchants\s+set\s+view_stamp\b/i.test(source);
/** Bumps the row's own stamp before an update. */
const bumpsOwnStamp = (source: string): boolean => /new\.view_stamp\s*:=/i.test(source);

/** Table names after FROM or JOIN in Kysely's compiled SQL (identifiers are quoted there). */
function tablesIn(statement: string): Set<string> {
  return new Set([...statement.matchAll(/\b(?:from|join)\s+"([a-z_][a-z0-9_]*)"/gi)].map((match) => match[1] ?? ''));
}

/**
 * The SQL of every statement the access read runs for an API key (the only
 * principal whose access is kept), under the invoice gate as creation runs it.
 */
async function accessReadStatements(): Promise<string[]> {
  const { merchant, shop, key } = await createOwnerWithShop(handle.db);
  const principal: ApiKeyPrincipal = { kind: 'api_key', keyId: key.id, shopId: shop.id, merchantId: merchant.id, scopes: ['read', 'write'] };
  const statements: string[] = [];
  const cache = new IssuanceAccessCache();
  await withInvoiceLimitGate((gate) =>
    inTransaction(handle.db, async (trx) => {
      recordStatements(trx, statements);
      await requireShopAccessForIssuance(trx, principal, shop.id, gate.lockOn, cache);
    }),
  );
  // The read really is the one whose terms are kept.
  expect(cache.accessFor(principal, shop.id)).toBeDefined();
  return statements;
}

/**
 * Records the SQL of every statement run in `trx` from now on: the
 * transaction's query executor is what its builders and `executeQuery` both
 * run through, so nothing read through `trx` escapes.
 */
function recordStatements(trx: Tx, into: string[]): void {
  const executor = trx.getExecutor();
  const execute = executor.executeQuery.bind(executor);
  executor.executeQuery = <R>(query: CompiledQuery<R>) => {
    into.push(query.sql);
    return execute(query);
  };
}

describe('the kept issuance terms move a view stamp whenever a table they are read from changes (decision 0019)', () => {
  it('every table other than the shop and merchant rows has an enabled row trigger on insert, update and delete that touches the merchant row', async () => {
    const others = TABLES_OF_KEPT_TERMS.filter((table) => !STAMPED_ROWS.has(table));
    const triggers = await triggersOn(others);
    for (const table of others) {
      const moving = triggers.filter(
        (trigger) =>
          trigger.table_name === table &&
          trigger.enabled !== 'D' &&
          (trigger.type & ROW) !== 0 &&
          (trigger.type & (INSERT | UPDATE | DELETE)) === (INSERT | UPDATE | DELETE) &&
          touchesMerchantRow(trigger.source),
      );
      expect(moving.map((trigger) => trigger.trigger_name), `${table}: no enabled trigger moving the merchant's view stamp`).not.toEqual([]);
    }
  });

  it('the shop and merchant rows bump their own stamp on every update', async () => {
    const triggers = await triggersOn([...STAMPED_ROWS]);
    for (const table of STAMPED_ROWS) {
      const bumping = triggers.filter((trigger) => trigger.table_name === table && trigger.enabled !== 'D' && (trigger.type & UPDATE) !== 0 && bumpsOwnStamp(trigger.source));
      expect(bumping.map((trigger) => trigger.trigger_name), `${table}: no enabled trigger bumping its view stamp`).not.toEqual([]);
    }
  });

  it('the access read reads exactly the listed tables (a new one must be listed, and so checked above)', async () => {
    const statements = await accessReadStatements();
    expect(statements.length).toBeGreaterThan(0);
    const read = new Set(statements.flatMap((statement) => [...tablesIn(statement)]));
    expect([...read].sort()).toEqual([...TABLES_OF_KEPT_TERMS].sort());
  });

  it('the table parser finds tables in subqueries and joins, as the guard needs', () => {
    const found = tablesIn('select (select 1 from "a_b" where x) from "shops" inner join "merchants" on true left join (select * from "c") as d');
    expect([...found].sort()).toEqual(['a_b', 'c', 'merchants', 'shops']);
  });
});
