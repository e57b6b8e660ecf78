import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
import { ChainIdAsNumber } from './chain-id-plugin.js';
import { PGlitePool } from './pglite-pool.js';
import { PreparedStatementPool } from './prepared-statements.js';
import { isRetryableTransactionError } from './retry.js';
import { addLocalListener, listenPostgres, type ChannelListener, type Unlisten } from './notify.js';
import type { Db, Tx } from './executor.js';

export type { Db, Executor, Tx } from './executor.js';

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'embedded' | 'postgres';
  close(): Promise<void>;
  /**
   * Calls `listener` for every `notify(…, channel, …)` committed by any process
   * on this database (PostgreSQL: a dedicated LISTEN connection, reconnected
   * with backoff), and at once for those of this process. Embedded storage has
   * one process, so the local calls are all there is.
   */
  listen(channel: string, listener: ChannelListener): Promise<Unlisten>;
  /** Embedded only: the whole database as an image `openEmbedded` can start from. */
  dumpImage?(): Promise<Blob>;
}

// Both backends hand back numeric and int8 as strings (pg's default), so that
// money is never squeezed through a JS number; repositories make bigints.
const INT8 = 20;
const NUMERIC = 1700;
pg.types.setTypeParser(INT8, (value) => value);
pg.types.setTypeParser(NUMERIC, (value) => value);

/** How long a request waits for a database connection when the server is unreachable. */
const CONNECT_TIMEOUT_MS = 5_000;

export async function openPostgres(connectionString: string, poolSize = 10): Promise<DatabaseHandle> {
  // A server that is down must not hold requests until their clients give up: a new
  // connection waits at most this long, then the request is answered 503 `unavailable`.
  const pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
  // An idle client can lose its server (restart, failover, admin command); pg
  // then emits 'error' on the pool, which would crash the process unhandled.
  // The pool drops that client and the next query opens a fresh one.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PreparedStatementPool(pool) }), plugins: [new ChainIdAsNumber()] });
  return {
    db,
    kind: 'postgres',
    close: () => db.destroy(),
    listen: async (channel, listener) => {
      const remote = await listenPostgres(connectionString, channel, listener);
      const removeLocal = addLocalListener(db, channel, listener);
      return async () => {
        removeLocal();
        await remote();
      };
    },
  };
}

/** The storage the configuration names: PostgreSQL at `DATABASE_URL`, else embedded under `DATA_DIR`. */
export async function openConfiguredDatabase(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<DatabaseHandle> {
  return config.databaseUrl === undefined ? openEmbedded(config.dataDir) : openPostgres(config.databaseUrl);
}

/**
 * Embedded PostgreSQL (PGlite). `dataDir` undefined keeps everything in memory
 * (tests); `image` starts from a dump of another instance (a migrated template). On disk, a lock file refuses a second process on the same directory:
 * two PGlite instances over one data directory would corrupt it.
 */
export async function openEmbedded(dataDir?: string, image?: Blob): Promise<DatabaseHandle> {
  let unlock = () => {};
  let pgDir: string | undefined;
  if (dataDir !== undefined) {
    fs.mkdirSync(dataDir, { recursive: true });
    unlock = lockDataDir(dataDir);
    pgDir = path.join(dataDir, 'pgdata');
  }
  let pglite: PGlite;
  try {
    pglite = await PGlite.create({
      ...(pgDir === undefined ? {} : { dataDir: pgDir }),
      ...(image === undefined ? {} : { loadDataDir: image }),
      parsers: { [INT8]: (value: string) => value, [NUMERIC]: (value: string) => value },
    });
  } catch (error) {
    unlock();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }), plugins: [new ChainIdAsNumber()] });
  return {
    db,
    kind: 'embedded',
    dumpImage: () => pglite.dumpDataDir('none'),
    listen: async (channel, listener) => {
      const removeLocal = addLocalListener(db, channel, listener);
      return async () => removeLocal();
    },
    close: async () => {
      await db.destroy();
      await pglite.close();
      unlock();
    },
  };
}

/** Embedded storage is one process's: another one (a running server, most often) holds it. */
export class DataDirectoryInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: number,
  ) {
    super(`data directory ${dataDir} is in use by process ${holder}; embedded storage allows one process (use DATABASE_URL for several)`);
    this.name = 'DataDirectoryInUse';
  }
}

function lockDataDir(dataDir: string): () => void {
  const lockFile = path.join(dataDir, 'ivory.lock');
  const take = () => fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  try {
    take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const holder = Number(fs.readFileSync(lockFile, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && processIsAlive(holder)) {
      throw new DataDirectoryInUse(dataDir, holder);
    }
    fs.rmSync(lockFile, { force: true }); // left behind by a process that died
    take();
  }
  return () => fs.rmSync(lockFile, { force: true });
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `work` in one transaction, again from the start after a serialization
 * failure or deadlock, so clients never see those. `work` must therefore be
 * free of side effects outside the transaction.
 */
export async function inTransaction<T>(db: Db, work: (trx: Tx) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction().execute(work);
    } catch (error) {
      if (attempt >= attempts || !isRetryableTransactionError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
