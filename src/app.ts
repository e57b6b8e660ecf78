import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { FastifyBaseLogger } from 'fastify';
import { ADMIN_PREFIX, adminRoutes } from './admin/index.js';
import { loadCatalogue, type Catalogue } from './catalogue/index.js';
import { createChainAdapters, familyAccess, type ChainAdapter, type ChainFamily, type FamilyAdapters } from './chains/index.js';
import { systemClock, type Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import { SecretBox } from './platform/crypto.js';
import { openConfiguredDatabase, type DatabaseHandle } from './platform/database/database.js';
import { ApiKeyCache, API_KEYS_CHANNEL } from './keys/index.js';
import { migrate } from './platform/database/migrate.js';
import type { AppContext } from './app-context.js';
import { startJobs, type Job, type JobRunner } from './platform/jobs.js';
import { EmbeddedMaintenanceJob } from './platform/database/embedded-maintenance.js';
import { defaultSender, logTransport, smtpTransport } from './platform/mail/mail.js';
import { SendMailJob } from './platform/mail/send-mail.job.js';
import { healthRoutes } from './platform/http/health.routes.js';
import type { PrincipalResolver } from './platform/http/principal.js';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './platform/http/rate-limit.js';
import { API_PREFIX, createHttpCore, type IvoryServer } from './platform/http/server.js';
import { sessionCookieSettings } from './platform/http/session-cookie.js';
import { modules } from './modules.js';
import { openApiOptions } from './openapi/index.js';
import { networkLiveness, startLiveChains } from './live-chains.js';
import { ledgerPorts } from './ledger-ports.js';
import { registerMetrics } from './operations.js';

export interface BuildOptions {
  readonly config: Config;
  /** The process's logger (`ivory serve` passes its own, so start-up lines stay in order). */
  readonly log?: FastifyBaseLogger;
  /** An open database; otherwise one is opened from the config. */
  readonly database?: DatabaseHandle;
  readonly clock?: Clock;
  readonly catalogue?: Catalogue;
  /**
   * In-process adapters of live networks, by chain id (serving the family the
   * catalogue gives the chain), beside (and before) the running family
   * drivers' networks; tests register
   * recording ones here. Sandbox issuances always use the sandbox adapter.
   */
  readonly liveChainAdapters?: ReadonlyMap<number, ChainAdapter>;
  /** Poll jobs in the background (serve). Tests leave it off and call `jobs.drain()`. */
  readonly runJobs?: boolean;
}

export interface IvoryApp {
  readonly server: IvoryServer;
  readonly context: AppContext;
  readonly database: DatabaseHandle;
  readonly jobs: JobRunner;
  close(): Promise<void>;
}

/** The composition root: opens storage, migrates, wires every module. */
export async function buildApp(options: BuildOptions): Promise<IvoryApp> {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const catalogue = options.catalogue ?? loadCatalogue(config.networksFile);
  const database = options.database ?? (await openConfiguredDatabase(config));
  await migrate(database.db);

  // ioredis is loaded only when configured: it is a noticeable part of start-up time otherwise.
  const rateLimiter: RateLimiter = config.redisUrl
    ? new RedisRateLimiter(limits(config), new (await import('ioredis')).Redis(config.redisUrl, { lazyConnect: false, maxRetriesPerRequest: 2 }))
    : new MemoryRateLimiter(limits(config));

  let resolvePrincipal: PrincipalResolver = async () => null;
  const server = createHttpCore({
    logLevel: config.logLevel,
    ...(options.log === undefined ? {} : { logger: options.log }),
    trustProxy: config.trustProxy,
    rateLimiter,
    clock,
    mfaFreshWindowMs: config.mfaFreshMinutes * 60 * 1000,
    resolvePrincipal: (token, ip, from) => resolvePrincipal(token, ip, from),
    sessionCookie: sessionCookieSettings(config.brand, config.publicUrl),
  });

  // First, so that its request-counting hook covers every route registered after it.
  await registerMetrics(server, { db: database.db, clock, token: config.metricsToken });

  // Issue 13 item 1: keyed requests skip the database while the key is cached; every process clears on any change.
  const apiKeyCache = new ApiKeyCache();
  const unlistenApiKeys = await database.listen(API_KEYS_CHANNEL, { onMessage: () => apiKeyCache.clear(), onGap: () => apiKeyCache.clear() });

  const secrets = new SecretBox(secretKey(config));
  const live = await startLiveChains({ db: database.db, secrets, clock, catalogue, log: server.log, ledger: ledgerPorts });
  const chains = createChainAdapters(byFamily(catalogue, options.liveChainAdapters ?? new Map()), live.adapters);
  const context: AppContext = {
    config,
    db: database.db,
    clock,
    secrets,
    catalogue,
    chains,
    isLive: networkLiveness(catalogue, chains),
    log: server.log,
    apiKeyCache,
    ledger: ledgerPorts,
  };

  await server.register(swagger, openApiOptions({ brand: config.brand, publicUrl: config.publicUrl }));
  await server.register(async (root) => healthRoutes(root, { db: database.db }));
  await server.register(
    async (admin) => adminRoutes(admin, { adminToken: config.adminToken, listLiveNetworks: live.listLiveNetworks, rescanNetwork: live.rescanNetwork, db: database.db, clock, catalogue, ledger: ledgerPorts }),
    { prefix: ADMIN_PREFIX },
  );
  for (const module of modules) {
    if (module.rootRoutes !== undefined) await server.register(async (root) => module.rootRoutes?.(root, context));
  }

  // Mail is sent only by this worker, from rows (ARCHITECTURE rule 1); without SMTP_URL it is logged.
  const mailTransport =
    config.smtpUrl === undefined ? logTransport(server.log) : smtpTransport(config.smtpUrl, defaultSender(config.brand, config.publicUrl));
  const jobs: Job[] = [...live.jobs, new SendMailJob({ db: database.db, clock, secrets, transport: mailTransport, log: server.log })];
  // PostgreSQL has autovacuum; the embedded engine has only what Ivory runs (decision 0040).
  if (database.kind === 'embedded') jobs.push(new EmbeddedMaintenanceJob({ db: database.db, log: server.log }));
  await server.register(
    async (api) => {
      api.get('/openapi.json', { config: { auth: 'none' } }, async () => server.swagger());
      for (const module of modules) {
        if (module.routes !== undefined) await api.register(async (scope) => module.routes?.(scope, context));
        if (module.resolvePrincipal !== undefined) resolvePrincipal = module.resolvePrincipal(context);
        jobs.push(...(module.jobs?.(context) ?? []));
      }
    },
    { prefix: API_PREFIX },
  );
  await server.ready();

  const runner = startJobs(jobs, server.log, { poll: options.runJobs ?? false });
  return {
    server,
    context,
    database,
    jobs: runner,
    async close() {
      await runner.stop();
      await server.close();
      await rateLimiter.close();
      await unlistenApiKeys();
      if (options.database === undefined) await database.close();
    },
  };
}

/**
 * In-process adapters serve the family the catalogue gives their chain; a
 * chain it does not list has no issuances to serve. Read at each lookup, not
 * copied: tests swap a network's adapter after the app is built (a restart,
 * as far as the chain can tell).
 */
function byFamily(catalogue: Catalogue, adapters: ReadonlyMap<number, ChainAdapter>): FamilyAdapters {
  const servedAs = (family: ChainFamily) => ({
    get: (chainId: number) => (catalogue.network(chainId)?.family === family ? adapters.get(chainId) : undefined),
  });
  return Object.fromEntries((Object.keys(familyAccess) as ChainFamily[]).map((family) => [family, servedAs(family)]));
}

function limits(config: Config) {
  return { perMinute: config.rateLimitPerMinute, writesPerMinute: config.rateLimitWritesPerMinute };
}

/**
 * SECRET_KEY, or with embedded storage a key generated once into DATA_DIR
 * (readable by the owner only), so a fresh `npm start` needs no setup.
 */
export function secretKey(config: Config): Buffer {
  if (config.secretKey !== undefined) return config.secretKey;
  const file = path.join(config.dataDir, 'secret.key');
  if (fs.existsSync(file)) return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  fs.mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  fs.writeFileSync(file, key.toString('hex'), { mode: 0o600, flag: 'wx' });
  return key;
}
