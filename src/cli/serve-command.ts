import type { Logger } from 'pino';
import type { Config } from '../platform/config.js';
import type { DatabaseHandle } from '../platform/database/database.js';
import { createLogger } from '../platform/logging.js';
import { parseCommandFlags } from './parse-command-flags.js';

export const SERVE_USAGE = `usage: ivory serve [--role all|api|worker]

Runs Ivory on the configured storage (PostgreSQL at DATABASE_URL, else
embedded PGlite under DATA_DIR), applying pending migrations first.
  --role all      the HTTP API, hosted pages and background workers (default)
  --role api      HTTP only: run workers in other processes (PostgreSQL)
  --role worker   background workers only, no HTTP listener
Stops gracefully on SIGTERM or SIGINT (Ctrl-C): in-flight requests and jobs
finish, storage closes, and the last log line says "ivory stopped".`;

const ROLES = ['all', 'api', 'worker'] as const;

/** Past this, a stop that hangs (a stuck request or job) ends the process anyway. */
const STOP_DEADLINE_MS = 20_000;

export async function serveCommand(loadConfig: () => Config | undefined, args: readonly string[]): Promise<number> {
  const parsed = parseCommandFlags('ivory serve', SERVE_USAGE, args, ['role']);
  if ('exitCode' in parsed) return parsed.exitCode;
  const role = parsed.values.role ?? 'all';
  if (!(ROLES as readonly string[]).includes(role)) {
    console.error('ivory serve: --role must be all, api or worker');
    return 2;
  }
  const config = loadConfig();
  if (config === undefined) return 2;
  const log = createLogger(config.logLevel);
  // Listening before start-up, so a signal during migrations stops cleanly once they are done
  // instead of killing the process halfway (and leaving the data directory's lock behind).
  const stopped = stopSignal(log);

  // Loaded here, not at the top: `ivory serve --help` needs none of it.
  const [{ buildApp }, { openConfiguredDatabase }, { migrate }] = await Promise.all([
    import('../app.js'),
    import('../platform/database/database.js'),
    import('../platform/database/migrate.js'),
  ]);
  const database = await openConfiguredDatabase(config);
  try {
    log.info(storage(config, database), `storage: ${database.kind === 'embedded' ? `PGlite (embedded) in ${config.dataDir}` : 'PostgreSQL'}`);
    if (database.kind === 'embedded') {
      log.warn(
        { dataDir: config.dataDir },
        'embedded storage (PGlite): data survives a process crash but not a power loss (no fsync); use DATABASE_URL with PostgreSQL in production',
      );
    }
    const applied = await migrate(database.db);
    log.info({ applied }, applied.length === 0 ? 'migrations: schema up to date' : `migrations: applied ${applied.length}`);

    const app = await buildApp({ config, database, runJobs: role !== 'api', log });
    let url: string | undefined;
    if (role !== 'worker') url = await app.server.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `listening on ${address}` });
    log.info({ role, url, publicUrl: config.publicUrl }, startedLine(role, url, config.publicUrl));

    const signal = await stopped;
    log.info({ signal }, 'stopping: finishing in-flight requests and jobs');
    const deadline = setTimeout(() => {
      log.error({ afterMs: STOP_DEADLINE_MS }, 'ivory stopped: forced, the graceful stop took too long');
      process.exit(1);
    }, STOP_DEADLINE_MS);
    deadline.unref();
    await app.close();
  } finally {
    await database.close();
  }
  log.info('ivory stopped');
  return 0;
}

/** The last start-up line: where everything is, and what to do next. */
export function startedLine(role: string, url: string | undefined, publicUrl: string): string {
  if (url === undefined) return `ivory started (role ${role}, no HTTP listener): workers running`;
  const root = publicUrl.replace(/\/+$/, '');
  return (
    `ivory started (role ${role}) on ${url}. API: ${root}/api/v1 · ` +
    `reference: ${root}/api/v1/openapi.json and docs/api-guide.md · try it: npx ivory demo (in another terminal)`
  );
}

/**
 * The first SIGTERM or SIGINT. Later ones are ignored: Ctrl-C under `npm start`
 * reaches the process twice (from the terminal and forwarded by npm), and the
 * default action of the second would kill it in the middle of its stop.
 */
function stopSignal(log: Logger): Promise<string> {
  return new Promise((resolve) => {
    let first: string | undefined;
    const on = (signal: string) => {
      if (first === undefined) {
        first = signal;
        resolve(signal);
      } else {
        log.debug({ signal }, 'already stopping');
      }
    };
    process.on('SIGTERM', () => on('SIGTERM'));
    process.on('SIGINT', () => on('SIGINT'));
  });
}

/** Where the data is, for the start-up log; never the credentials of a DATABASE_URL. */
function storage(config: Config, database: DatabaseHandle): Record<string, string> {
  if (database.kind === 'embedded') return { storage: 'pglite', dataDir: config.dataDir };
  const url = new URL(config.databaseUrl ?? '');
  return { storage: 'postgresql', database: `${url.protocol}//${url.host}${url.pathname}` };
}
