import { findIdentityOwner, findUser, insertGrant, markUserOnboarded } from '../accounts/index.js';
import { teamLimit } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { newId } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import { IvoryError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { isUuid } from '../platform/ids.js';
import {
  countTeam,
  findEmailAddresses,
  findInvitationMerchant,
  findShopStanding,
  isMember,
  lockGrant,
  lockInvitation,
  lockMerchantForTeam,
  markInvitationAccepted,
  setGrantRole,
  type GrantRow,
} from './team.repository.js';
import { grantRecord, invitationStatus, outranks, sessionOf, type GrantRecord } from './team.js';

export interface AcceptedInvitation {
  readonly merchant_id: string;
  readonly grant: GrantRecord;
}

/**
 * POST /invites/{id}/accept (session). Only the person signed in with the
 * invited address may accept (403 forbidden otherwise); an unknown, revoked,
 * expired or already accepted invitation is 404 not_found (single use). The
 * merchant must not be blocked, a shop invitation's shop must still be active,
 * and the team must stay within its limit (team_limit_reached; someone who is
 * already a member adds no one). The grant is exactly the invitation's scope;
 * a grant the user already holds on that scope keeps the higher role.
 * Accepting completes the new member's onboarding: the merchant is theirs to
 * work on without creating one of their own.
 */
export async function acceptInvitation(trx: Tx, clock: Clock, principal: Principal, invitationId: string): Promise<AcceptedInvitation> {
  const { userId } = sessionOf(principal);
  if (!isUuid(invitationId)) throw new IvoryError('not_found');
  // Merchant row first, then the invitation: the order every team change locks in.
  const merchantId = await findInvitationMerchant(trx, invitationId);
  if (merchantId === undefined) throw new IvoryError('not_found');
  const merchant = await lockMerchantForTeam(trx, merchantId);
  const invitation = await lockInvitation(trx, invitationId);
  if (merchant === undefined || invitation === undefined) throw new IvoryError('not_found');

  if ((await findIdentityOwner(trx, 'email', invitation.subject)) !== userId) throw new IvoryError('forbidden');
  const now = clock.now();
  if (invitationStatus(invitation, now) !== 'pending') throw new IvoryError('not_found');
  if (merchant.blockedAt !== null) throw new IvoryError('account_disabled', { reason: merchant.blockedReason ?? '' });
  if (invitation.shop_id !== null) {
    const shop = await findShopStanding(trx, invitation.merchant_id, invitation.shop_id);
    if (shop === undefined) throw new IvoryError('shop_not_found');
    if (shop.archived) throw new IvoryError('shop_archived');
  }

  // A member taking a further grant adds no one; someone joining turns a pending invitation into a member.
  if (!(await isMember(trx, invitation.merchant_id, userId))) {
    const teamAfter = (await countTeam(trx, invitation.merchant_id, now, { excludeInvitationId: invitation.id })) + 1;
    if (teamAfter > teamLimit(merchant.teamLimit)) throw new IvoryError('team_limit_reached');
  }

  const existing = await lockGrant(trx, invitation.merchant_id, { user_id: userId, shop_id: invitation.shop_id });
  let grant: GrantRow;
  if (existing === undefined) {
    grant = { id: newId(), userId, role: invitation.role, shopId: invitation.shop_id, createdAt: now };
    await insertGrant(trx, { ...grant, merchantId: invitation.merchant_id });
  } else {
    grant = outranks(invitation.role, existing.role) ? await setGrantRole(trx, existing.id, invitation.role) : existing;
  }
  await markInvitationAccepted(trx, invitation.id, userId, now);
  const user = await findUser(trx, userId);
  if (user !== undefined && user.onboardedAt === null) await markUserOnboarded(trx, userId, now);

  const email = (await findEmailAddresses(trx, [userId])).get(userId) ?? null;
  return { merchant_id: invitation.merchant_id, grant: grantRecord(grant, email) };
}
