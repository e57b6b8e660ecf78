import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../app-context.js';
import { IvoryError } from '../platform/errors.js';
import { SESSION_FRESH_MFA, SESSION_MFA_EXEMPT, type SessionPrincipal, principalOf } from '../platform/http/principal.js';
import type { IvoryServer } from '../platform/http/server.js';
import { confirmSession } from './confirm-session.js';
import { enrollTotp } from './enroll-totp.js';
import { getSecuritySummary } from './get-security-summary.js';
import { redeemRecoveryCode } from './redeem-recovery-code.js';
import { SessionUserSchema } from '../accounts/index.js';
import { verifyTotp } from './verify-totp.js';

const EnrollAnswer = Type.Object({
  uri: Type.String({ description: 'otpauth://totp/ setup URI (issuer = the brand); shown once' }),
});

const VerifyBody = Type.Object(
  {
    code: Type.String({ maxLength: 64, description: 'the 6-digit code of the authenticator' }),
    enroll: Type.Optional(Type.Boolean({ description: 'true only when confirming an enrollment' })),
  },
  { additionalProperties: false },
);

const VerifyAnswer = Type.Object({
  user: SessionUserSchema,
  recovery_codes: Type.Optional(Type.Array(Type.String(), { description: 'ten single-use codes, only when confirming an enrollment; shown once' })),
});

const RecoveryBody = Type.Object({ code: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

const RecoveryAnswer = Type.Object({ user: SessionUserSchema, recovery_codes_left: Type.Integer({ minimum: 0 }) });

const ConfirmAnswer = Type.Object({
  fresh: Type.Boolean({ description: 'the session may make sensitive changes now' }),
  mfa_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  fresh_until: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const SecuritySummary = Type.Object({
  totp: Type.Boolean(),
  passkeys: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), created_at: Type.String({ format: 'date-time' }) })),
});

/**
 * SPEC "Sign-in" TOTP, recovery and confirm, and the security summary of
 * "Profile" (decision 0012). Session only; no Idempotency-Key (sign-in
 * ceremony, not business mutations). Every route but enroll is reachable
 * before the session has passed the second factor.
 */
export async function mfaRoutes(api: IvoryServer, context: AppContext): Promise<void> {
  const mfaFreshWindowMs = context.config.mfaFreshMinutes * 60 * 1000;
  const deps = { db: context.db, clock: context.clock, secrets: context.secrets };

  // Changing a confirmed factor is sensitive: SESSION_FRESH_MFA (a first enrollment is not).
  api.post('/auth/totp/enroll', { schema: { response: { 200: EnrollAnswer } }, config: { auth: SESSION_FRESH_MFA } }, async (request) =>
    enrollTotp({ ...deps, brand: context.config.brand }, sessionOf(request).userId),
  );

  api.post(
    '/auth/totp/verify',
    {
      schema: { body: VerifyBody, response: { 200: VerifyAnswer } },
      config: { auth: SESSION_MFA_EXEMPT, fieldErrors: { code: 'invalid_code', enroll: 'invalid_request' } },
    },
    async (request) => {
      const verified = await verifyTotp(
        { ...deps, mfaFreshWindowMs },
        { session: sessionOf(request), code: request.body.code, enroll: request.body.enroll === true },
      );
      return verified.recoveryCodes === undefined ? { user: verified.user } : { user: verified.user, recovery_codes: [...verified.recoveryCodes] };
    },
  );

  api.post(
    '/auth/recovery',
    {
      schema: { body: RecoveryBody, response: { 200: RecoveryAnswer } },
      config: { auth: SESSION_MFA_EXEMPT, fieldErrors: { code: 'invalid_code' } },
    },
    async (request) => {
      const redeemed = await redeemRecoveryCode(deps, { session: sessionOf(request), code: request.body.code });
      return { user: redeemed.user, recovery_codes_left: redeemed.recoveryCodesLeft };
    },
  );

  api.post('/auth/confirm', { schema: { response: { 200: ConfirmAnswer } }, config: { auth: SESSION_MFA_EXEMPT } }, async (request) => {
    const confirmation = confirmSession(sessionOf(request), context.clock.now(), mfaFreshWindowMs);
    return {
      fresh: confirmation.fresh,
      mfa_at: confirmation.mfaAt?.toISOString() ?? null,
      fresh_until: confirmation.freshUntil?.toISOString() ?? null,
    };
  });

  // Reachable before the second factor: the client learns which factor to ask for.
  api.get('/profile/security', { schema: { response: { 200: SecuritySummary } }, config: { auth: SESSION_MFA_EXEMPT } }, async (request) =>
    getSecuritySummary(context.db, sessionOf(request).userId),
  );
}

function sessionOf(request: FastifyRequest): SessionPrincipal {
  const principal = principalOf(request);
  if (principal.kind !== 'session') throw new IvoryError('forbidden');
  return principal;
}
