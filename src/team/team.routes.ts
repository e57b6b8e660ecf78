import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { DASHBOARD_PATH } from '../dashboard/index.js';
import { replyIdempotentChange } from '../platform/http/idempotency.js';
import { SESSION_FRESH_MFA, SESSION_ONLY, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { acceptInvitation } from './accept-invitation.js';
import { inviteMember } from './invite-member.js';
import { listTeam, removeGrant, revokeInvitation } from './manage-team.js';

const MerchantParams = Type.Object({ merchant_id: Type.String() });
const MerchantItemParams = Type.Object({ merchant_id: Type.String(), id: Type.String() });
const InvitationParams = Type.Object({ id: Type.String() });

const InviteBody = Type.Object(
  {
    provider: Type.String({ description: 'how the invitee signs in; `email`' }),
    subject: Type.String({ maxLength: 1024, description: 'the e-mail address invited' }),
    role: Type.String({ description: '`viewer`, `developer` or `owner`' }),
    shop_id: Type.Union([Type.String(), Type.Null()], { description: 'one shop of the merchant, or null for the whole merchant' }),
  },
  { additionalProperties: false },
);

/**
 * SPEC "Merchants and team": invitations, acceptance, the team list and
 * removal. Session-only (keys cannot manage the team, SPEC "Authentication"
 * 3); everything but accepting needs a merchant-wide owner, and the changes
 * a fresh second factor where the owner has one (as key management does).
 */
export async function teamRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const { db, clock, secrets } = context;
  const inviteDeps = { clock, secrets, brand: context.config.brand, dashboardUrl: `${context.config.publicUrl}${DASHBOARD_PATH}` };

  api.post(
    '/merchants/:merchant_id/invites',
    {
      schema: { params: MerchantParams, body: InviteBody },
      config: {
        auth: SESSION_FRESH_MFA,
        idempotent: true,
        fieldErrors: { provider: 'invalid_request', subject: 'invalid_email', role: 'invalid_request', shop_id: 'invalid_request' },
      },
    },
    async (request, reply) => {
      const { provider, subject, role, shop_id: shopId } = request.body;
      return replyIdempotentChange(db, request, reply, 201, (trx, principal) =>
        inviteMember(trx, inviteDeps, principal, request.params.merchant_id, { provider, subject, role, shopId }),
      );
    },
  );

  api.post('/invites/:id/accept', { schema: { params: InvitationParams }, config: { auth: SESSION_ONLY, idempotent: true } }, async (request, reply) =>
    replyIdempotentChange(db, request, reply, 200, (trx, principal) => acceptInvitation(trx, clock, principal, request.params.id)),
  );

  api.get('/merchants/:merchant_id/team', { schema: { params: MerchantParams }, config: { auth: SESSION_ONLY } }, async (request) =>
    listTeam(db, clock, principalOf(request), request.params.merchant_id),
  );

  api.delete(
    '/merchants/:merchant_id/invites/:id',
    { schema: { params: MerchantItemParams }, config: { auth: SESSION_FRESH_MFA, idempotent: true } },
    async (request, reply) =>
      replyIdempotentChange(db, request, reply, 200, (trx, principal) => revokeInvitation(trx, clock, principal, request.params.merchant_id, request.params.id)),
  );

  api.delete(
    '/merchants/:merchant_id/grants/:id',
    { schema: { params: MerchantItemParams }, config: { auth: SESSION_FRESH_MFA, idempotent: true } },
    async (request, reply) =>
      replyIdempotentChange(db, request, reply, 200, (trx, principal) => removeGrant(trx, principal, request.params.merchant_id, request.params.id)),
  );
}
