import { sql } from 'kysely';
import type { FastifyBaseLogger } from 'fastify';
import type { Job } from '../jobs.js';
import type { Db } from './database.js';

/** A table's size now against the size its statistics were taken at. */
export interface TableSize {
  readonly name: string;
  /** Pages now. */
  readonly pages: number;
  /** Pages when last analyzed or vacuumed (`pg_class.relpages`). */
  readonly analyzedPages: number;
  /** Whether it was ever analyzed or vacuumed (`pg_class.reltuples >= 0`). */
  readonly analyzed: boolean;
}

/** Below this a table's plans do not depend on its statistics. */
const SMALL_TABLE_PAGES = 8;
/** Autovacuum's default `autovacuum_analyze_scale_factor` (0.1), in pages and a little coarser. */
const GROWTH_BEFORE_ANALYZE = 0.2;
/** Every table is vacuumed once in this long (PostgreSQL's vacuum skips the pages it knows are clean). */
const VACUUM_EVERY_MS = 60 * 60 * 1000;

/**
 * The tables whose statistics no longer describe them: never analyzed and no
 * longer small, or grown by a fifth in pages since. The same rule autovacuum's
 * analyze threshold applies to changed rows, read from sizes, which is all the
 * embedded engine counts.
 */
export function tablesToAnalyze(tables: readonly TableSize[]): string[] {
  return tables
    .filter((table) => table.pages >= SMALL_TABLE_PAGES)
    .filter((table) => !table.analyzed || table.pages > table.analyzedPages * (1 + GROWTH_BEFORE_ANALYZE))
    .map((table) => table.name);
}

/**
 * Autovacuum for the embedded backend (decision 0040). PGlite is PostgreSQL in
 * one process with no background workers: nothing analyzes or vacuums unless
 * Ivory does. Without it every plan is made from "never analyzed" guesses —
 * at 50,000 transfers the ledger's due-rows claim sorted 20,000 rows on disk
 * instead of reading 200 in index order — and updated rows are never reclaimed.
 *
 * Each run looks at every table's size (one catalog read) and analyzes those
 * that grew; once an hour it vacuums each table, one table a run, so the one
 * connection is never held for long. It never counts as work done, so `drain()`
 * in tests does not wait on it; it checks at most once per `idleMs`, whoever calls.
 */
export class EmbeddedMaintenanceJob implements Job {
  readonly name = 'embedded-maintenance';
  readonly idleMs: number;
  readonly #vacuumEveryMs: number;
  readonly #db: Db;
  readonly #log: FastifyBaseLogger;
  readonly #vacuumed = new Map<string, number>();
  readonly #startedAt = performance.now();
  #checkedAt = Number.NEGATIVE_INFINITY;

  constructor(deps: { readonly db: Db; readonly log: FastifyBaseLogger; readonly checkEveryMs?: number; readonly vacuumEveryMs?: number }) {
    this.#db = deps.db;
    this.#log = deps.log;
    this.idleMs = deps.checkEveryMs ?? 10_000;
    this.#vacuumEveryMs = deps.vacuumEveryMs ?? VACUUM_EVERY_MS;
  }

  async run(): Promise<number> {
    // drain() in tests calls every job in a loop: check at the job's own pace whoever calls.
    if (performance.now() - this.#checkedAt < this.idleMs) return 0;
    this.#checkedAt = performance.now();
    const tables = await readTableSizes(this.#db);
    for (const name of tablesToAnalyze(tables)) {
      const started = performance.now();
      await sql`analyze ${sql.table(name)}`.execute(this.#db);
      this.#log.debug({ table: name, ms: Math.round(performance.now() - started) }, 'embedded database: table analyzed');
    }
    // Monotonic time, not the app clock: tests move that one by days.
    const now = performance.now();
    const lastVacuum = (table: TableSize) => this.#vacuumed.get(table.name) ?? this.#startedAt;
    const due = tables.filter((table) => now - lastVacuum(table) >= this.#vacuumEveryMs).sort((a, b) => lastVacuum(a) - lastVacuum(b))[0];
    if (due !== undefined) {
      const started = performance.now();
      await sql`vacuum ${sql.table(due.name)}`.execute(this.#db);
      this.#vacuumed.set(due.name, performance.now());
      this.#log.debug({ table: due.name, ms: Math.round(performance.now() - started) }, 'embedded database: table vacuumed');
    }
    return 0;
  }
}

async function readTableSizes(db: Db): Promise<TableSize[]> {
  const { rows } = await sql<{ name: string; pages: number; analyzed_pages: number; analyzed: boolean }>`
    select c.relname as name,
      (pg_relation_size(c.oid) / current_setting('block_size')::int)::int as pages,
      c.relpages as analyzed_pages,
      c.reltuples >= 0 as analyzed
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind = 'r'
    order by c.relname`.execute(db);
  return rows.map((row) => ({ name: row.name, pages: Number(row.pages), analyzedPages: Number(row.analyzed_pages), analyzed: row.analyzed }));
}
