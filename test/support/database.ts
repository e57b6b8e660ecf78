import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openEmbedded, openPostgres, type DatabaseHandle, type Executor } from '../../src/platform/database/database.js';
import type { Database } from '../../src/platform/database/schema.js';
import { migrate } from '../../src/platform/database/migrate.js';
import { withDatabase } from '../global-setup.js';

/**
 * A fresh database for one test file: in-memory PGlite, or with
 * TEST_DATABASE_URL a PostgreSQL database cloned from the migrated template.
 */
export async function freshDatabase(): Promise<DatabaseHandle> {
  const url = process.env.TEST_DATABASE_URL;
  const template = inject('postgresTemplate');
  if (url === undefined || url === '' || template === null) {
    const image = inject('pgliteImage');
    if (image === null) throw new Error('test/global-setup.ts did not provide a PGlite image');
    const handle = await openEmbedded(undefined, new Blob([fs.readFileSync(image)]));
    await migrate(handle.db); // a no-op on the migrated image; keeps the contract explicit
    return handle;
  }
  const name = `ivory_t_${process.ppid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const handle = await openPostgres(withDatabase(url, name), 10);
  return {
    db: handle.db,
    kind: 'postgres',
    listen: handle.listen,
    close: async () => {
      await handle.close();
      const cleanup = new pg.Client({ connectionString: url });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/**
 * Storage that outlives the handles opened on it, so that an app (or two
 * processes) can stop and start again on the same data: a PGlite data
 * directory, or with TEST_DATABASE_URL a PostgreSQL clone of the migrated
 * template. `url` is the PostgreSQL address (null on PGlite).
 */
export interface LastingDatabase {
  readonly url: string | null;
  open(): Promise<DatabaseHandle>;
  drop(): Promise<void>;
}

export async function lastingDatabase(): Promise<LastingDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  const template = inject('postgresTemplate');
  if (base === undefined || base === '' || template === null) {
    const image = inject('pgliteImage');
    if (image === null) throw new Error('test/global-setup.ts did not provide a PGlite image');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-lasting-'));
    let loaded = false;
    return {
      url: null,
      async open() {
        // The migrated image seeds the directory once; later opens read what was written.
        const handle = await openEmbedded(dir, loaded ? undefined : new Blob([fs.readFileSync(image)]));
        loaded = true;
        return handle;
      },
      async drop() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const name = `ivory_t_${process.ppid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(base, name);
  return {
    url,
    open: () => openPostgres(url, 10),
    async drop() {
      const cleanup = new pg.Client({ connectionString: base });
      await cleanup.connect();
      await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

export const usingPostgres = (): boolean => inject('postgresTemplate') !== null;

/** How many rows a table holds now (to show that a refused request stored nothing). */
export async function countRows(db: Executor, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
