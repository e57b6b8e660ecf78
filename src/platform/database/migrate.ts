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

export function migrationFiles(directory = MIGRATIONS_DIR): string[] {
  return fs
    .readdirSync(directory)
    .filter((name) => /^\d{12}_[a-z0-9_]+\.sql$/.test(name))
    .sort();
}

/** The migrations of `directory` the database has not applied (all of them on an empty database). */
export async function pendingMigrations(db: Db, directory = MIGRATIONS_DIR): Promise<string[]> {
  const files = migrationFiles(directory);
  const table = await sql<{ present: boolean }>`select to_regclass('schema_migrations') is not null as present`.execute(db);
  if (table.rows[0]?.present !== true) return files;
  const done = await sql<{ name: string }>`select name from schema_migrations`.execute(db);
  const applied = new Set(done.rows.map((row) => row.name));
  return files.filter((name) => !applied.has(name));
}

export async function migrate(db: Db, directory = MIGRATIONS_DIR): Promise<string[]> {
  await sql`create table if not exists schema_migrations (
    name text primary key,
    applied_at timestamptz not null default now()
  )`.execute(db);
  const applied: string[] = [];
  // Only the pending ones take a transaction each (a restart runs none); the check
  // under the lock below still stops two starting processes applying one twice.
  for (const name of await pendingMigrations(db, directory)) {
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
