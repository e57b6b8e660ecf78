import type { SelectQueryBuilder } from 'kysely';
import type { Database } from './schema.js';

/**
 * The number of rows a filtered `selectFrom` matches (`count(*)`, which
 * PostgreSQL returns as int8 text). Repositories state only the filter:
 * `countRows(db.selectFrom('shops').where(…))`.
 */
export async function countRows<TB extends keyof Database>(query: SelectQueryBuilder<Database, TB, object>): Promise<number> {
  const row = await query.select((eb) => eb.fn.countAll<string>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}
