import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp, type BuildOptions, type IvoryApp } from '../../src/app.js';
import { ManualClock, type Clock } from '../../src/platform/clock.js';
import { loadConfig } from '../../src/platform/config.js';
import { freshDatabase } from './database.js';

export const TEST_SECRET_KEY = '11'.repeat(32);

export interface TestApp extends IvoryApp {
  readonly clock: ManualClock;
  request(options: InjectOptions): Promise<LightMyRequestResponse>;
}

/**
 * The real app on a fresh database (PGlite in memory, or a PostgreSQL clone
 * with TEST_DATABASE_URL), a manual clock and jobs that tests drain by hand.
 * Rate limits are off unless `env` turns them on. `liveChainAdapters` serve
 * live networks (test/support/recording-chain-adapter.ts).
 */
export async function createTestApp(
  env: Record<string, string> = {},
  clock: Clock = new ManualClock(new Date()),
  options: Pick<BuildOptions, 'liveChainAdapters' | 'database'> = {},
): Promise<TestApp> {
  const config = loadConfig({
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '0',
    RATE_LIMIT_WRITES_PER_MINUTE: '0',
    PUBLIC_URL: 'http://ivory.test',
    DATA_DIR: '/nonexistent-ivory-test-dir',
    ...env,
  });
  // A database passed in belongs to the caller (to restart an app on it); a fresh one to this app.
  const database = options.database ?? (await freshDatabase());
  const app = await buildApp({ config, clock, runJobs: false, ...options, database });
  return {
    ...app,
    clock: clock as ManualClock,
    request: (options) => app.server.inject(options),
    async close() {
      await app.close();
      if (options.database === undefined) await database.close();
    },
  };
}

/** Headers for a bearer token, JSON and, for mutations, an Idempotency-Key. */
export function authed(token: string, idempotencyKey?: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return headers;
}

let keyCounter = 0;
export function newIdempotencyKey(): string {
  keyCounter += 1;
  return `test-${process.pid}-${Date.now()}-${keyCounter}`;
}
