import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

// The handles every repository takes, apart from `database.ts` (which opens them and
// re-exports these types) so that what it imports, `notify.ts`, can name them without a cycle.

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Either the database or an open transaction: repositories accept both. */
export type Executor = Db | Tx;
