import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledOnce, compiledTemplate } from '../../src/platform/database/compiled-query.js';
import { inTransaction, openPostgres, type DatabaseHandle } from '../../src/platform/database/database.js';
import { freshDatabase, lastingDatabase } from '../support/database.js';

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

  interface Probe {
    readonly label: string;
    readonly when: Date;
    readonly amount: bigint;
    readonly flags: { readonly on: boolean; readonly note: string | null };
    readonly bytes: Buffer;
  }
  const probe = compiledTemplate((executor, input: Probe) =>
    executor.selectNoFrom([
      sql<string>`${input.label}::text`.as('label'),
      sql<string>`${input.when}::timestamptz`.as('when'),
      sql<string>`(${input.amount}::numeric + ${1})::text`.as('amount'),
      sql<boolean>`${input.flags.on}::boolean`.as('on'),
      sql<string | null>`${input.flags.note}::text`.as('note'),
      sql<number>`octet_length(${input.bytes}::bytea)`.as('length'),
      sql<string>`${input.label}::text || '!'`.as('again'),
    ]),
  );

  it('a template compiled once per shape runs with each input’s nested values of any type (compiledTemplate)', async () => {
    const first = { label: 'one', when: new Date('2026-01-02T03:04:05Z'), amount: 10n ** 30n, flags: { on: true, note: null }, bytes: Buffer.from('abc') };
    const second = { label: 'two', when: new Date('2027-01-01T00:00:00Z'), amount: 7n, flags: { on: false, note: 'n' }, bytes: Buffer.from('abcdef') };
    for (const [input, amount] of [
      [first, `${10n ** 30n + 1n}`],
      [second, '8'],
      [first, `${10n ** 30n + 1n}`],
    ] as const) {
      const [row] = await probe(database.db, 'only', input);
      expect(row).toMatchObject({ label: input.label, amount, on: input.flags.on, note: input.flags.note, length: input.bytes.length, again: `${input.label}!` });
      expect(new Date(row!.when).getTime()).toBe(input.when.getTime());
    }
  });

  it('a template whose build changes a value instead of passing it through is refused on its first run', async () => {
    const formatting = compiledTemplate((executor, input: { readonly label: string }) => executor.selectNoFrom([sql<string>`${input.label.toUpperCase()}::text`.as('label')]));
    await expect(formatting(database.db, 'only', { label: 'x' })).rejects.toThrow(/must pass each value of its input to Kysely unchanged/);
    const branching = compiledTemplate((executor, input: { readonly mode: string }) =>
      executor.selectNoFrom([(input.mode === 'a' ? sql<number>`1` : sql<number>`2`).as('n')]),
    );
    await expect(branching(database.db, 'only', { mode: 'a' })).rejects.toThrow(/unchanged/);
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

  it.skipIf(!onPostgres)(
    'a statement prepared before a migration changed its columns is prepared again: at once outside a transaction, by inTransaction running it again inside one',
    async () => {
      const storage = await lastingDatabase();
      // One connection, so that every statement below meets the one prepared before.
      const single = await openPostgres(storage.url!, 1);
      try {
        const db = single.db;
        await sql`create table stale_plan_probe (id int primary key, a text not null)`.execute(db);
        await sql`insert into stale_plan_probe values (1, 'x')`.execute(db);
        const read = (executor: typeof db) => sql<Record<string, unknown>>`select * from stale_plan_probe where id = ${1}`.execute(executor);
        expect((await read(db)).rows).toEqual([{ id: 1, a: 'x' }]);

        await sql`alter table stale_plan_probe add column b text not null default 'y'`.execute(db);
        expect((await read(db)).rows).toEqual([{ id: 1, a: 'x', b: 'y' }]);

        await sql`alter table stale_plan_probe add column c text not null default 'z'`.execute(db);
        let attempts = 0;
        const inside = await inTransaction(db, async (trx) => {
          attempts += 1;
          return (await read(trx)).rows;
        });
        expect(inside).toEqual([{ id: 1, a: 'x', b: 'y', c: 'z' }]);
        expect(attempts).toBe(2);
      } finally {
        await single.close();
        await storage.drop();
      }
    },
  );
});

