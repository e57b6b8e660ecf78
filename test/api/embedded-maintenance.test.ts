import fs from 'node:fs';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { openEmbedded, type DatabaseHandle } from '../../src/platform/database/database.js';
import { EmbeddedMaintenanceJob, tablesToAnalyze } from '../../src/platform/database/embedded-maintenance.js';
import { migrate } from '../../src/platform/database/migrate.js';

// Decision 0040: PGlite has no autovacuum, so Ivory analyzes tables that grew and
// vacuums each table in turn. Always on PGlite: the job runs only on the embedded backend.

let database: DatabaseHandle;
const logged: { table: string; ms: number; message: string }[] = [];
const log = {
  debug: (details: { table: string; ms: number }, message: string) => logged.push({ ...details, message }),
  error: () => undefined,
} as unknown as ConstructorParameters<typeof EmbeddedMaintenanceJob>[0]['log']; // only debug is called

beforeAll(async () => {
  // The migrated image exists only when the suite runs on PGlite; on PostgreSQL, migrate one here.
  const image = inject('pgliteImage');
  database = await openEmbedded(undefined, image === null ? undefined : new Blob([fs.readFileSync(image)]));
  await migrate(database.db);
  await sql`create table maintenance_probe (id int primary key, filler text not null)`.execute(database.db);
});
afterAll(async () => {
  await database.close();
});

async function grow(from: number, to: number) {
  await sql`insert into maintenance_probe select g, repeat('x', 200) from generate_series(${from}::int, ${to}::int) g`.execute(database.db);
}

async function probeStatistics() {
  const { rows } = await sql<{ relpages: number; reltuples: number }>`
    select relpages, reltuples from pg_class where relname = 'maintenance_probe'`.execute(database.db);
  return rows[0]!;
}

const analyzedProbe = () => logged.filter((entry) => entry.table === 'maintenance_probe' && entry.message.includes('analyzed')).length;

describe('embedded maintenance (decision 0040)', () => {
  it('which tables are analyzed: small ones never; never analyzed and no longer small; grown by more than a fifth in pages', () => {
    expect(
      tablesToAnalyze([
        { name: 'tiny', pages: 7, analyzedPages: 0, analyzed: false },
        { name: 'never', pages: 8, analyzedPages: 0, analyzed: false },
        { name: 'steady', pages: 120, analyzedPages: 100, analyzed: true },
        { name: 'grown', pages: 121, analyzedPages: 100, analyzed: true },
        { name: 'shrunk', pages: 50, analyzedPages: 100, analyzed: true },
      ]),
    ).toEqual(['never', 'grown']);
  });

  it('analyzes a table that grew, once, and again only after it grows by a fifth; never counts as work', async () => {
    const job = new EmbeddedMaintenanceJob({ db: database.db, log, checkEveryMs: 0 });
    await grow(1, 3_000);
    expect((await probeStatistics()).reltuples).toBeLessThan(0); // never analyzed

    expect(await job.run()).toBe(0);
    const first = await probeStatistics();
    expect(first.reltuples).toBe(3_000);
    expect(analyzedProbe()).toBe(1);

    expect(await job.run()).toBe(0);
    await grow(3_001, 3_300); // +10 %: not yet
    expect(await job.run()).toBe(0);
    expect(analyzedProbe()).toBe(1);

    await grow(3_301, 4_500); // +50 % since the analyze
    expect(await job.run()).toBe(0);
    expect(analyzedProbe()).toBe(2);
    expect((await probeStatistics()).reltuples).toBe(4_500);
  });

  it('vacuums one table a run, the longest unvacuumed first', async () => {
    const job = new EmbeddedMaintenanceJob({ db: database.db, log, checkEveryMs: 0, vacuumEveryMs: 0 });
    const tables = (await sql<{ relname: string }>`select relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind = 'r' order by relname`.execute(database.db)).rows.map((row) => row.relname);
    const vacuumed = () => logged.filter((entry) => entry.message.includes('vacuumed')).map((entry) => entry.table);
    for (let run = 0; run < tables.length; run += 1) await job.run();
    expect(vacuumed()).toEqual(tables); // each once, in turn
    await job.run();
    expect(vacuumed().at(-1)).toBe(tables[0]); // then round again
    const { rows } = await sql<{ last_vacuum: Date | null }>`select last_vacuum from pg_stat_user_tables where relname = 'maintenance_probe'`.execute(database.db);
    expect(rows[0]!.last_vacuum).not.toBeNull(); // by the engine's own record
  });

  it('checks at most once per interval, however often it is run (drain() runs every job in a loop)', async () => {
    const job = new EmbeddedMaintenanceJob({ db: database.db, log, checkEveryMs: 60_000 });
    await grow(-5_999, 0); // +133 %
    const before = analyzedProbe();
    expect(await job.run()).toBe(0);
    expect(analyzedProbe()).toBe(before + 1);
    await grow(-29_999, -6_000); // fivefold
    expect(await job.run()).toBe(0);
    expect(analyzedProbe()).toBe(before + 1); // within the minute: not looked at
  });
});
