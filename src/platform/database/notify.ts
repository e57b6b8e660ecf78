import { sql } from 'kysely';
import pg from 'pg';
import type { Db, Executor } from './executor.js';

/** What a `listen` subscriber is told: a payload, or that notifications may have been missed. */
export interface ChannelListener {
  onMessage(payload: string): void;
  /** After a reconnect of the listening connection: anything sent meanwhile is lost. */
  onGap(): void;
}

export type Unlisten = () => Promise<void>;

// Listeners of this process, per database (the Kysely adapter is one object per
// Kysely instance and shared by its transactions), so that a writer's own
// process reacts before its response leaves, without waiting for the server's
// asynchronous delivery; two apps on two handles in one process stay apart.
const localListeners = new WeakMap<object, Map<string, Set<ChannelListener>>>();

function identity(db: Executor): object {
  return db.getExecutor().adapter;
}

/**
 * `NOTIFY channel, payload` in `db`'s transaction (PostgreSQL delivers it to
 * every listening connection at commit, not at all on rollback), and the
 * listeners of this process on the same database are told at once. Telling
 * them before the commit is safe only for invalidation: a reader refilling
 * from the old row meanwhile is corrected by the delivery at commit.
 */
export async function notify(db: Executor, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
  for (const listener of localListeners.get(identity(db))?.get(channel) ?? []) listener.onMessage(payload);
}

export function addLocalListener(db: Db, channel: string, listener: ChannelListener): () => void {
  let channels = localListeners.get(identity(db));
  if (channels === undefined) {
    channels = new Map();
    localListeners.set(identity(db), channels);
  }
  let set = channels.get(channel);
  if (set === undefined) {
    set = new Set();
    channels.set(channel, set);
  }
  set.add(listener);
  const registered = set;
  return () => {
    registered.delete(listener);
  };
}

const RECONNECT_MIN_MS = 100;
const RECONNECT_MAX_MS = 5_000;

/**
 * LISTEN on a dedicated connection that is not part of the pool (a pooled
 * connection would be handed to queries and lose its LISTEN). A lost
 * connection is opened again with backoff; `onGap` is called on each
 * reconnect, since notifications sent meanwhile are gone.
 */
export async function listenPostgres(connectionString: string, channel: string, listener: ChannelListener): Promise<Unlisten> {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = RECONNECT_MIN_MS;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString });
    next.on('notification', (message) => {
      if (message.channel === channel) listener.onMessage(message.payload ?? '');
    });
    next.on('error', () => reconnect(next));
    next.on('end', () => reconnect(next));
    await next.connect();
    await next.query(`listen ${pg.escapeIdentifier(channel)}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    delay = RECONNECT_MIN_MS;
  };

  const reconnect = (lost: pg.Client): void => {
    if (closed || client !== lost) return;
    client = undefined;
    lost.end().catch(() => {});
    listener.onGap();
    schedule();
  };

  const schedule = (): void => {
    timer = setTimeout(() => {
      timer = undefined;
      if (closed) return;
      connect().then(
        () => listener.onGap(),
        () => {
          delay = Math.min(delay * 2, RECONNECT_MAX_MS);
          schedule();
        },
      );
    }, delay);
    timer.unref();
  };

  await connect();
  return async () => {
    closed = true;
    if (timer !== undefined) clearTimeout(timer);
    const open = client;
    client = undefined;
    await open?.end().catch(() => {});
  };
}
