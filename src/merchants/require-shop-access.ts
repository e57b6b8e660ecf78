import type { Executor } from '../platform/database/database.js';
import { asId, isUuid, type MerchantId } from '../platform/ids.js';
import type { Role } from '../platform/database/schema.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import type { AliasableExpression } from 'kysely';
import type { IssuanceAccessCache } from './issuance-access-cache.js';
import type { ShopAccess, ShopIssuanceAccess } from './shop-access.js';
import {
  findMerchant,
  findShopForAccess,
  findShopForIssuance,
  findUserStanding,
  listUserGrants,
  type GrantRow,
  type MerchantRow,
  type ReadOptions,
  type ShopColumns,
  type ShopWithMerchantStanding,
} from './merchants.repository.js';

/**
 * What a request wants to do with a shop or merchant. `read` and `write` map to
 * SPEC "Authentication" 8 roles (viewer reads; developer also does integration
 * work); `owner` is administration. API keys are never owners; their scopes
 * were already checked by the route's auth requirement.
 */
export type AccessNeed = 'read' | 'write' | 'owner';

export interface MerchantAccess {
  readonly merchant: MerchantRow;
  readonly merchantId: MerchantId;
  /** The session user's highest role on the merchant; null for an API key. */
  readonly role: Role | null;
  /** null: every shop of the merchant; otherwise the only shops the principal may see. */
  readonly shopIds: readonly string[] | null;
}

const RANK: Readonly<Record<Role, number>> = { viewer: 1, developer: 2, owner: 3 };
const LEAST_ROLE: Readonly<Record<AccessNeed, Role>> = { read: 'viewer', write: 'developer', owner: 'owner' };

export function roleAllows(role: Role, need: AccessNeed): boolean {
  return RANK[role] >= RANK[LEAST_ROLE[need]];
}

/**
 * The one gate in front of every shop-level operation (ARCHITECTURE "Data
 * rules"): returns the shop only when the principal may act on it, so callers
 * scope every later query by `access.shop.id`.
 *
 * - API key: its own shop only — another shop of its merchant is 403
 *   `forbidden`, another merchant's shop or an unknown id 404 `shop_not_found`
 *   (other merchants' ids answer as if absent); `owner` needs are always `forbidden`.
 * - Session: the user must be onboarded (`onboarding_required`) and not blocked
 *   (`account_disabled`); a merchant-wide grant or a grant on this shop decides
 *   the role; no grant is 404 `shop_not_found`, so other merchants' shops stay
 *   invisible; a role below the need is 403 `forbidden`.
 * - Then for both: a blocked merchant is 403 `account_disabled` with
 *   `details.reason`, an archived shop `shop_archived`.
 *
 * `lock` holds the shop row `FOR UPDATE` for the rest of the transaction, for
 * use cases that count or compare before writing (key limit, immutable
 * recipients, archiving). Any other `write` or `owner` need holds it FOR KEY
 * SHARE: a write in flight keeps the shop from being archived under it, and a
 * write that waited for an archive sees the shop archived (decision 0038).
 * `includeArchived` lets the archive operation itself reach an archived shop
 * (archiving twice is one archive).
 */
export async function requireShopAccess(
  db: Executor,
  principal: Principal,
  shopId: string,
  need: AccessNeed,
  options: ReadOptions & { readonly includeArchived?: boolean } = {},
): Promise<ShopAccess> {
  if (principal.kind === 'session') await requireUserMayAct(db, principal.userId);
  if (!isUuid(shopId)) throw new IvoryError('shop_not_found');
  const found = await findShopForAccess(db, shopId, { lock: options.lock, hold: need !== 'read' });
  return judgeShopAccess(db, principal, found, need, options.includeArchived === true);
}

/**
 * `requireShopAccess` with `write` need for creating invoices and deposits,
 * with the merchant's issuance terms read in the same round trip, the merchant
 * held FOR KEY SHARE to commit (a block either waits for this creation or is
 * seen by it) and `alsoEvaluate` evaluated there (the active-invoice gate's
 * lock, src/limits) — decision 0019. An API key's granted access is kept in
 * `keepIn`, for the next creation's one-statement path.
 */
export async function requireShopAccessForIssuance(
  db: Executor,
  principal: Principal,
  shopId: string,
  alsoEvaluate?: (shop: ShopColumns) => AliasableExpression<unknown>,
  keepIn?: IssuanceAccessCache,
): Promise<ShopIssuanceAccess> {
  if (principal.kind === 'session') await requireUserMayAct(db, principal.userId);
  if (!isUuid(shopId)) throw new IvoryError('shop_not_found');
  // Only API keys' access is kept; kept again below only if granted again, so
  // a refused shop is not tried in one statement until then.
  const kept = principal.kind === 'api_key' ? keepIn : undefined;
  kept?.forget(shopId);
  const found = await findShopForIssuance(db, shopId, alsoEvaluate);
  if (found === undefined) throw new IvoryError('shop_not_found');
  const access = { ...(await judgeShopAccess(db, principal, found, 'write')), terms: found.terms };
  kept?.keep({ access, activeInvoiceLimit: found.activeInvoiceLimit, stamps: { shop: found.shop.view_stamp, merchant: found.merchantViewStamp } });
  return access;
}

async function judgeShopAccess(
  db: Executor,
  principal: Principal,
  found: ShopWithMerchantStanding | undefined,
  need: AccessNeed,
  includeArchived = false,
): Promise<ShopAccess> {
  if (found === undefined) throw new IvoryError('shop_not_found');
  const { shop } = found;

  let role: Role | null = null;
  if (principal.kind === 'api_key') {
    if (shop.merchant_id !== principal.merchantId) throw new IvoryError('shop_not_found');
    if (shop.id !== principal.shopId || need === 'owner') throw new IvoryError('forbidden');
  } else {
    const grants = await listUserGrants(db, shop.merchant_id, principal.userId);
    role = highestRole(grants.filter((grant) => grant.shopId === null || grant.shopId === shop.id));
    if (role === null) throw new IvoryError('shop_not_found');
  }

  if (found.merchantBlockedAt !== null) throw new IvoryError('account_disabled', { reason: found.merchantBlockedReason ?? '' });
  if (role !== null && !roleAllows(role, need)) throw new IvoryError('forbidden');
  if (shop.archived_at !== null && !includeArchived) throw new IvoryError('shop_archived');
  return { shop, shopId: asId(shop.id), merchantId: asId(shop.merchant_id), role };
}

/**
 * The gate for merchant-level operations. An unknown merchant, or one the user
 * holds no grant on, is 404 `not_found`; an API key reaches only its own
 * merchant (another is 404 `not_found`, as if absent) and sees only its own shop. A user whose
 * grants are all shop-scoped may read (and sees only those shops) but may not
 * write or administer at merchant level. Blocked user or merchant and
 * onboarding as in `requireShopAccess`.
 */
export async function requireMerchantAccess(
  db: Executor,
  principal: Principal,
  merchantId: string,
  need: AccessNeed,
  options: ReadOptions = {},
): Promise<MerchantAccess> {
  if (principal.kind === 'session') await requireUserMayAct(db, principal.userId);
  if (!isUuid(merchantId)) throw new IvoryError('not_found');
  const merchant = await findMerchant(db, merchantId, options);
  if (merchant === undefined) throw new IvoryError('not_found');

  let role: Role | null = null;
  let shopIds: readonly string[] | null;
  if (principal.kind === 'api_key') {
    if (merchant.id !== principal.merchantId) throw new IvoryError('not_found');
    if (need === 'owner') throw new IvoryError('forbidden');
    shopIds = [principal.shopId];
  } else {
    const grants = await listUserGrants(db, merchant.id, principal.userId);
    if (grants.length === 0) throw new IvoryError('not_found');
    const merchantWide = grants.filter((grant) => grant.shopId === null);
    if (merchantWide.length > 0) {
      role = highestRole(merchantWide);
      shopIds = null;
    } else {
      // Shop-scoped people read the merchant's lists (filtered), never act on the merchant itself.
      role = need === 'read' ? highestRole(grants) : null;
      shopIds = grants.flatMap((grant) => (grant.shopId === null ? [] : [grant.shopId]));
    }
  }

  if (merchant.blocked_at !== null) throw new IvoryError('account_disabled', { reason: merchant.blocked_reason ?? '' });
  if (principal.kind === 'session' && (role === null || !roleAllows(role, need))) throw new IvoryError('forbidden');
  return { merchant, merchantId: asId(merchant.id), role, shopIds };
}

/** SPEC "Authentication" 9 and "onboarding_required": who may act on shops at all. */
async function requireUserMayAct(db: Executor, userId: string): Promise<void> {
  const standing = await findUserStanding(db, userId);
  if (standing?.blockedAt != null) throw new IvoryError('account_disabled', { reason: standing.blockedReason ?? '' });
  if (standing?.onboardedAt == null) throw new IvoryError('onboarding_required');
}

function highestRole(grants: readonly GrantRow[]): Role | null {
  let best: Role | null = null;
  for (const grant of grants) if (best === null || RANK[grant.role] > RANK[best]) best = grant.role;
  return best;
}
