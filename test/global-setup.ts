import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openEmbedded, openPostgres } from '../src/platform/database/database.js';
import { migrate } from '../src/platform/database/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTemplate: string | null;
    pgliteImage: string | null;
  }
}

/**
 * Migrates one template database once per run; each test file then gets its
 * own database cloned from it: with TEST_DATABASE_URL a PostgreSQL database
 * (`CREATE DATABASE … TEMPLATE`), otherwise an in-memory PGlite started from
 * a dump of the migrated template (much faster than initdb + migrations).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Tests of the shipped program (the CLI, `ivory contracts deploy`) run dist/: build it once,
  // here, so no two test files write it at the same time; skipped when src/ has not changed since the last build.
  execFileSync(process.execPath, ['scripts/build-if-changed.mjs'], { cwd: path.resolve(import.meta.dirname, '..'), stdio: 'inherit' });
  const url = process.env.TEST_DATABASE_URL;
  if (url === undefined || url === '') {
    const template = await openEmbedded();
    await migrate(template.db);
    const image = await template.dumpImage?.();
    await template.close();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ivory-test-')), 'template.tar');
    fs.writeFileSync(file, Buffer.from(await (image as Blob).arrayBuffer()));
    project.provide('postgresTemplate', null);
    project.provide('pgliteImage', file);
    return async () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }

  const template = `ivory_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${template}`);
  await admin.query(`create database ${template}`);
  const handle = await openPostgres(withDatabase(url, template), 2);
  await migrate(handle.db);
  await handle.close();
  project.provide('postgresTemplate', template);
  project.provide('pgliteImage', null);

  return async () => {
    const leftovers = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'ivory_t_${process.pid}_%' or datname = $1`,
      [template],
    );
    for (const { datname } of leftovers.rows) {
      await admin.query(`drop database if exists ${datname} with (force)`);
    }
    await admin.end();
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
