/* global process */
// The benchmark's baseline (issue "Platform" item 12): a bare Fastify server on
// the same storage kind as the app, through the same driver stack (the
// product's openEmbedded/openPostgres and Kysely), with one primary-key SELECT
// and one INSERT in a transaction. Not part of the product; lives only in bench/.
//
// Run as a child of bench/run.mjs (fork with IPC): it answers
// { type: 'ready', url, kind } once listening and exits when the parent goes.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { sql } from 'kysely';
import { openEmbedded, openPostgres } from '../dist/platform/database/database.js';

const SEED_ROWS = 1000;

/**
 * Opens its own database (PGlite in `dataDir`, or the `bench_items` table of
 * the PostgreSQL database at `databaseUrl`), seeds it and listens on a free
 * loopback port.
 */
export async function startBaseline({ databaseUrl, dataDir }) {
  const database = databaseUrl ? await openPostgres(databaseUrl) : await openEmbedded(dataDir);
  const { db } = database;
  await sql`drop table if exists bench_items`.execute(db);
  await sql`create table bench_items (id uuid primary key, value text not null)`.execute(db);
  const ids = Array.from({ length: SEED_ROWS }, () => randomUUID());
  for (let start = 0; start < ids.length; start += 250) {
    const rows = ids.slice(start, start + 250).map((id) => ({ id, value: `seed ${id}` }));
    await db.insertInto('bench_items').values(rows).execute();
  }

  const server = Fastify({ logger: false });
  server.get('/read/:id', async (request, reply) => {
    const row = await db.selectFrom('bench_items').select(['id', 'value']).where('id', '=', request.params.id).executeTakeFirst();
    if (row === undefined) return reply.status(404).send({ error: { code: 'not_found', message: 'not_found' } });
    return row;
  });
  server.post('/write', async (request, reply) => {
    const id = randomUUID();
    await db.transaction().execute((trx) => trx.insertInto('bench_items').values({ id, value: JSON.stringify(request.body ?? null) }).execute());
    return reply.status(201).send({ id });
  });
  await server.listen({ host: '127.0.0.1', port: 0 });
  const { port } = server.server.address();

  return {
    url: `http://127.0.0.1:${port}`,
    kind: database.kind,
    ids,
    async close() {
      await server.close();
      await database.close();
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseline = await startBaseline({ databaseUrl: process.env.BENCH_DATABASE_URL || undefined, dataDir: process.env.BENCH_BASELINE_DIR });
  const stop = async () => {
    await baseline.close();
    process.exit(0);
  };
  process.on('disconnect', stop);
  process.on('SIGTERM', stop);
  process.on('message', (message) => {
    if (message?.type === 'stop') void stop();
  });
  process.send?.({ type: 'ready', url: baseline.url, kind: baseline.kind, ids: baseline.ids });
}
