import type { Db } from '../database/database.js';
import { pendingMigrations } from '../database/migrate.js';
import type { IvoryServer } from './server.js';

/** How long /readyz waits for the database before calling it unreachable. */
const READY_TIMEOUT_MS = 2_000;

/**
 * `GET /healthz` (the process answers; SPEC "Public") and `GET /readyz` (it can
 * do its work: the database answers and every migration this build ships is
 * applied), both outside the versioned path, for probes and load balancers.
 */
export async function healthRoutes(app: IvoryServer, options: { readonly db: Db }): Promise<void> {
  app.get('/healthz', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
    let pending: string[];
    try {
      pending = await withTimeout(pendingMigrations(options.db), READY_TIMEOUT_MS);
    } catch (error) {
      request.log.warn({ err: error }, 'readyz: the database does not answer');
      return reply.status(503).send({ status: 'unavailable', reason: 'database_unreachable' });
    }
    if (pending.length > 0) return reply.status(503).send({ status: 'unavailable', reason: 'migrations_pending', pending });
    return { status: 'ready' };
  });
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
