import { sql, type AliasableExpression, type Expression, type InferResult, type RawBuilder, type Selectable, type Updateable } from 'kysely';
import type { ChainFamily } from '../chains/index.js';
import { compiledOnce } from '../platform/database/compiled-query.js';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { feeTermsOf, selectFeeTerms, type MerchantIssuanceTerms } from './merchant-controls.repository.js';
import { payoutSetupOf, selectServiceWallets } from './service-wallets.repository.js';
import type { Executor } from '../platform/database/database.js';
import { countRows } from '../platform/database/count-rows.js';
import { sqlStateOf } from '../platform/database/retry.js';
import type { MerchantsTable, PayoutTarget, Role, ShopsTable } from '../platform/database/schema.js';

export type ShopRow = Selectable<ShopsTable>;
export type MerchantRow = Selectable<MerchantsTable>;

export interface UserStanding {
  readonly onboardedAt: Date | null;
  readonly blockedAt: Date | null;
  readonly blockedReason: string | null;
}

export interface GrantRow {
  readonly role: Role;
  readonly shopId: string | null;
}

/** `lock`: hold the row `FOR UPDATE` until the transaction ends. */
export interface ReadOptions {
  /** FOR UPDATE: the row is the caller's alone to the end of the transaction. */
  readonly lock?: boolean;
  /**
   * FOR KEY SHARE (when not `lock`): the row cannot be locked for update — so
   * the shop cannot be archived (decision 0038) — until the transaction ends.
   */
  readonly hold?: boolean;
}

export async function findUserStanding(db: Executor, userId: string): Promise<UserStanding | undefined> {
  return db
    .selectFrom('users')
    .select(['onboarded_at as onboardedAt', 'blocked_at as blockedAt', 'blocked_reason as blockedReason'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

export async function findMerchant(db: Executor, merchantId: string, options: ReadOptions = {}): Promise<MerchantRow | undefined> {
  let query = db.selectFrom('merchants').selectAll().where('id', '=', merchantId);
  if (options.lock === true) query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface ShopWithMerchantStanding {
  readonly shop: ShopRow;
  readonly merchantBlockedAt: Date | null;
  readonly merchantBlockedReason: string | null;
}

/** The shop and whether its merchant is blocked, in one round trip (every shop request asks). */
export async function findShopForAccess(db: Executor, shopId: string, options: ReadOptions = {}): Promise<ShopWithMerchantStanding | undefined> {
  let query = db
    .selectFrom('shops')
    .innerJoin('merchants', 'merchants.id', 'shops.merchant_id')
    .selectAll('shops')
    .select(['merchants.blocked_at as merchant_blocked_at', 'merchants.blocked_reason as merchant_blocked_reason'])
    .where('shops.id', '=', shopId);
  if (options.lock === true) query = query.forUpdate(['shops']);
  else if (options.hold === true) query = query.forKeyShare(['shops']);
  const row = await query.executeTakeFirst();
  if (row === undefined) return undefined;
  const { merchant_blocked_at: merchantBlockedAt, merchant_blocked_reason: merchantBlockedReason, ...shop } = row;
  return { shop, merchantBlockedAt, merchantBlockedReason };
}

/** The shop's merchant and mode as SQL, for an expression the issuance access read evaluates. */
export interface ShopColumns {
  readonly merchantId: Expression<string>;
  readonly sandbox: Expression<boolean>;
}

export interface ShopForIssuance extends ShopWithMerchantStanding {
  readonly terms: MerchantIssuanceTerms;
  /** The merchant's active-invoice limit override (SPEC "Limits"; null: the default). */
  readonly activeInvoiceLimit: number | null;
  /** The merchant row's view stamp: with the shop's (`shop.view_stamp`), it moves whenever anything above does. */
  readonly merchantViewStamp: string;
}

/**
 * `findShopForAccess` for issuance creation, in the same one round trip: the
 * merchant's issuance terms too, the merchant and shop rows held FOR KEY SHARE
 * to commit (a block or an archive, which take FOR UPDATE, either waits for
 * the creation or is seen by it), and `alsoEvaluate` (the active-invoice
 * gate's lock).
 */
export async function findShopForIssuance(
  db: Executor,
  shopId: string,
  alsoEvaluate?: (shop: ShopColumns) => AliasableExpression<unknown>,
): Promise<ShopForIssuance | undefined> {
  let read = shopForIssuanceReads.get(alsoEvaluate);
  if (read === undefined) {
    read = compiledOnce(1, (executor, id) => selectShopForIssuance(executor, id, alsoEvaluate));
    shopForIssuanceReads.set(alsoEvaluate, read);
  }
  const [row] = await read(db, shopId);
  if (row === undefined) return undefined;
  const {
    merchant_blocked_at: merchantBlockedAt,
    merchant_blocked_reason: merchantBlockedReason,
    merchant_tron_enabled: tronEnabled,
    merchant_fee_terms: feeTerms,
    merchant_wallets: wallets,
    merchant_active_invoice_limit: activeInvoiceLimit,
    merchant_view_stamp: merchantViewStamp,
    also_evaluated: _evaluated,
    ...shop
  } = row;
  return {
    shop,
    merchantBlockedAt,
    merchantBlockedReason,
    terms: { feeTerms: feeTerms.map(feeTermsOf), payoutSetup: payoutSetupOf(wallets, tronEnabled) },
    activeInvoiceLimit,
    merchantViewStamp,
  };
}

/**
 * Compiled once per `alsoEvaluate` (invoice creation's hot path): callers pass
 * a long-lived function (the gate's, src/limits), so there are a few at most.
 */
const shopForIssuanceReads = new Map<((shop: ShopColumns) => AliasableExpression<unknown>) | undefined, ShopForIssuanceRead>();
type ShopForIssuanceRead = (executor: Executor, shopId: string) => Promise<InferResult<ReturnType<typeof selectShopForIssuance>>>;

function selectShopForIssuance(db: Executor, shopId: string, alsoEvaluate?: (shop: ShopColumns) => AliasableExpression<unknown>) {
  return db
    .selectFrom('shops')
    .innerJoin('merchants', 'merchants.id', 'shops.merchant_id')
    .selectAll('shops')
    .select((eb) => {
      const merchantId = eb.ref('shops.merchant_id');
      return [
        'merchants.blocked_at as merchant_blocked_at',
        'merchants.blocked_reason as merchant_blocked_reason',
        'merchants.tron_enabled as merchant_tron_enabled',
        'merchants.active_invoice_limit as merchant_active_invoice_limit',
        'merchants.view_stamp as merchant_view_stamp',
        jsonArrayFrom(selectFeeTerms(db, merchantId)).as('merchant_fee_terms'),
        jsonArrayFrom(selectServiceWallets(db, merchantId)).as('merchant_wallets'),
        (alsoEvaluate === undefined ? sql<unknown>`null` : alsoEvaluate({ merchantId, sandbox: eb.ref('shops.sandbox') })).as('also_evaluated'),
      ];
    })
    .where('shops.id', '=', shopId)
    .forKeyShare(['merchants', 'shops']);
}

/** Every grant the user holds on the merchant: merchant-wide (shopId null) or per shop. */
export async function listUserGrants(db: Executor, merchantId: string, userId: string): Promise<GrantRow[]> {
  const rows = await db
    .selectFrom('grants')
    .select(['role', 'shop_id'])
    .where((eb) => eb.and({ merchant_id: merchantId, user_id: userId }))
    .execute();
  return rows.map((row) => ({ role: row.role, shopId: row.shop_id }));
}

/** Shops that count against `merchants.shop_limit`: every shop not archived. */
export async function countActiveShops(db: Executor, merchantId: string): Promise<number> {
  return countRows(db.selectFrom('shops').where((eb) => eb.and({ merchant_id: merchantId, archived_at: null })));
}

export async function hasActiveSandboxShop(db: Executor, merchantId: string): Promise<boolean> {
  const row = await db
    .selectFrom('shops')
    .select('id')
    .where((eb) => eb.and({ merchant_id: merchantId, sandbox: true, archived_at: null }))
    .executeTakeFirst();
  return row !== undefined;
}

export interface NewShop {
  readonly id: string;
  readonly merchantId: string;
  readonly name: string;
  readonly sandbox: boolean;
  readonly recipient: string | null;
  readonly delegate: string | null;
  readonly payoutTarget: PayoutTarget;
  readonly solanaPayoutTarget: PayoutTarget;
  readonly tronPayoutTarget: PayoutTarget;
  readonly now: Date;
}

export async function insertShop(db: Executor, shop: NewShop): Promise<ShopRow> {
  return db
    .insertInto('shops')
    .values({
      id: shop.id,
      merchant_id: shop.merchantId,
      name: shop.name,
      sandbox: shop.sandbox,
      recipient: shop.recipient,
      delegate: shop.delegate,
      payout_target: shop.payoutTarget,
      solana_recipient: null,
      tron_recipient: null,
      solana_payout_target: shop.solanaPayoutTarget,
      tron_payout_target: shop.tronPayoutTarget,
      branding_name: null,
      branding_logo_asset_id: null,
      created_at: shop.now,
      updated_at: shop.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The columns PATCH /shops/{id} and PATCH /shops/{id}/branding may change,
 * named as `ShopRow` names them; a column left out keeps its value.
 */
export type ShopChanges = Pick<
  Updateable<ShopsTable>,
  'recipient' | 'delegate' | 'payout_target' | 'solana_payout_target' | 'tron_payout_target' | 'branding_name' | 'branding_logo_asset_id'
>;

export async function updateShop(db: Executor, shopId: string, changes: ShopChanges, now: Date): Promise<ShopRow> {
  return db.updateTable('shops').set({ ...changes, updated_at: now }).where('id', '=', shopId).returningAll().executeTakeFirstOrThrow();
}

/** Sets `archived_at` once: an archived shop keeps its first archive time. Answers the row as it now stands. */
export async function markShopArchived(db: Executor, shopId: string, now: Date): Promise<ShopRow> {
  return db
    .updateTable('shops')
    .set((eb) => ({ archived_at: eb.fn.coalesce('archived_at', eb.val(now)), updated_at: now }))
    .where('id', '=', shopId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The families whose shop recipient has a column and a route of its own
 * (`/shops/{id}/{family}-recipient`), and that column: storage, not a rule.
 * The EVM recipient is the shop's `recipient`, set with the shop.
 */
export const RECIPIENT_COLUMNS = { solana: 'solana_recipient', tron: 'tron_recipient' } as const satisfies Partial<Record<ChainFamily, keyof ShopRow>>;

export type RecipientFamily = keyof typeof RECIPIENT_COLUMNS;

export const RECIPIENT_FAMILIES = Object.keys(RECIPIENT_COLUMNS) as RecipientFamily[];

export async function writeFamilyRecipient(db: Executor, shopId: string, family: RecipientFamily, address: string, now: Date): Promise<void> {
  const changes: Updateable<ShopsTable> = { updated_at: now };
  changes[RECIPIENT_COLUMNS[family]] = address;
  await db.updateTable('shops').set(changes).where('id', '=', shopId).execute();
}

/**
 * Active shops of a merchant, oldest first; `onlyShopIds` narrows to those (a
 * shop-scoped grant or key); `includeArchived` lists the archived ones too.
 */
export async function listActiveShops(db: Executor, merchantId: string, onlyShopIds: readonly string[] | null, includeArchived = false): Promise<ShopRow[]> {
  if (onlyShopIds !== null && onlyShopIds.length === 0) return [];
  let query = db.selectFrom('shops').selectAll().where('merchant_id', '=', merchantId);
  if (!includeArchived) query = query.where('archived_at', 'is', null);
  if (onlyShopIds !== null) query = query.where('id', 'in', [...onlyShopIds]);
  return query.orderBy('created_at').orderBy('id').execute();
}

export interface BrandingAsset {
  readonly contentType: string;
  readonly bytes: Buffer;
  readonly sha256: string;
}

export async function findBrandingAsset(db: Executor, assetId: string): Promise<BrandingAsset | undefined> {
  const row = await db
    .selectFrom('branding_assets')
    .select(['content_type', 'bytes', 'sha256'])
    .where('id', '=', assetId)
    .executeTakeFirst();
  // pg hands bytea back as a Buffer, PGlite as a plain Uint8Array.
  return row === undefined ? undefined : { contentType: row.content_type, bytes: Buffer.from(row.bytes), sha256: row.sha256 };
}

/** The shop's asset with these exact bytes, if it was uploaded before (a repeated upload reuses it). */
export async function findShopAssetBySha256(db: Executor, shopId: string, sha256: string): Promise<string | undefined> {
  const row = await db.selectFrom('branding_assets').select('id').where((eb) => eb.and({ shop_id: shopId, sha256 })).executeTakeFirst();
  return row?.id;
}

export async function insertBrandingAsset(db: Executor, asset: { id: string; shopId: string; bytes: Buffer; sha256: string; now: Date }): Promise<void> {
  await db
    .insertInto('branding_assets')
    .values({ id: asset.id, shop_id: asset.shopId, content_type: 'image/png', bytes: asset.bytes, sha256: asset.sha256, created_at: asset.now })
    .execute();
}

/**
 * SQL that holds the kept access's merchant FOR KEY SHARE to commit, as the
 * access read does, and evaluates to the merchant id while both stamps are
 * still the stored ones; otherwise it raises `IV001`
 * (migrations/202611260040), which aborts the statement around it.
 */
export function lockCurrentIssuingShop(kept: { readonly shopId: string; readonly shopStamp: string; readonly merchantStamp: string }): RawBuilder<string> {
  return sql<string>`ivory_lock_current_issuing_shop(${kept.shopId}, ${kept.shopStamp}, ${kept.merchantStamp})`;
}

/** The error of `lockCurrentIssuingShop` when the kept access is no longer current. */
export function isIssuanceAccessMoved(error: unknown): boolean {
  return sqlStateOf(error) === 'IV001';
}

/** A shop's payout columns, read before an issuance's transaction (the family checks that talk to a node). */
export async function findShopPayoutColumns(db: Executor, shopId: string) {
  return db
    .selectFrom('shops')
    .select(['sandbox', 'recipient', 'payout_target', 'solana_recipient', 'solana_payout_target', 'tron_recipient', 'tron_payout_target'])
    .where('id', '=', shopId)
    .executeTakeFirst();
}
