import type { Executor } from '../platform/database/database.js';
import type { Scope } from '../platform/database/schema.js';
import { compiledOnce } from '../platform/database/compiled-query.js';

/** A key that may be used now, before the caller checks the client address. */
export interface ActiveKeyRow {
  readonly id: string;
  readonly shopId: string;
  readonly merchantId: string;
  readonly scopes: readonly Scope[];
  readonly allowedIps: readonly string[];
  readonly lastUsedAt: Date | null;
}

/**
 * The key with this token hash when it is enabled, not revoked, its merchant
 * not blocked and its shop not archived; otherwise undefined. Kept apart from
 * the key-management repository: this is the hot path of every keyed request,
 * so its query is built and compiled once per database (`compiledOnce`).
 */
export async function findActiveKeyByHash(db: Executor, tokenHash: string): Promise<ActiveKeyRow | undefined> {
  const [found] = (await lookupByHash(db, tokenHash)).map((row) => ({
    id: row.id,
    shopId: row.shop_id,
    merchantId: row.merchant_id,
    scopes: row.scopes,
    allowedIps: row.allowed_ips,
    lastUsedAt: row.last_used_at,
  }));
  return found;
}

const lookupByHash = compiledOnce(1, (db, tokenHash) =>
  db
    .selectFrom('api_keys')
    .innerJoin('shops', 'shops.id', 'api_keys.shop_id')
    .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
    .select(['api_keys.id', 'api_keys.shop_id', 'api_keys.merchant_id', 'api_keys.scopes', 'api_keys.allowed_ips', 'api_keys.last_used_at'])
    .where('api_keys.token_hash', '=', tokenHash)
    .where('api_keys.enabled', '=', true)
    .where('api_keys.revoked_at', 'is', null)
    .where('shops.archived_at', 'is', null)
    .where('merchants.blocked_at', 'is', null),
);

/**
 * Stamps `last_used_at` unless it was stamped after `staleBefore`. The
 * condition makes concurrent requests of one key write at most once.
 */
export async function touchKeyLastUsed(db: Executor, keyId: string, now: Date, staleBefore: Date): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: now })
    .where('id', '=', keyId)
    .where((where) => where.or([where('last_used_at', 'is', null), where('last_used_at', '<', staleBefore)]))
    .execute();
}
