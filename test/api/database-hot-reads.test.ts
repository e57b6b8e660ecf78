import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce } from '../../src/platform/database/compiled-query.js';
import type { DatabaseHandle } from '../../src/platform/database/database.js';
import { freshDatabase } from '../support/database.js';

// Issue 13 item 1 (hot paths): the hot reads are compiled by Kysely once and run
// with new values (`compiledOnce`); on PostgreSQL every statement with parameters
// is a named prepared statement, so it is parsed (and usually planned) once per connection.

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe('hot reads', () => {
  let database: DatabaseHandle;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  const currencyByPair = compiledOnce(2, (executor, first, second) =>
    executor.selectNoFrom([sql<string>`${first}::text || '/' || ${second}::text || '/' || ${first}::text`.as('pair')]),
  );

  it('a query compiled once answers each call with that call’s values, every placeholder occurrence replaced', async () => {
    expect(await currencyByPair(database.db, 'USDC', 'Base')).toEqual([{ pair: 'USDC/Base/USDC' }]);
    expect(await currencyByPair(database.db, 'USDT', 'Tron')).toEqual([{ pair: 'USDT/Tron/USDT' }]);
  });

  it('refuses a call with the wrong number of values, and a build that does not use a placeholder as a value', async () => {
    await expect(currencyByPair(database.db, 'USDC')).rejects.toThrow(/2 values expected/);
    const unused = compiledOnce(1, (executor) => executor.selectNoFrom([sql<number>`1`.as('one')]));
    await expect(unused(database.db, 'x')).rejects.toThrow(/placeholder 0 is not a parameter/);
  });

  it.skipIf(!onPostgres)('on PostgreSQL, a statement with parameters is prepared by name and reused; one without stays unnamed', async () => {
    await database.db.transaction().execute(async (trx) => {
      const marker = `hot-read-${Date.now()}`;
      for (let run = 0; run < 3; run += 1) await sql`select ${marker}::text as marker`.execute(trx);
      await sql`select 'no parameters' as marker`.execute(trx);
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(trx);
      const mine = prepared.rows.filter((row) => row.statement.includes('as marker'));
      expect(mine).toHaveLength(1);
      expect(mine[0]!.name).toMatch(/^ivory_[A-Za-z0-9_-]{22}$/);
    });
  });
});
