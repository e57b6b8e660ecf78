import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { isStalePreparedStatement } from './retry.js';

/**
 * Most statements are sent as named prepared statements, so PostgreSQL parses
 * each query text once per connection and, for the simple indexed reads of
 * the hot paths, plans it once too (its plan cache chooses a generic plan
 * after a few executions). Unnamed, every execution is parsed and planned
 * again: for the checkout read (four tables and a subquery) planning alone
 * cost four times the execution. docs/decisions/0019-hot-paths-and-replays.md.
 *
 * Only statements with parameters are named: pg sends those by the extended
 * protocol anyway, while a text without parameters goes by the simple
 * protocol, which allows several statements (migrations) and cannot be
 * prepared. Kysely builds the same text for the same query shape, so the
 * number of distinct texts is that of the app's queries; the names are capped
 * all the same (queries past the cap simply go unnamed), because each name
 * holds a statement on every connection of the pool.
 */
export const MAX_PREPARED_STATEMENTS = 2_000;

export class PreparedStatementPool implements PostgresPool {
  readonly #pool: pg.Pool;
  readonly #names = new Map<string, string>();
  #renames = 0;
  /** One wrapper per connection: Kysely keeps its per-connection state keyed by the client object. */
  readonly #clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  get options(): object {
    return this.#pool.options;
  }

  async connect(): Promise<PostgresPoolClient> {
    const client = await this.#pool.connect();
    let wrapped = this.#clients.get(client);
    if (wrapped === undefined) {
      // pg-pool listens for errors on idle clients only: a checked-out one whose server goes
      // away between two queries would emit 'error' unheard and crash the process. The
      // next query on it fails instead (answered 503 `unavailable`), and the pool drops it on release.
      client.on('error', () => {});
      const send = (text: string, values: readonly unknown[]) => {
        const name = values.length === 0 ? undefined : this.#nameOf(text);
        return client.query(name === undefined ? { text, values: [...values] } : { name, text, values: [...values] });
      };
      const query = async (text: string, values: readonly unknown[]) => {
        try {
          return await send(text, values);
        } catch (error) {
          if (!isStalePreparedStatement(error)) throw error;
          // Prepared before a migration changed its result columns: prepare it
          // again under a new name. Outside a transaction the retry answers; inside
          // one it cannot (the transaction is aborted), so the first error is
          // thrown and `inTransaction` runs the transaction again.
          this.#rename(text);
          try {
            return await send(text, values);
          } catch {
            throw error;
          }
        }
      };
      // Kysely's client type also covers cursors, which Ivory never uses.
      wrapped = { query, release: (error?: Error | boolean) => client.release(error) } as unknown as PostgresPoolClient;
      this.#clients.set(client, wrapped);
    }
    return wrapped;
  }

  end(): Promise<void> {
    return this.#pool.end();
  }

  #nameOf(text: string): string | undefined {
    const known = this.#names.get(text);
    if (known !== undefined || this.#names.size >= MAX_PREPARED_STATEMENTS) return known;
    const name = `ivory_${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
    this.#names.set(text, name);
    return name;
  }

  /** A new name for a text whose statement went stale; the old one stays on each connection until it closes (once per schema change). */
  #rename(text: string): void {
    const current = this.#names.get(text);
    if (current === undefined) return;
    this.#renames += 1;
    this.#names.set(text, `${current.split('~')[0]}~${this.#renames}`);
  }
}
