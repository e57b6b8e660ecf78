import type { FastifyBaseLogger } from 'fastify';
import type { Catalogue } from '../catalogue/index.js';
import type { ChainAdapters } from '../chains/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { SecretBox } from './crypto.js';
import type { Db } from './database/database.js';

/**
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
  readonly log: FastifyBaseLogger;
}
