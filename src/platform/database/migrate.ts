import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Db } from './database.js';

/**
 * Plain SQL migrations from `migrations/`, named `YYYYMMDDHHMM_what.sql`,
 * applied in name order, each in its own transaction, each once. A
 * transaction-scoped advisory lock keeps two starting processes from racing.
 * Never edit a migration once merged: add a new one.
 */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url));

const MIGRATION_LOCK = 7_201_626_001;

export async function migrate(db: Db, directory = MIGRATIONS_DIR): Promise<string[]> {
  const files = fs
    .readdirSync(directory)
    .filter((name) => /^\d{12}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
  await sql`create table if not exists schema_migrations (
    name text primary key,
    applied_at timestamptz not null default now()
  )`.execute(db);
  const applied: string[] = [];
  for (const name of files) {
    const text = fs.readFileSync(`${directory}/${name}`, 'utf8');
    const ran = await db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
      const done = await sql<{ name: string }>`select name from schema_migrations where name = ${name}`.execute(trx);
      if (done.rows.length > 0) return false;
      await sql.raw(text).execute(trx);
      await sql`insert into schema_migrations (name) values (${name})`.execute(trx);
      return true;
    });
    if (ran) applied.push(name);
  }
  return applied;
}
