import { Type } from 'typebox';

/** The `user` object of session answers (SPEC "Principal and session"), for route schemas. */
export const SessionUserSchema = Type.Object({
  user_id: Type.String({ format: 'uuid' }),
  onboarding_required: Type.Boolean(),
  mfa_required: Type.Boolean(),
  mfa_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
}, { additionalProperties: true });

/** SPEC's session answer of a completed sign-in (the token, its expiry, the CSRF token and the user). */
export const SessionAnswerSchema = Type.Object({
  token: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
  csrf: Type.String(),
  user: SessionUserSchema,
});
