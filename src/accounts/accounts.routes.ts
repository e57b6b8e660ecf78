import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { runIdempotent, sendAnswer } from '../platform/http/idempotency.js';
import {
  SESSION_MFA_EXEMPT,
  SESSION_ONLY,
  SESSION_OR_KEY,
  SESSION_OR_READ_KEY,
  type SessionPrincipal,
  principalOf,
} from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { clearSessionCookie } from '../platform/http/session-cookie.js';
import { completeOnboarding } from './complete-onboarding.js';
import { describePrincipal } from './describe-principal.js';
import { emailSignInRoutes } from './email-sign-in.routes.js';
import { listMerchants } from './list-merchants.js';
import { profileRoutes } from './profile.routes.js';
import { signOut } from './sign-out.js';
import { walletSignInRoutes } from './wallet-sign-in.routes.js';

const OnboardingBody = Type.Object(
  { name: Type.String(), email: Type.Optional(Type.String()) },
  { additionalProperties: false },
);

const OkAnswer = Type.Object({ ok: Type.Literal(true) });

/** SPEC "Account", "Sign-in" and the merchant list of "Merchants and team". */
export async function accountsRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  await walletSignInRoutes(api, context);
  await emailSignInRoutes(api, context);
  await profileRoutes(api, context);

  // Reachable before the second factor (decision 0012): `user.mfa_required` is how a client learns it owes one.
  api.get('/me', { config: { auth: { session: true, key: 'any', mfa: 'exempt' } } }, async (request) => describePrincipal(context.db, principalOf(request)));

  api.post('/auth/logout', { schema: { response: { 200: OkAnswer } }, config: { auth: SESSION_MFA_EXEMPT } }, async (request, reply) => {
    await signOut(context.db, context.clock, sessionOf(request).sessionId);
    if (request.authenticatedBy === 'cookie') clearSessionCookie(reply);
    return { ok: true as const };
  });

  api.post(
    '/onboarding',
    {
      schema: { body: OnboardingBody },
      config: { auth: SESSION_ONLY, idempotent: true, fieldErrors: { name: 'invalid_name', email: 'invalid_email' } },
    },
    async (request, reply) => {
      const userId = sessionOf(request).userId;
      const { name, email } = request.body;
      const answer = await runIdempotent(context.db, request, reply, async (trx) => {
        const outcome = await completeOnboarding(trx, context.clock, { userId, name, email });
        return { status: outcome.created ? 201 : 200, body: { completed: true } };
      });
      return sendAnswer(reply, answer);
    },
  );

  api.get('/merchants', { config: { auth: SESSION_OR_READ_KEY } }, async (request) => listMerchants(context.db, principalOf(request)));

  // SPEC: always 403, kept for compatibility. Refused before the body is read,
  // so no body (malformed, foreign content type) can turn it into a 400.
  api.post(
    '/merchants',
    {
      config: { auth: SESSION_OR_KEY },
      onRequest: async () => {
        throw new IvoryError('forbidden');
      },
    },
    async () => {
      throw new IvoryError('forbidden');
    },
  );
}

function sessionOf(request: FastifyRequest): SessionPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'session') throw new IvoryError('forbidden');
  return principal;
}
