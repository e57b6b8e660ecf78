import { DISPOSABLE, EMAIL_RULE, findIdentityOwner, isDisposableDomain, parseEmailAddress } from '../accounts/index.js';
import { requireMerchantAccess, requireShopAccess, teamLimit } from '../merchants/index.js';
import type { Clock } from '../platform/clock.js';
import { newId, type SecretBox } from '../platform/crypto.js';
import type { Tx } from '../platform/database/database.js';
import type { Role } from '../platform/database/schema.js';
import { IvoryError, fieldError } from '../platform/errors.js';
import type { Principal } from '../platform/http/principal.js';
import { enqueueMail } from '../platform/mail/enqueue-mail.js';
import type { MailMessage } from '../platform/mail/mail.js';
import { countTeam, insertInvitation, revokePendingInvitationsFor } from './team.repository.js';
import { INVITATION_LIFETIME_MS, invitationRecord, parseRole, sessionOf, type InvitationRecord } from './team.js';

export interface InviteDeps {
  readonly clock: Clock;
  readonly secrets: SecretBox;
  readonly brand: string;
  /** Where a person accepts in a browser: the dashboard's invitation screen is `{dashboardUrl}/invites/{id}` (issue 25). */
  readonly dashboardUrl: string;
}

export interface InviteInput {
  readonly provider: string;
  readonly subject: string;
  readonly role: string;
  readonly shopId: string | null;
}

/**
 * POST /merchants/{id}/invites (owner session). The subject must be an
 * address the e-mail sign-in would take (invalid_email; disposable_email when
 * it has no account yet). A shop must be active and the merchant's, else
 * shop_not_found / shop_archived: an invitation never falls back to
 * merchant-wide. A pending invitation of the same address to the same scope
 * is superseded. Members plus pending invitations may not pass the team limit
 * (team_limit_reached), counted under the merchant row's lock. The mail with
 * the accept link is queued in the same transaction for the mail worker.
 */
export async function inviteMember(trx: Tx, deps: InviteDeps, principal: Principal, merchantId: string, input: InviteInput): Promise<InvitationRecord> {
  const inviter = sessionOf(principal);
  const access = await requireMerchantAccess(trx, principal, merchantId, 'owner', { lock: true });
  if (input.provider !== 'email') throw fieldError('invalid_request', 'provider', 'must be email');
  const email = parseEmailAddress(input.subject);
  if (email === undefined) throw fieldError('invalid_email', 'subject', EMAIL_RULE);
  const role = parseRole(input.role);
  if ((await findIdentityOwner(trx, 'email', email.subject)) === undefined && isDisposableDomain(email.domain)) {
    throw fieldError('disposable_email', 'subject', DISPOSABLE);
  }
  let shopName: string | null = null;
  if (input.shopId !== null) {
    const shopAccess = await requireShopAccess(trx, principal, input.shopId, 'owner');
    if (shopAccess.merchantId !== access.merchantId) throw new IvoryError('shop_not_found');
    shopName = shopAccess.shop.name;
  }

  const now = deps.clock.now();
  await revokePendingInvitationsFor(trx, access.merchantId, email.subject, input.shopId, now);
  if ((await countTeam(trx, access.merchantId, now)) + 1 > teamLimit(access.merchant.team_limit)) throw new IvoryError('team_limit_reached');

  const expiresAt = new Date(now.getTime() + INVITATION_LIFETIME_MS);
  const row = await insertInvitation(trx, {
    id: newId(),
    merchantId: access.merchantId,
    subject: email.subject,
    address: email.address,
    role,
    shopId: input.shopId,
    invitedBy: inviter.userId,
    createdAt: now,
    expiresAt,
  });
  const message = invitationMessage(deps, { to: email.address, invitationId: row.id, merchantName: access.merchant.name, shopName, role, expiresAt });
  await enqueueMail(trx, deps, message, { expiresAt });
  return invitationRecord(row, now);
}

function invitationMessage(
  deps: Pick<InviteDeps, 'brand' | 'dashboardUrl'>,
  invitation: { to: string; invitationId: string; merchantName: string; shopName: string | null; role: Role; expiresAt: Date },
): MailMessage {
  const scope = invitation.shopName === null ? `${invitation.merchantName}` : `the shop ${invitation.shopName} of ${invitation.merchantName}`;
  return {
    to: invitation.to,
    subject: `You are invited to ${invitation.merchantName} on ${deps.brand}`,
    text: [
      `You are invited to join ${scope} on ${deps.brand} as ${invitation.role}.`,
      '',
      `Open this page, sign in to ${deps.brand} with this e-mail address (${invitation.to}) and accept the invitation:`,
      `${deps.dashboardUrl}/invites/${invitation.invitationId}`,
      '',
      `Invitation id: ${invitation.invitationId}. It can be accepted once, until ${invitation.expiresAt.toISOString()}.`,
      'If you did not expect it, ignore this message.',
    ].join('\n'),
  };
}
