import { requireMerchantAccess } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import type { Executor, Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { isUuid } from '../platform/ids.js';
import {
  countMerchantWideOwners,
  deleteGrant,
  findEmailAddresses,
  listGrants,
  listPendingInvitations,
  lockGrant,
  lockInvitation,
  markInvitationRevoked,
} from './team.repository.js';
import { grantRecord, invitationRecord, invitationStatus, sessionOf, type GrantRecord, type InvitationRecord } from './team.js';

export interface Team {
  readonly grants: GrantRecord[];
  readonly invitations: InvitationRecord[];
}

/** GET /merchants/{id}/team (owner session): every grant with its person, and the pending invitations. */
export async function listTeam(db: Executor, clock: Clock, principal: Principal, merchantId: string): Promise<Team> {
  sessionOf(principal);
  const access = await requireMerchantAccess(db, principal, merchantId, 'owner');
  const now = clock.now();
  const grants = await listGrants(db, access.merchantId);
  const emails = await findEmailAddresses(db, [...new Set(grants.map((grant) => grant.userId))]);
  const invitations = await listPendingInvitations(db, access.merchantId, now);
  return {
    grants: grants.map((grant) => grantRecord(grant, emails.get(grant.userId) ?? null)),
    invitations: invitations.map((row) => invitationRecord(row, now)),
  };
}

/**
 * DELETE /merchants/{id}/invites/{invite_id} (owner session): a pending
 * invitation can no longer be accepted and stops counting against the team
 * limit. Unknown, another merchant's, or no longer pending: 404 not_found.
 */
export async function revokeInvitation(trx: Tx, clock: Clock, principal: Principal, merchantId: string, invitationId: string): Promise<InvitationRecord> {
  sessionOf(principal);
  const access = await requireMerchantAccess(trx, principal, merchantId, 'owner', { lock: true });
  const invitation = isUuid(invitationId) ? await lockInvitation(trx, invitationId) : undefined;
  const now = clock.now();
  if (invitation === undefined || invitation.merchant_id !== access.merchantId || invitationStatus(invitation, now) !== 'pending') {
    throw new IvoryError('not_found');
  }
  return invitationRecord(await markInvitationRevoked(trx, invitation.id, now), now);
}

/**
 * DELETE /merchants/{id}/grants/{grant_id} (owner session): the access ends
 * at once. Unknown or another merchant's grant: 404 not_found. The last
 * merchant-wide owner cannot be removed (403 forbidden, details.reason
 * `last_owner`): a merchant always keeps someone who can administer it.
 */
export async function removeGrant(trx: Tx, principal: Principal, merchantId: string, grantId: string): Promise<{ ok: true }> {
  sessionOf(principal);
  const access = await requireMerchantAccess(trx, principal, merchantId, 'owner', { lock: true });
  const grant = isUuid(grantId) ? await lockGrant(trx, access.merchantId, { id: grantId }) : undefined;
  if (grant === undefined) throw new IvoryError('not_found');
  if (grant.role === 'owner' && grant.shopId === null && (await countMerchantWideOwners(trx, access.merchantId)) <= 1) {
    throw new IvoryError('forbidden', { reason: 'last_owner' });
  }
  await deleteGrant(trx, grant.id);
  return { ok: true };
}
