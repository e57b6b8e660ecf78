import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { Database, Role } from '../platform/database/schema.js';

/** One grant of a user on a merchant, with what GET /merchants shows of the merchant. */
export interface MerchantGrantRow {
  readonly merchantId: string;
  readonly name: string;
  readonly shopLimit: number;
  readonly shopCount: number;
  readonly role: Role;
  /** Null for a merchant-wide grant. */
  readonly shopId: string | null;
}

export interface MerchantSummaryRow {
  readonly merchantId: string;
  readonly name: string;
  readonly shopLimit: number;
  readonly shopCount: number;
}

export async function insertMerchant(db: Executor, merchant: { id: string; name: string; createdAt: Date }): Promise<void> {
  await db
    .insertInto('merchants')
    .values({ id: merchant.id, name: merchant.name, deposit_address_limits: null, created_at: merchant.createdAt })
    .execute();
}

export async function insertGrant(
  db: Executor,
  grant: { id: string; merchantId: string; userId: string; role: Role; shopId: string | null; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('grants')
    .values({
      id: grant.id,
      merchant_id: grant.merchantId,
      user_id: grant.userId,
      role: grant.role,
      shop_id: grant.shopId,
      created_at: grant.createdAt,
    })
    .execute();
}

/** Every grant of the user, oldest merchant first; a merchant repeats once per grant. */
export async function listMerchantGrantsOfUser(db: Executor, userId: string): Promise<MerchantGrantRow[]> {
  const rows = await db
    .selectFrom('grants')
    .innerJoin('merchants', 'merchants.id', 'grants.merchant_id')
    .select((eb) => [
      'merchants.id',
      'merchants.name',
      'merchants.shop_limit',
      'grants.role',
      'grants.shop_id',
      activeShopCount(eb).as('shop_count'),
    ])
    .where('grants.user_id', '=', userId)
    .orderBy('merchants.created_at')
    .orderBy('merchants.id')
    .execute();
  return rows.map((row) => ({
    merchantId: row.id,
    name: row.name,
    shopLimit: row.shop_limit,
    shopCount: Number(row.shop_count),
    role: row.role,
    shopId: row.shop_id,
  }));
}

export async function findMerchantSummary(db: Executor, merchantId: string): Promise<MerchantSummaryRow | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => ['merchants.id', 'merchants.name', 'merchants.shop_limit', activeShopCount(eb).as('shop_count')])
    .where('merchants.id', '=', merchantId)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return { merchantId: row.id, name: row.name, shopLimit: row.shop_limit, shopCount: Number(row.shop_count) };
}

// Archived shops no longer count against the merchant's shop limit.
function activeShopCount(eb: ExpressionBuilder<Database, 'merchants'>) {
  return eb
    .selectFrom('shops')
    .select((inner) => inner.fn.countAll<string>().as('count'))
    .whereRef('shops.merchant_id', '=', 'merchants.id')
    .where('shops.archived_at', 'is', null);
}
