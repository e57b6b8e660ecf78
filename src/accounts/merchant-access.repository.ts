import type { ExpressionBuilder } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import type { Database, Role } from '../platform/database/schema.js';

/** What GET /merchants shows of a merchant. */
export interface MerchantSummaryRow {
  readonly merchantId: string;
  readonly name: string;
  readonly shopLimit: number;
  readonly shopCount: number;
}

/** One grant of a user on a merchant, with what GET /merchants shows of the merchant. */
export interface MerchantGrantRow extends MerchantSummaryRow {
  readonly role: Role;
  /** Null for a merchant-wide grant. */
  readonly shopId: string | null;
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
    .select((eb) => [...merchantSummaryColumns(eb), 'grants.role', 'grants.shop_id as shopId'])
    .where('grants.user_id', '=', userId)
    .orderBy('merchants.created_at')
    .orderBy('merchants.id')
    .execute();
  return rows.map((row) => ({ ...row, shopCount: Number(row.shopCount) }));
}

export async function findMerchantSummary(db: Executor, merchantId: string): Promise<MerchantSummaryRow | undefined> {
  const row = await db.selectFrom('merchants').select(merchantSummaryColumns).where('merchants.id', '=', merchantId).executeTakeFirst();
  return row === undefined ? undefined : { ...row, shopCount: Number(row.shopCount) };
}

/** The columns of `MerchantSummaryRow`; the shop count comes as the driver's bigint text. */
function merchantSummaryColumns(eb: ExpressionBuilder<Database, 'merchants'>) {
  return ['merchants.id as merchantId', 'merchants.name', 'merchants.shop_limit as shopLimit', activeShopCount(eb).as('shopCount')] as const;
}

// Archived shops no longer count against the merchant's shop limit.
function activeShopCount(eb: ExpressionBuilder<Database, 'merchants'>) {
  return eb
    .selectFrom('shops')
    .select((inner) => inner.fn.countAll<string>().as('count'))
    .whereRef('shops.merchant_id', '=', 'merchants.id')
    .where('shops.archived_at', 'is', null);
}
