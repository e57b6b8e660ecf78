import type { Selectable } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import { countRows } from '../platform/database/count-rows.js';
import type { ApiKeysTable, Scope } from '../platform/database/schema.js';

/** Key management; the per-request lookup lives in api-keys.lookup.repository.ts. */
export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Keys that count against SPEC "Limits" (non-revoked, disabled ones included). */
export async function countLiveKeys(db: Executor, shopId: string): Promise<number> {
  return countRows(db.selectFrom('api_keys').where((eb) => eb.and({ shop_id: shopId, revoked_at: null })));
}

export interface NewApiKey {
  readonly id: string;
  readonly shopId: string;
  readonly merchantId: string;
  readonly name: string;
  readonly tokenHash: string;
  readonly tokenPrefix: string;
  readonly scopes: readonly Scope[];
  readonly allowedIps: readonly string[];
  readonly now: Date;
}

export async function insertKey(db: Executor, key: NewApiKey): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      id: key.id,
      shop_id: key.shopId,
      merchant_id: key.merchantId,
      name: key.name,
      token_hash: key.tokenHash,
      token_prefix: key.tokenPrefix,
      scopes: JSON.stringify(key.scopes),
      allowed_ips: JSON.stringify(key.allowedIps),
      enabled: true,
      created_at: key.now,
      updated_at: key.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A non-revoked key of this shop, locked for change; revoked keys are gone as far as the API is concerned. */
export async function lockLiveKey(db: Executor, shopId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where((eb) => eb.and({ id: keyId, shop_id: shopId, revoked_at: null })).forUpdate().executeTakeFirst();
}

export interface ApiKeyChanges {
  readonly name?: string;
  readonly enabled?: boolean;
  readonly scopes?: readonly Scope[];
  readonly allowedIps?: readonly string[];
}

export async function updateKey(db: Executor, keyId: string, changes: ApiKeyChanges, now: Date): Promise<ApiKeyRow> {
  return db
    .updateTable('api_keys')
    .set({
      ...(changes.name === undefined ? {} : { name: changes.name }),
      ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
      ...(changes.scopes === undefined ? {} : { scopes: JSON.stringify(changes.scopes) }),
      ...(changes.allowedIps === undefined ? {} : { allowed_ips: JSON.stringify(changes.allowedIps) }),
      updated_at: now,
    })
    .where('id', '=', keyId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function markKeyRevoked(db: Executor, keyId: string, now: Date): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: now, updated_at: now }).where('id', '=', keyId).execute();
}

export async function listLiveKeys(db: Executor, shopId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where((eb) => eb.and({ shop_id: shopId, revoked_at: null }))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
