import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * Hands the single PGlite session to one holder at a time, from acquire to
 * release, behind a FIFO queue. PGlite is one database session: without the
 * queue, two Kysely transactions would interleave their statements in the same
 * session and `FOR UPDATE` would protect nothing (see ARCHITECTURE "Storage
 * traps"; the "storage" tests of `test/api/platform-core.test.ts` keep the proof).
 */
export class PGlitePool implements PostgresPool {
  readonly options = {};
  readonly #database: PGlite;
  readonly #waiting: Array<() => void> = [];
  #held = false;

  constructor(database: PGlite) {
    this.#database = database;
  }

  async connect(): Promise<PostgresPoolClient> {
    if (this.#held) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    }
    this.#held = true;
    let released = false;
    const database = this.#database;
    const client = {
      query: async (sql: string, parameters: readonly unknown[]) => {
        // Like pg, a query without parameters goes by the simple protocol, which
        // allows several statements (migrations); the last result is the answer.
        const result =
          parameters.length === 0
            ? ((await database.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 })
            : await database.query<Record<string, unknown>>(sql, parameters as unknown[]);
        return {
          command: commandOf(sql),
          rowCount: result.affectedRows ?? result.rows.length,
          rows: result.rows,
        } satisfies PostgresQueryResult<Record<string, unknown>>;
      },
      release: () => {
        if (released) return;
        released = true;
        this.#release();
      },
    };
    // Kysely's client type also covers cursors, which Ivory never uses.
    return client as unknown as PostgresPoolClient;
  }

  async end(): Promise<void> {
    // The owner closes the PGlite instance itself.
  }

  #release(): void {
    const next = this.#waiting.shift();
    if (next === undefined) {
      this.#held = false;
    } else {
      next(); // ownership passes straight to the next holder
    }
  }
}

function commandOf(sql: string): PostgresQueryResult<unknown>['command'] {
  const match = /^\s*(?:with\b[\s\S]*?\)\s*)?(insert|update|delete|merge|select)\b/i.exec(sql);
  const word = (match?.[1] ?? sql.trim().split(/\s+/, 1)[0] ?? '').toUpperCase();
  return word as PostgresQueryResult<unknown>['command'];
}
