import type { Config } from '../platform/config.js';
import { openConfiguredDatabase } from '../platform/database/database.js';
import { migrate } from '../platform/database/migrate.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const MIGRATE_USAGE = `usage: ivory migrate

Applies the database migrations that are not applied yet to the configured
storage (PostgreSQL at DATABASE_URL, else embedded under DATA_DIR) and exits.
\`ivory serve\` does the same at start; this runs it alone, before a deploy.`;

export async function migrateCommand(loadConfig: () => Config | undefined, args: readonly string[]): Promise<number> {
  const parsed = parseCommandFlags('ivory migrate', MIGRATE_USAGE, args, []);
  if ('exitCode' in parsed) return parsed.exitCode;
  const config = loadConfig();
  if (config === undefined) return 2;
  const database = await openConfiguredDatabase(config);
  try {
    const applied = await migrate(database.db);
    console.log(applied.length === 0 ? 'database is up to date' : `applied: ${applied.join(', ')}`);
    return 0;
  } finally {
    await database.close();
  }
}
