import type { Executor } from '../platform/database/database.js';
import type { Role } from '../platform/database/schema.js';
import type { Principal } from '../platform/http/principal.js';
import { findMerchantSummary, listMerchantGrantsOfUser, type MerchantGrantRow } from './merchant-access.repository.js';

/** An element of GET /merchants (SPEC "Merchant"); the project_* fields are legacy aliases. */
export interface MerchantView {
  readonly id: string;
  readonly name: string;
  readonly role: Role;
  readonly shop_limit: number;
  readonly shop_count: number;
  readonly project_limit: number;
  readonly project_count: number;
}

/**
 * The role an API key is shown with on its own merchant. SPEC leaves it open;
 * `developer` is the team role meant for "integration work", which is what a
 * key does, and it claims neither ownership nor read-only access.
 */
const API_KEY_ROLE: Role = 'developer';

const RANK: Readonly<Record<Role, number>> = { viewer: 0, developer: 1, owner: 2 };

/**
 * SPEC "Merchants and team" GET /merchants: the merchants a session's user
 * holds grants on, or a key's own merchant only. `shop_count` counts the
 * merchant's active (not archived) shops, whatever the grant's scope, since it
 * is measured against `shop_limit`.
 */
export async function listMerchants(db: Executor, principal: Principal): Promise<MerchantView[]> {
  if (principal.kind === 'api_key') {
    const merchant = await findMerchantSummary(db, principal.merchantId);
    return merchant === undefined ? [] : [view(merchant, API_KEY_ROLE)];
  }
  const byMerchant = new Map<string, MerchantGrantRow>();
  for (const grant of await listMerchantGrantsOfUser(db, principal.userId)) {
    const kept = byMerchant.get(grant.merchantId);
    if (kept === undefined || outranks(grant, kept)) byMerchant.set(grant.merchantId, grant);
  }
  return [...byMerchant.values()].map((grant) => view(grant, grant.role));
}

/** A merchant-wide grant is preferred to shop grants; among equals, the stronger role. */
function outranks(grant: MerchantGrantRow, kept: MerchantGrantRow): boolean {
  const wide = grant.shopId === null;
  const keptWide = kept.shopId === null;
  if (wide !== keptWide) return wide;
  return RANK[grant.role] > RANK[kept.role];
}

function view(merchant: { merchantId: string; name: string; shopLimit: number; shopCount: number }, role: Role): MerchantView {
  return {
    id: merchant.merchantId,
    name: merchant.name,
    role,
    shop_limit: merchant.shopLimit,
    shop_count: merchant.shopCount,
    project_limit: merchant.shopLimit,
    project_count: merchant.shopCount,
  };
}
