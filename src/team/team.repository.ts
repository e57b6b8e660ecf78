import type { ExpressionBuilder, Selectable } from 'kysely';
import type { Executor } from '../platform/database/database.js';
import { countRows } from '../platform/database/count-rows.js';
import type { Database, InvitationsTable, Role } from '../platform/database/schema.js';

export type InvitationRow = Selectable<InvitationsTable>;

export interface GrantRow {
  readonly id: string;
  readonly userId: string;
  readonly role: Role;
  readonly shopId: string | null;
  readonly createdAt: Date;
}

export interface MerchantTeamStanding {
  readonly name: string;
  readonly teamLimit: number | null;
  readonly blockedAt: Date | null;
  readonly blockedReason: string | null;
}

/**
 * The merchant row locked `FOR UPDATE`: every team change counts, compares and
 * writes under it, so two invitations or acceptances cannot both pass the limit
 * and two removals cannot both leave the merchant without an owner.
 */
export async function lockMerchantForTeam(db: Executor, merchantId: string): Promise<MerchantTeamStanding | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['name', 'team_limit', 'blocked_at', 'blocked_reason'])
    .where('id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
  return row === undefined ? undefined : { name: row.name, teamLimit: row.team_limit, blockedAt: row.blocked_at, blockedReason: row.blocked_reason };
}

/** An invitation that can still be accepted at `now`: neither accepted, revoked nor expired. */
function pendingAt(eb: ExpressionBuilder<Database, 'invitations'>, now: Date) {
  return eb.and([eb('accepted_at', 'is', null), eb('revoked_at', 'is', null), eb('expires_at', '>', now)]);
}

/** SPEC "Limits": members (people holding any grant) plus pending invitations. */
export async function countTeam(db: Executor, merchantId: string, now: Date, options: { excludeInvitationId?: string } = {}): Promise<number> {
  const members = await db
    .selectFrom('grants')
    .select((eb) => eb.fn.count<string>('user_id').distinct().as('count'))
    .where('merchant_id', '=', merchantId)
    .executeTakeFirstOrThrow();
  let pending = db
    .selectFrom('invitations')
    .where('merchant_id', '=', merchantId)
    .where((eb) => pendingAt(eb, now));
  if (options.excludeInvitationId !== undefined) pending = pending.where('id', '!=', options.excludeInvitationId);
  return Number(members.count) + (await countRows(pending));
}

export async function insertInvitation(
  db: Executor,
  invitation: {
    id: string;
    merchantId: string;
    subject: string;
    address: string;
    role: Role;
    shopId: string | null;
    invitedBy: string;
    createdAt: Date;
    expiresAt: Date;
  },
): Promise<InvitationRow> {
  return db
    .insertInto('invitations')
    .values({
      id: invitation.id,
      merchant_id: invitation.merchantId,
      provider: 'email',
      subject: invitation.subject,
      address: invitation.address,
      role: invitation.role,
      shop_id: invitation.shopId,
      invited_by: invitation.invitedBy,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Pending invitations of the same address to the same scope: a new one supersedes them. */
export async function revokePendingInvitationsFor(
  db: Executor,
  merchantId: string,
  subject: string,
  shopId: string | null,
  now: Date,
): Promise<void> {
  await db
    .updateTable('invitations')
    .set({ revoked_at: now })
    // A null shop id is matched with `is null`: the merchant-wide scope.
    .where((eb) => eb.and({ merchant_id: merchantId, subject, shop_id: shopId }))
    .where((eb) => pendingAt(eb, now))
    .execute();
}

export async function findInvitationMerchant(db: Executor, invitationId: string): Promise<string | undefined> {
  return (await db.selectFrom('invitations').select('merchant_id').where('id', '=', invitationId).executeTakeFirst())?.merchant_id;
}

export async function lockInvitation(db: Executor, invitationId: string): Promise<InvitationRow | undefined> {
  return db.selectFrom('invitations').selectAll().where('id', '=', invitationId).forUpdate().executeTakeFirst();
}

export async function listPendingInvitations(db: Executor, merchantId: string, now: Date): Promise<InvitationRow[]> {
  return db
    .selectFrom('invitations')
    .selectAll()
    .where('merchant_id', '=', merchantId)
    .where((eb) => pendingAt(eb, now))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function markInvitationRevoked(db: Executor, invitationId: string, now: Date): Promise<InvitationRow> {
  return db.updateTable('invitations').set({ revoked_at: now }).where('id', '=', invitationId).returningAll().executeTakeFirstOrThrow();
}

export async function markInvitationAccepted(db: Executor, invitationId: string, userId: string, now: Date): Promise<void> {
  await db.updateTable('invitations').set({ accepted_at: now, accepted_by: userId }).where('id', '=', invitationId).execute();
}

/** Whether the shop belongs to the merchant and is not archived (what an invitation may still point at). */
export async function findShopStanding(db: Executor, merchantId: string, shopId: string): Promise<{ archived: boolean } | undefined> {
  const row = await db.selectFrom('shops').select('archived_at').where((eb) => eb.and({ id: shopId, merchant_id: merchantId })).executeTakeFirst();
  return row === undefined ? undefined : { archived: row.archived_at !== null };
}

/** The columns of `GrantRow`, under its field names. */
const GRANT_COLUMNS = ['id', 'user_id as userId', 'role', 'shop_id as shopId', 'created_at as createdAt'] as const;

export async function listGrants(db: Executor, merchantId: string): Promise<GrantRow[]> {
  return db.selectFrom('grants').select(GRANT_COLUMNS).where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();
}

export async function isMember(db: Executor, merchantId: string, userId: string): Promise<boolean> {
  return (await countRows(db.selectFrom('grants').where((eb) => eb.and({ merchant_id: merchantId, user_id: userId })))) > 0;
}

/**
 * The merchant's grant with these keys, locked for change: by its id, or a
 * user's grant on one scope (a null `shop_id` is the merchant-wide one).
 */
export async function lockGrant(
  db: Executor,
  merchantId: string,
  keys: { readonly id: string } | { readonly user_id: string; readonly shop_id: string | null },
): Promise<GrantRow | undefined> {
  return db
    .selectFrom('grants')
    .select(GRANT_COLUMNS)
    .where((eb) => eb.and({ merchant_id: merchantId, ...keys }))
    .forUpdate()
    .executeTakeFirst();
}

export async function setGrantRole(db: Executor, grantId: string, role: Role): Promise<GrantRow> {
  return db.updateTable('grants').set({ role }).where('id', '=', grantId).returning(GRANT_COLUMNS).executeTakeFirstOrThrow();
}

export async function deleteGrant(db: Executor, grantId: string): Promise<void> {
  await db.deleteFrom('grants').where('id', '=', grantId).execute();
}

export async function countMerchantWideOwners(db: Executor, merchantId: string): Promise<number> {
  return countRows(db.selectFrom('grants').where((eb) => eb.and({ merchant_id: merchantId, role: 'owner', shop_id: null })));
}

/** The e-mail sign-in address of each user (the first linked, when several), for the team list. */
export async function findEmailAddresses(db: Executor, userIds: readonly string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('identities')
    .select(['user_id', 'label'])
    .where('provider', '=', 'email')
    .where('user_id', 'in', [...userIds])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  // Later rows overwrite earlier ones: descending order leaves the first linked.
  return new Map(rows.map((row) => [row.user_id, row.label]));
}
