import type { Executor } from '../../src/platform/database/database.js';
import type { Role, Scope } from '../../src/platform/database/schema.js';
import { newId, newToken, sha256Hex } from '../../src/platform/crypto.js';

/**
 * Factories that write rows straight into storage, for tests whose subject is
 * something else than sign-in or onboarding. Each returns what a test needs.
 */
export async function createUser(db: Executor, options: { blockedReason?: string } = {}) {
  const id = newId();
  await db
    .insertInto('users')
    .values({
      id,
      onboarded_at: new Date(),
      blocked_at: options.blockedReason === undefined ? null : new Date(),
      blocked_reason: options.blockedReason ?? null,
    })
    .execute();
  return { id };
}

export async function createSession(db: Executor, userId: string, options: { expiresAt?: Date } = {}) {
  const token = newToken();
  const id = newId();
  await db
    .insertInto('sessions')
    .values({
      id,
      user_id: userId,
      token_hash: sha256Hex(token),
      csrf_token: newToken(),
      method: 'test',
      expires_at: options.expiresAt ?? new Date(Date.now() + 3_600_000),
    })
    .execute();
  return { id, token };
}

export async function createMerchant(db: Executor, ownerId: string, options: { name?: string; role?: Role } = {}) {
  const id = newId();
  await db.insertInto('merchants').values({ id, name: options.name ?? 'Test merchant', deposit_address_limits: null }).execute();
  await db.insertInto('grants').values({ id: newId(), merchant_id: id, user_id: ownerId, role: options.role ?? 'owner', shop_id: null }).execute();
  return { id };
}

export async function createShop(
  db: Executor,
  merchantId: string,
  options: { sandbox?: boolean; recipient?: string; name?: string } = {},
) {
  const id = newId();
  await db
    .insertInto('shops')
    .values({
      id,
      merchant_id: merchantId,
      name: options.name ?? 'Test shop',
      sandbox: options.sandbox ?? true,
      recipient: options.recipient ?? '0x000000000000000000000000000000000000dEaD',
      delegate: null,
      solana_recipient: null,
      tron_recipient: null,
      branding_name: null,
      branding_logo_asset_id: null,
    })
    .execute();
  return { id };
}

export async function createApiKey(
  db: Executor,
  shop: { id: string; merchantId: string },
  options: { scopes?: Scope[]; allowedIps?: string[]; enabled?: boolean } = {},
) {
  const token = newToken('ivk_');
  const id = newId();
  await db
    .insertInto('api_keys')
    .values({
      id,
      shop_id: shop.id,
      merchant_id: shop.merchantId,
      name: 'test key',
      token_hash: sha256Hex(token),
      token_prefix: token.slice(0, 12),
      scopes: JSON.stringify(options.scopes ?? ['read', 'write']),
      allowed_ips: JSON.stringify(options.allowedIps ?? []),
      enabled: options.enabled ?? true,
    })
    .execute();
  return { id, token };
}

/** A signed-in owner with a merchant, a sandbox shop and a read+write key. */
export async function createOwnerWithShop(db: Executor, options: { sandbox?: boolean } = {}) {
  const user = await createUser(db);
  const session = await createSession(db, user.id);
  const merchant = await createMerchant(db, user.id);
  const shop = await createShop(db, merchant.id, { sandbox: options.sandbox ?? true });
  const key = await createApiKey(db, { id: shop.id, merchantId: merchant.id });
  return { user, session, merchant, shop, key };
}
