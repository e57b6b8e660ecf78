import type { FastifyBaseLogger } from 'fastify';
import type { Catalogue, IsLive } from './catalogue/index.js';
import type { ChainAdapters } from './chains/index.js';
import type { Clock } from './platform/clock.js';
import type { Config } from './platform/config.js';
import type { SecretBox } from './platform/crypto.js';
import type { Db } from './platform/database/database.js';
import type { ApiKeyCache } from './keys/index.js';
import type { LedgerPorts } from './issuances/index.js';

/**
 * Built by the composition root (`app.ts`), beside it because it names
 * modules (catalogue, chains) that `platform/` may not import.
 *
 * The few shared things a module's routes and jobs are built from. Use cases
 * take only what they use out of it (STYLE "Habits" 2), never the whole.
 */
export interface AppContext {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly catalogue: Catalogue;
  /** The chain adapters of this deployment (sandbox, and the live networks configured). */
  readonly chains: ChainAdapters;
  /** Whether this deployment takes live payments on a network (`live` of GET /networks, decision 0023). */
  readonly isLive: IsLive;
  readonly log: FastifyBaseLogger;
  /** Resolved API keys of this process, cleared on every key or standing change (src/keys/api-key-cache.ts). */
  readonly apiKeyCache: ApiKeyCache;
  /** The ledger's reactions in modules built on issuances (payouts, webhook fan-out), passed to every ledger write. */
  readonly ledger: LedgerPorts;
}
